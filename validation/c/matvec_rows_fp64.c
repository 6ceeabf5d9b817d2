/* y = A x in double precision, one row per output (validation/kernels/shapes.cu). */
#define N 8192
double A[N][N], x[N], y[N];
void matvec_rows_fp64(void) {
  for (int i = 0; i < N; i++) {
    double acc = 0.0;
    for (int j = 0; j < N; j++)
      acc += A[i][j] * x[j];
    y[i] = acc;
  }
}
