/* Each row scaled to unit length, written for this set (2026-11-30): a row's
 * squared norm, then the row divided by its root in place (Gram-Schmidt's
 * normalization step, by rows of doubles). */
#include <math.h>
#define ROWS 8192
#define COLS 2048
double a[ROWS][COLS];
void row_norm(void) {
#pragma omp parallel for
  for (int i = 0; i < ROWS; i++) {
    double s = 0.0;
    for (int j = 0; j < COLS; j++)
      s += a[i][j] * a[i][j];
    double r = sqrt(s);
    for (int j = 0; j < COLS; j++)
      a[i][j] = a[i][j] / r;
  }
}
