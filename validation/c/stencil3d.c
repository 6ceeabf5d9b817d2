/* A 7-point 3-D stencil reading two arrays (validation/kernels/shapes.cu). */
#define N 256
float a[N][N][N], b[N][N][N], o[N][N][N];
void stencil3d(void) {
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      for (int k = 1; k < N - 1; k++)
        o[i][j][k] = 0.4f * a[i][j][k] +
                     0.1f * (a[i][j][k - 1] + a[i][j][k + 1] + a[i][j - 1][k] + a[i][j + 1][k] +
                             a[i - 1][j][k] + a[i + 1][j][k]) + b[i][j][k];
}
