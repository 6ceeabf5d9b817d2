/* A compute-bound kernel in float: 64 rounds of four contracting fused
 * multiply-adds per element (validation/kernels/stream.cu, 'heavy'). */
#include <math.h>
#define N 16777216

float in[N], out[N];

void heavy(void) {
  for (int i = 0; i < N; i++) {
    float x = in[i];
    for (int n = 0; n < 64; n++) {
      x = fmaf(x, 0.9990f, 0.0012f);
      x = fmaf(x, 1.0004f, -0.0007f);
      x = fmaf(x, 0.9997f, 0.0003f);
      x = fmaf(x, 1.0001f, -0.0002f);
    }
    out[i] = x;
  }
}
