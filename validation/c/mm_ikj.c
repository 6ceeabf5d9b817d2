/* The i-k-j matrix product (the cache-friendly CPU order): parallel over i,
 * each row of C updated in place (validation/kernels/shapes.cu). C starts at 0. */
#define N 1024
float A[N][N], B[N][N], C[N][N];
void mm_ikj(void) {
  for (int i = 0; i < N; i++)
    for (int k = 0; k < N; k++) {
      float a = A[i][k];
      for (int j = 0; j < N; j++)
        C[i][j] += a * B[k][j];
    }
}
