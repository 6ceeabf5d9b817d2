/* PolyBench's jacobi-1d shape, written for this set (2026-11-30): a 3-point
 * average into B and back into A, 20 times. */
#define N 16777216
#define STEPS 20
float A[N], B[N];
void jacobi1d(void) {
  for (int t = 0; t < STEPS; t++) {
#pragma omp parallel for
    for (int i = 1; i < N - 1; i++)
      B[i] = 0.33333f * (A[i - 1] + A[i] + A[i + 1]);
#pragma omp parallel for
    for (int i = 1; i < N - 1; i++)
      A[i] = 0.33333f * (B[i - 1] + B[i] + B[i + 1]);
  }
}
