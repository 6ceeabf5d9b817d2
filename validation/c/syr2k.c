/* A rank-2k product C = A B^T + B A^T (syr2k's shape without the triangle):
 * each thread walks two rows while its neighbours walk others
 * (validation/kernels/shapes.cu). */
#define N 2048
#define K 128
float A[N][K], B[N][K], C[N][N];
void syr2k(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float acc = 0.0f;
      for (int k = 0; k < K; k++)
        acc += A[i][k] * B[j][k] + B[i][k] * A[j][k];
      C[i][j] = acc;
    }
}
