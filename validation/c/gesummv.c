/* PolyBench's gesummv shape: y = 1.5 A x + 1.2 B x, two row walks
 * (validation/kernels/shapes.cu). */
#define N 8192
float A[N][N], B[N][N], x[N], y[N];
void gesummv(void) {
  for (int i = 0; i < N; i++) {
    float s = 0.0f, t = 0.0f;
    for (int j = 0; j < N; j++) {
      s += A[i][j] * x[j];
      t += B[i][j] * x[j];
    }
    y[i] = 1.5f * s + 1.2f * t;
  }
}
