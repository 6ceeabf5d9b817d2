/* B = A + A^T, written for this set (2026-11-30): one read along the rows, one
 * down the columns. */
#define N 8192
float A[N][N], B[N][N];
void transpose_add(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      B[i][j] = A[i][j] + A[j][i];
}
