/* PolyBench's mvt shape, written for this set (2026-11-30): x1 = x1 + A y1 walks
 * the rows of A, x2 = x2 + A^T y2 its columns, each element of x its own task. */
#define N 4096
float A[N][N], x1[N], x2[N], y1[N], y2[N];
void mvt(void) {
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      x1[i] = x1[i] + A[i][j] * y1[j];
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      x2[i] = x2[i] + A[j][i] * y2[j];
}
