/* One Jacobi sweep of PolyBench's jacobi-2d on the interior
 * (validation/kernels/shapes.cu). */
#define N 4096
float A[N][N], B[N][N];
void jacobi2d(void) {
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      B[i][j] = 0.2f * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
}
