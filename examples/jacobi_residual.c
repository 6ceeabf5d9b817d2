/* Jacobi relaxation of a 2-D grid with host code inside the time loop: after
 * each sweep the host reads the residual to decide whether to stop, and it
 * resets one boundary cell (a fixed source). A port that keeps this host code
 * copies `res` back and `u` both ways in every step (skelcast shows it as
 * `host reads` / `host writes` steps, docs/skeletonizer.md); moving the
 * convergence test and the boundary update onto the GPU removes those copies.
 */
#include <math.h>
#include <stdlib.h>

#define N 1024
#define STEPS 200

void jacobi_residual(float *u, float *res, const float *f) {
  float *v = malloc(sizeof(float) * N * N); /* the function's own: stays on the GPU */
  for (int t = 0; t < STEPS; t++) {
#pragma omp parallel for
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        v[i * N + j] = 0.25f * (u[(i - 1) * N + j] + u[(i + 1) * N + j] + u[i * N + j - 1] +
                                u[i * N + j + 1] - f[i * N + j]);
#pragma omp parallel for
    for (int i = 1; i < N - 1; i++) {
      float r = 0.0f;
      for (int j = 1; j < N - 1; j++) {
        r += fabsf(v[i * N + j] - u[i * N + j]);
        u[i * N + j] = v[i * N + j];
      }
      res[i] = r;
    }
    if (res[N / 2] < 1e-6f) /* the convergence test: the host reads res */
      break;
    u[0] = 1.0f; /* the fixed source: the host updates u */
  }
  free(v);
}
