/* IspinEx, complex values (GROPHECY Listing 5; validation/kernels/ispinex.cu):
 * a sparse (CSR) matrix of 14 entries a row times a dense complex matrix. */
#define ELEMS 1848
#define ROWS 132
#define COLS 65536

int J[ROWS + 1];
int I[ELEMS];
float T[ELEMS];
float B[ROWS][COLS][2];
float C[ROWS][COLS][2];

void ispinex_complex(void) {
  for (int j = 0; j < ROWS; j++)
    for (int i = 0; i < COLS; i++) {
      float re = 0.0f, im = 0.0f;
#pragma skelcast trip(14)
      for (int n = J[j]; n < J[j + 1]; n++) {
        int r = I[n];
        re += T[n] * B[r][i][0];
        im += T[n] * B[r][i][1];
      }
      C[j][i][0] = re;
      C[j][i][1] = im;
    }
}
