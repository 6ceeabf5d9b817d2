/* An all-pairs force sum, written for this set (2026-11-30): each body i adds
 * the pull of every other body j, a square root and a division a pair. */
#include <math.h>
#define N 16384
float x[N], y[N], z[N], m[N], ax[N], ay[N], az[N];
void nbody(float eps2) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (int j = 0; j < N; j++) {
      float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
      float r2 = dx * dx + dy * dy + dz * dz + eps2;
      float inv = 1.0f / (r2 * sqrtf(r2));
      fx += m[j] * dx * inv;
      fy += m[j] * dy * inv;
      fz += m[j] * dz * inv;
    }
    ax[i] = fx;
    ay[i] = fy;
    az[i] = fz;
  }
}
