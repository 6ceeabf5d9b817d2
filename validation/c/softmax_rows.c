/* A row softmax, written for this set (2026-11-30): each row's maximum, the sum
 * of its exponentials, then each element normalized; one task a row. */
#include <math.h>
#define ROWS 16384
#define COLS 1024
float x[ROWS][COLS], y[ROWS][COLS];
void softmax_rows(void) {
#pragma omp parallel for
  for (int i = 0; i < ROWS; i++) {
    float m = x[i][0];
    for (int j = 1; j < COLS; j++)
      m = fmaxf(m, x[i][j]);
    float s = 0.0f;
    for (int j = 0; j < COLS; j++)
      s += expf(x[i][j] - m);
    for (int j = 0; j < COLS; j++)
      y[i][j] = expf(x[i][j] - m) / s;
  }
}
