/* A dense layer's activation: small static helpers of the same file are
 * inlined into the count, math functions come from the table
 * (docs/skeletonizer.md): expf is about 10 instructions on an H100. */
#include <math.h>

#define BATCH 256
#define UNITS 4096

float z[BATCH][UNITS];
float bias[UNITS];
float act[BATCH][UNITS];

static float sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }

static float gelu_tanh(float v) {
  const float k = 0.7978845608f;
  return 0.5f * v * (1.0f + tanhf(k * (v + 0.044715f * v * v * v)));
}

void activate(int use_gelu) {
  for (int b = 0; b < BATCH; b++)
    for (int u = 0; u < UNITS; u++) {
      float v = z[b][u] + bias[u];
      act[b][u] = use_gelu ? gelu_tanh(v) : sigmoid(v);
    }
}
