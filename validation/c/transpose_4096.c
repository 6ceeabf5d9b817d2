/* Naive transpose, out[j][i] = in[i][j] (validation/kernels/transpose.cu). */
#define N 4096

float in[N][N], out[N][N];

void transpose(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      out[j][i] = in[i][j];
}
