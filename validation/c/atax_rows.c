/* PolyBench's atax as it writes it, y = A^T (A x) row by row: skelcast
 * splits the row loop (a fission) into tmp = A x over i and y = A^T tmp over
 * j, each thread of the second walking the rows (an interchange). */
#define M 8192
#define N 8192
double A[M][N], x[N], y[N], tmp[M];
void atax(void) {
  int i, j;
  for (j = 0; j < N; j++)
    y[j] = 0.0;
  for (i = 0; i < M; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < N; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < N; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
}
