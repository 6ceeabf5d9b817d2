/* A matrix transpose: the store walks B by columns, the load walks A by rows;
 * coalescing is the projection's business. */
#define ROWS 2000
#define COLS 3000

float A[ROWS][COLS];
float B[COLS][ROWS];

void transpose(void) {
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++)
      B[j][i] = A[i][j];
}
