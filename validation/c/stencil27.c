/* A 27-point 3-D stencil, written for this set (2026-11-30): the weighted sum of
 * a point's 3x3x3 neighbourhood, the centre, faces, edges and corners each
 * with their own weight. */
#define N 256
float a[N][N][N], b[N][N][N];
void stencil27(float c0, float c1, float c2, float c3) {
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      for (int k = 1; k < N - 1; k++) {
        float faces = a[i - 1][j][k] + a[i + 1][j][k] + a[i][j - 1][k] + a[i][j + 1][k] + a[i][j][k - 1] +
                      a[i][j][k + 1];
        float edges = a[i - 1][j - 1][k] + a[i - 1][j + 1][k] + a[i + 1][j - 1][k] + a[i + 1][j + 1][k] +
                      a[i - 1][j][k - 1] + a[i - 1][j][k + 1] + a[i + 1][j][k - 1] + a[i + 1][j][k + 1] +
                      a[i][j - 1][k - 1] + a[i][j - 1][k + 1] + a[i][j + 1][k - 1] + a[i][j + 1][k + 1];
        float corners = a[i - 1][j - 1][k - 1] + a[i - 1][j - 1][k + 1] + a[i - 1][j + 1][k - 1] +
                        a[i - 1][j + 1][k + 1] + a[i + 1][j - 1][k - 1] + a[i + 1][j - 1][k + 1] +
                        a[i + 1][j + 1][k - 1] + a[i + 1][j + 1][k + 1];
        b[i][j][k] = c0 * a[i][j][k] + c1 * faces + c2 * edges + c3 * corners;
      }
}
