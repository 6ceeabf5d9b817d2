/* PolyBench's bicg as it writes it: s = A^T r and q = A p in one row loop.
 * skelcast distributes the inner loop's two statements and splits the row
 * loop: s over j (each thread walking the rows), q over i. */
#define M 8192
#define N 8192
double A[N][M], s[M], q[N], p[M], r[N];
void bicg(void) {
  int i, j;
  for (i = 0; i < M; i++)
    s[i] = 0.0;
  for (i = 0; i < N; i++) {
    q[i] = 0.0;
    for (j = 0; j < M; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
}
