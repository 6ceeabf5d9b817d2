/* A rank-k product C = A A^T (syrk's shape without the triangle): the
 * thread of (i, j) walks row j of A while its neighbours walk other rows
 * (validation/kernels/shapes.cu). */
#define N 2048
#define K 256
float A[N][K], C[N][N];
void syrk(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float acc = 0.0f;
      for (int k = 0; k < K; k++)
        acc += A[i][k] * A[j][k];
      C[i][j] = acc;
    }
}
