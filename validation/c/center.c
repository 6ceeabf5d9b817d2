/* Centering the data by its column means (validation/kernels/shapes.cu). */
#define ROWS 16384
#define COLS 4096
float data[ROWS][COLS], mean[COLS], out[ROWS][COLS];
void center(void) {
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++)
      out[i][j] = data[i][j] - mean[j];
}
