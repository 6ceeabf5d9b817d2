/* SpinFlap (GROPHECY, Meng et al., SC'11, Listing 6): irregular data exchange,
 * similar to spectral methods, on ROWS x COLS complex numbers. Each task
 * gathers four complex numbers of A and B through the index array M, mixes
 * them (complex products of the four pairs) and scatters four results to C
 * through M again. The scatter makes the dependence test give up; the
 * OpenMP pragma says the tasks are independent. M's sample contents help the
 * projection judge coalescing:
 *   skelcast skeletonize examples/spinflap.c --sample M=examples/spinflap_M.txt */
#define ROWS 132
#define COLS 2048

float A[ROWS][COLS][2];
float B[ROWS][COLS][2];
float C[ROWS][COLS][2];
int M[COLS / 4][4];

void spinflap(void) {
#pragma omp parallel for collapse(2)
  for (int j = 0; j < ROWS; j++) {
    for (int i = 0; i < COLS / 4; i++) {
      float ar[4], ai[4], br[4], bi[4], cr[4], ci[4];
      for (int n = 0; n < 4; n++) {
        ar[n] = A[j][M[i][n]][0];
        ai[n] = A[j][M[i][n]][1];
        br[n] = B[j][M[i][n]][0];
        bi[n] = B[j][M[i][n]][1];
      }
      for (int p = 0; p < 4; p++) {
        float sr = 0.0f, si = 0.0f;
        for (int q = 0; q < 4; q++) {
          int k = (p + q) % 4;
          sr += ar[q] * br[k] - ai[q] * bi[k];
          si += ar[q] * bi[k] + ai[q] * br[k];
        }
        cr[p] = sr;
        ci[p] = si;
      }
      for (int n = 0; n < 4; n++) {
        C[j][M[i][n]][0] = cr[n];
        C[j][M[i][n]][1] = ci[n];
      }
    }
  }
}
