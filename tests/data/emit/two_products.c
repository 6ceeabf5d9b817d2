/* s = A^T r and q = A p in one row loop, as PolyBench's bicg writes them:
 * skelcast distributes the inner loop's two statements, ports s over j (the
 * rows walked by each thread) and q over i. */
#define M 64
#define N 80
void two_products(double A[N][M], double s[M], double q[N], double p[M], double r[N]) {
  int i, j;
  for (i = 0; i < N; i++) {
    q[i] = 0.0;
    for (j = 0; j < M; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
}
