/* IspinEx with real B (GROPHECY, Meng et al., SC'11, Listing 5): the same
 * sparse-times-dense product after the data were restructured so that B holds
 * real numbers over twice the columns. This version takes its data as
 * parameters: the CSR arrays with array syntax, the dense matrices as
 * 'restrict' pointers indexed by hand (B[I[n]*COLS + i]). skelcast
 * delinearises the subscripts; B's first extent cannot be inferred (its row
 * comes from data), so the command line gives it, and the trip count:
 *   skelcast skeletonize examples/ispinex_real.c --extent B=132,4096 --trip n=14 */
#define ELEMS 1848
#define ROWS 132
#define COLS 4096

void ispinex_real(const int J[ROWS + 1], const int I[ELEMS], const float T[ELEMS],
                  const float *restrict B, float *restrict C) {
  for (int j = 0; j < ROWS; j++) {
    for (int i = 0; i < COLS; i++) {
      float sum = 0.0f;
      for (int n = J[j]; n < J[j + 1]; n++)
        sum += T[n] * B[I[n] * COLS + i];
      C[j * COLS + i] = sum;
    }
  }
}
