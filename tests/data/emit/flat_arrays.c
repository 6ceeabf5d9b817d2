/* Flat arrays in the shapes real code indexes them: a 2-D stencil on
 * malloc'd rows (`u[(i - 1) * N + j]`), a 3-D one (`in[((k - 1) * NY + j) *
 * NX + i]`), a 3-D stencil through an index a local holds (Rodinia's
 * hotspot3D: `c = i + j * NX + k * NX * NY`, then `in[c - NX]`; not split
 * through the local: the array stays 1-D), and planes of flat rows
 * (`p[k][j * NX + i]`: 2-D as declared; with `--extent p=8,16,64` a leading
 * subscript and a split one), and reads that leave their row (`u[i * N + j - 1]`
 * at j = 0 is the row before's last element, as C lays the rows out: the
 * tile's fill takes that slot by its flat offset). emit prints a cached array's tile coordinates
 * from the dimensions the skeletonizer splits a subscript into
 * (tests/emit/emulated.txt runs them on the CPU). */
#include <stdlib.h>

#define N 96
#define NX 64
#define NY 16
#define NZ 8

void stencil2d_flat(const float *u, float *v) {
#pragma omp parallel for
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      v[i * N + j] = 0.25f * (u[(i - 1) * N + j] + u[(i + 1) * N + j] + u[i * N + j - 1] +
                              u[i * N + (j + 1)]);
}

void stencil3d_local(const float *in, float *out) {
#pragma omp parallel for
  for (int k = 1; k < NZ - 1; k++)
    for (int j = 1; j < NY - 1; j++)
      for (int i = 1; i < NX - 1; i++) {
        int c = i + j * NX + k * NX * NY;
        out[c] = 0.4f * in[c] + 0.1f * (in[c - 1] + in[c + 1] + in[c - NX] + in[c + NX]) +
                 0.05f * (in[c - NX * NY] + in[c + NX * NY]);
      }
}

void stencil3d_flat(const float *in, float *out) {
#pragma omp parallel for
  for (int k = 1; k < NZ - 1; k++)
    for (int j = 1; j < NY - 1; j++)
      for (int i = 1; i < NX - 1; i++)
        out[(k * NY + j) * NX + i] =
            0.5f * in[(k * NY + j) * NX + i] +
            0.125f * (in[((k - 1) * NY + j) * NX + i] + in[((k + 1) * NY + j) * NX + i] +
                      in[(k * NY + j - 1) * NX + i] + in[(k * NY + j + 1) * NX + i - 1]);
}

void planes(float p[NZ][NY * NX], float q[NZ][NY * NX]) {
#pragma omp parallel for
  for (int k = 0; k < NZ; k++)
    for (int j = 1; j < NY - 1; j++)
      for (int i = 0; i < NX; i++)
        q[k][j * NX + i] = p[k][(j - 1) * NX + i] + p[k][(j + 1) * NX + i];
}

void row_wrap(const float *u, float *v) {
#pragma omp parallel for
  for (int i = 1; i < N - 1; i++)
    for (int j = 0; j < N; j++)
      v[i * N + j] = u[i * N + j - 1] + u[(i + 1) * N - 1 + j] + u[i * N + j];
}
