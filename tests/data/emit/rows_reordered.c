/* C = beta C + alpha A B written row by row (PolyBench 4.2's gemm order): the
 * j loops are distributed out of i and interchanged with k, each thread runs
 * its own (i, j). */
#define NI 40
#define NJ 48
#define NK 36
void gemm_rows(double alpha, double beta, double C[NI][NJ], double A[NI][NK], double B[NK][NJ]) {
  int i, j, k;
  for (i = 0; i < NI; i++) {
    for (j = 0; j < NJ; j++)
      C[i][j] *= beta;
    for (k = 0; k < NK; k++)
      for (j = 0; j < NJ; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
