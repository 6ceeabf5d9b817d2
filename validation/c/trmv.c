/* y = L x with L lower triangular: row i walks i + 1 elements
 * (validation/kernels/shapes.cu). */
#define N 16384
float L[N][N], x[N], y[N];
void trmv(void) {
  for (int i = 0; i < N; i++) {
    float acc = 0.0f;
    for (int j = 0; j <= i; j++)
      acc += L[i][j] * x[j];
    y[i] = acc;
  }
}
