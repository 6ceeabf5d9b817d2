/* A dense matrix-vector product y = A x with the matrix stored row-major
 * behind a pointer (A[i*N + j]); 'restrict' rules out aliasing and the
 * subscript is delinearised to A[i][j]. N comes from the command line:
 *   skelcast skeletonize examples/matvec.c -D N=2048 */
#ifndef N
#define N 1024
#endif

void matvec(const double *restrict A, const double *restrict x, double *restrict y) {
  for (int i = 0; i < N; i++) {
    double acc = 0.0;
    for (int j = 0; j < N; j++)
      acc += A[i * N + j] * x[j];
    y[i] = acc;
  }
}
