/* y = A^T x: each output walks a column of A (validation/kernels/shapes.cu). */
#define N 8192
float A[N][N], x[N], y[N];
void matvec_cols(void) {
  for (int j = 0; j < N; j++) {
    float acc = 0.0f;
    for (int i = 0; i < N; i++)
      acc += A[i][j] * x[i];
    y[j] = acc;
  }
}
