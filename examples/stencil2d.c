/* A 2-D five-point Jacobi sweep over the interior of an N x N grid: the
 * dependence test proves the two loops parallel (out is written at [i][j]
 * only; in is only read), and the loop space starts at 1. */
#define N 1024

double in[N][N];
double out[N][N];

void jacobi2d(void) {
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      out[i][j] = 0.2 * (in[i][j] + in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
}
