/* PolyBench's doitgen shape, written for this set (2026-11-30): for each (r, q)
 * the row A[r][q][:] times the matrix C4, kept in sum and copied back. */
#define NR 128
#define NQ 128
#define NP 256
float A[NR][NQ][NP], C4[NP][NP], sum[NR][NQ][NP];
void doitgen(void) {
#pragma omp parallel for
  for (int r = 0; r < NR; r++)
    for (int q = 0; q < NQ; q++)
      for (int p = 0; p < NP; p++) {
        float s = 0.0f;
        for (int k = 0; k < NP; k++)
          s += A[r][q][k] * C4[k][p];
        sum[r][q][p] = s;
      }
#pragma omp parallel for
  for (int r = 0; r < NR; r++)
    for (int q = 0; q < NQ; q++)
      for (int p = 0; p < NP; p++)
        A[r][q][p] = sum[r][q][p];
}
