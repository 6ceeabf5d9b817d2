/* Triangular loop spaces: syrk's lower triangle, written row by row as
 * PolyBench 4.2 writes it (the j loops distributed out of i), and an upper
 * triangle above the diagonal. skelcast ports each over its bounding box with
 * the triangle as a guard. */
#define N 72
#define M 40
void syrk_rows(double alpha, double beta, double C[N][N], double A[N][M]) {
  int i, j, k;
  for (i = 0; i < N; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < M; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
}
void upper(double S[N][N], double B[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = i + 1; j < N; j++)
      S[i][j] = B[i][j] + B[j][i];
}
