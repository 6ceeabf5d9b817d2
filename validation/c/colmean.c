/* Column means, as covariance and correlation begin (validation/kernels/shapes.cu). */
#define ROWS 16384
#define COLS 4096
float data[ROWS][COLS], mean[COLS];
void colmean(void) {
  for (int j = 0; j < COLS; j++) {
    float acc = 0.0f;
    for (int i = 0; i < ROWS; i++)
      acc += data[i][j];
    mean[j] = acc / ROWS;
  }
}
