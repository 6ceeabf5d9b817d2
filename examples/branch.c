/* Kernels with branches. A data-dependent threshold whose probability the
 * programmer knows (the pragma says 30% of the samples exceed it), and a
 * clamp whose probability is unknown: skelcast assumes 0.5 and warns. The
 * boundary test of the second kernel depends on the index only: its
 * probability is counted over the loop space. */
#include <math.h>

#define N 100000

float sig[N];
float out[N];
int flag[N];

void threshold(float level) {
  for (int i = 0; i < N; i++) {
#pragma skelcast prob(0.3)
    if (sig[i] > level) {
      out[i] = sqrtf(sig[i] - level);
      flag[i] = 1;
    } else {
      out[i] = 0.0f;
      flag[i] = 0;
    }
  }
}

void clamp_edges(float lo, float hi) {
  for (int i = 0; i < N; i++) {
    float v = sig[i];
    if (i == 0 || i == N - 1) {
      out[i] = v;
    } else if (v < lo) {
      out[i] = lo + 0.5f * (sig[i - 1] + sig[i + 1] - 2.0f * v);
    } else {
      out[i] = v;
    }
  }
}
