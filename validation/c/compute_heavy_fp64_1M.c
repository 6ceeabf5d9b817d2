/* A compute-bound kernel in double: 64 rounds of four contracting fused
 * multiply-adds per element (validation/kernels/stream.cu, 'heavy'). */
#include <math.h>
#define N 1048576

double in[N], out[N];

void heavy(void) {
  for (int i = 0; i < N; i++) {
    double x = in[i];
    for (int n = 0; n < 64; n++) {
      x = fma(x, 0.9990, 0.0012);
      x = fma(x, 1.0004, -0.0007);
      x = fma(x, 0.9997, 0.0003);
      x = fma(x, 1.0001, -0.0002);
    }
    out[i] = x;
  }
}
