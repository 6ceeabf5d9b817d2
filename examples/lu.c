/* LU decomposition without pivoting, as PolyBench's lu writes it. The k loop
 * carries the factorisation and stays on the host; the two nests inside use k
 * and become kernels launched once per iteration of k, in
 * `repeat k = 0:N { ... }` (docs/skeletonizer.md, "Programs"). Their loop
 * spaces start at k + 1: at k = N - 1 they are empty and nothing is launched. */
#define N 2048

void kernel_lu(double A[N][N]) {
  int i, j, k;
  for (k = 0; k < N; k++) {
    for (j = k + 1; j < N; j++)
      A[k][j] = A[k][j] / A[k][k];
    for (i = k + 1; i < N; i++)
      for (j = k + 1; j < N; j++)
        A[i][j] = A[i][j] - A[i][k] * A[k][j];
  }
}
