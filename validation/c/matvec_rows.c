/* y = A x, one row of A per output (validation/kernels/shapes.cu). */
#define N 8192
float A[N][N], x[N], y[N];
void matvec_rows(void) {
  for (int i = 0; i < N; i++) {
    float acc = 0.0f;
    for (int j = 0; j < N; j++)
      acc += A[i][j] * x[j];
    y[i] = acc;
  }
}
