/* A product with a short inner dimension, written for this set (2026-11-30):
 * C (8192 x 8192) = A (8192 x 16) B (16 x 8192), bound by writing C. */
#define M 8192
#define N 8192
#define K 16
float A[M][K], B[K][N], C[M][N];
void small_k_gemm(void) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float s = 0.0f;
      for (int k = 0; k < K; k++)
        s += A[i][k] * B[k][j];
      C[i][j] = s;
    }
}
