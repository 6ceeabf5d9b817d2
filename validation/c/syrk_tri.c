/* PolyBench 4.2's syrk as it writes it, the lower triangle row by row:
 * skelcast distributes the j loops out of i, interchanges them with k, and
 * ports the triangle j <= i over its bounding box with a guard. */
#define N 2048
#define M 1024
double C[N][N], A[N][M];
void syrk(double alpha, double beta) {
  int i, j, k;
  for (i = 0; i < N; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < M; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
}
int main(void) {
  syrk(1.5, 1.2);
  return 0;
}
