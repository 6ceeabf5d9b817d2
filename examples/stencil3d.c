/* A 3-D seven-point heat stencil on an NX x NY x NZ box; three parallel loops
 * make a three-dimensional loop space. The coefficients are parameters of the
 * function: registers in the skeleton. */
#define NX 256
#define NY 256
#define NZ 256

float u[NZ][NY][NX];
float unew[NZ][NY][NX];

void heat3d(float c0, float c1) {
  for (int k = 1; k < NZ - 1; k++)
    for (int j = 1; j < NY - 1; j++)
      for (int i = 1; i < NX - 1; i++)
        unew[k][j][i] = c0 * u[k][j][i] +
                        c1 * (u[k][j][i - 1] + u[k][j][i + 1] + u[k][j - 1][i] +
                              u[k][j + 1][i] + u[k - 1][j][i] + u[k + 1][j][i]);
}
