/* A 2-D stencil over three arrays: out = a (sum of b's four neighbours) + c,
 * on the interior (validation/kernels/shapes.cu). */
#define N 4096
float a[N][N], b[N][N], c[N][N], out[N][N];
void lap3arr(void) {
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      out[i][j] = a[i][j] * (b[i - 1][j] + b[i + 1][j] + b[i][j - 1] + b[i][j + 1]) + c[i][j];
}
