/* IspinEx, real values (GROPHECY Listing 5; validation/kernels/ispinex.cu):
 * a sparse (CSR) matrix of 14 entries a row times a dense matrix. */
#define ELEMS 1848
#define ROWS 132
#define COLS 65536

int J[ROWS + 1];
int I[ELEMS];
float T[ELEMS];
float B[ROWS][COLS];
float C[ROWS][COLS];

void ispinex_real(void) {
  for (int j = 0; j < ROWS; j++)
    for (int i = 0; i < COLS; i++) {
      float sum = 0.0f;
#pragma skelcast trip(14)
      for (int n = J[j]; n < J[j + 1]; n++)
        sum += T[n] * B[I[n]][i];
      C[j][i] = sum;
    }
}
