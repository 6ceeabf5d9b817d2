/* PolyBench's trmm, B = alpha A^T B with A unit lower triangular: row i of
 * B takes the rows below it, so the row loop carries a dependence; each
 * column is independent. skelcast interchanges: one thread per column j
 * walking the rows in order. */
#define M 1024
#define N 8192
double A[M][M], B[M][N];
void trmm(double alpha) {
  int i, j, k;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      for (k = i + 1; k < M; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
}
int main(void) {
  trmm(1.5);
  return 0;
}
