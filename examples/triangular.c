/* A triangular loop: the product of a lower-triangular matrix with a vector.
 * The inner bound depends on the row, so the inner loop stays a stream inside
 * each task (its trip count is a function of i, not of data). */
#define N 2048

double L[N][N];
double v[N];
double w[N];

void trmv(void) {
  for (int i = 0; i < N; i++) {
    double s = 0.0;
    for (int j = 0; j <= i; j++)
      s += L[i][j] * v[j];
    w[i] = s;
  }
}
