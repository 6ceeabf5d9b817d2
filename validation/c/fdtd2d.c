/* PolyBench's fdtd-2d shape, written for this set (2026-11-30): one time step of
 * the three field updates, each a 2-D nest over several arrays. */
#define NX 4096
#define NY 4096
double ex[NX][NY], ey[NX][NY], hz[NX][NY];
void fdtd2d(void) {
  for (int i = 1; i < NX; i++)
    for (int j = 0; j < NY; j++)
      ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
  for (int i = 0; i < NX; i++)
    for (int j = 1; j < NY; j++)
      ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
  for (int i = 0; i < NX - 1; i++)
    for (int j = 0; j < NY - 1; j++)
      hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
}
