/* A^T (A x) written row by row, as PolyBench's atax writes it: the loop over
 * rows computes tmp[i] and adds row i's share to every y[j]. skelcast splits
 * it (a fission: tmp in one kernel over i, y in one over j with the rows
 * walked by each thread, the loops interchanged). */
#define M 96
#define N 80
void at_a_x(double A[M][N], double x[N], double y[N], double tmp[M]) {
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
