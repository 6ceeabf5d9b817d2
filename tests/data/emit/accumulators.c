/* Elements accumulated inside an inner loop that reads other elements of the
 * same array (emit keeps the element in a register across that loop only
 * where the loop's header keeps the other elements apart). */
#define M 96
#define N 160
double A[M][M], B[M][N], L[M][M], X[M][N], C[M][N];

/* trmm: row i of B takes the rows below it (k > i) */
void below(double alpha) {
  int i, j, k;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      for (k = i + 1; k < M; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
}

/* forward substitution by columns: row i takes the rows above it (k < i) */
void above(void) {
  int i, j, k;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      for (k = 0; k < i; k++)
        X[i][j] -= L[i][k] * X[k][j];
      X[i][j] = X[i][j] / L[i][i];
    }
}

/* back substitution, the rows walked downwards from the last */
void downwards(void) {
  int i, j, k;
  for (i = M - 1; i >= 0; i--)
    for (j = 0; j < N; j++) {
      for (k = M - 1; k > i; k--)
        X[i][j] -= L[i][k] * X[k][j];
      X[i][j] = X[i][j] / L[i][i];
    }
}

/* every row, its own included: k meets i, so the element stays in memory */
void every(void) {
  int i, j, k;
  for (j = 0; j < N; j++)
    for (i = 0; i < M; i++)
      for (k = 0; k < M; k++)
        C[i][j] += A[i][k] * C[k][j] * 0.001;
}
