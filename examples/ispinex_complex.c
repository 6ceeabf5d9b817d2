/* IspinEx with complex B (GROPHECY, Meng et al., SC'11, Listing 4): a sparse
 * ROWS x ROWS matrix in CSR form (J: row pointers, I: column indices, T:
 * values) times a dense complex ROWS x COLS matrix B, as CPU code. The number
 * of nonzeros per row depends on J; the average (14) is given to skelcast by
 * the pragma, as the paper's listing gives it by a hint. */
#define ELEMS 1848
#define ROWS 132
#define COLS 2048

int J[ROWS + 1];
int I[ELEMS];
float T[ELEMS];
float B[ROWS][COLS][2];
float C[ROWS][COLS][2];

void ispinex_complex(void) {
  for (int j = 0; j < ROWS; j++) {
    for (int i = 0; i < COLS; i++) {
      int begin = J[j];
      int end = J[j + 1];
      float re = 0.0f, im = 0.0f;
#pragma skelcast trip(14)
      for (int n = begin; n < end; n++) {
        int r = I[n];
        re += T[n] * B[r][i][0];
        im += T[n] * B[r][i][1];
      }
      C[j][i][0] = re;
      C[j][i][1] = im;
    }
  }
}
