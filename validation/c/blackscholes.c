/* An option pricer's shape, written for this set (2026-11-30): per option a
 * logarithm, a square root, two exponentials and two normal CDFs (erff). */
#include <math.h>
#define N 16777216
float S[N], K[N], T[N], call[N], put[N];
void blackscholes(float r, float sigma) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    float sq = sqrtf(T[i]);
    float d1 = (logf(S[i] / K[i]) + (r + 0.5f * sigma * sigma) * T[i]) / (sigma * sq);
    float d2 = d1 - sigma * sq;
    float n1 = 0.5f * (1.0f + erff(d1 * 0.70710678f));
    float n2 = 0.5f * (1.0f + erff(d2 * 0.70710678f));
    float disc = K[i] * expf(-r * T[i]);
    call[i] = S[i] * n1 - disc * n2;
    put[i] = disc * (1.0f - n2) - S[i] * (1.0f - n1);
  }
}
