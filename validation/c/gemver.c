/* PolyBench's gemver shape, written for this set (2026-11-30): a rank-2 update
 * of A, then x = x + beta A^T y (a column walk), then w = w + alpha A x (a row walk). */
#define N 4096
float A[N][N], u1[N], v1[N], u2[N], v2[N], w[N], x[N], y[N];
void gemver(float alpha, float beta) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      x[i] = x[i] + beta * A[j][i] * y[j];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      w[i] = w[i] + alpha * A[i][j] * x[j];
}
