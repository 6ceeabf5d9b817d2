/* An axpy over every fourth element, written for this set (2026-11-30): a warp
 * uses a quarter of each sector it reads and writes. */
#define N 16777216
float x[4 * N], y[4 * N];
void strided_axpy(float a) {
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    y[4 * i] = y[4 * i] + a * x[4 * i];
}
