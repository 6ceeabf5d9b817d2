/* HotSpot (Rodinia), one time step of the thermal stencil, written as
 * Rodinia's OpenMP single_iteration is: corners, edges and the interior each
 * with their own neighbours. It computes what the measured kernel computes
 * with clamped neighbour indices (validation/kernels/hotspot_kernels.cuh):
 * at an edge the missing neighbour is the cell itself. */
#define ROWS 4096
#define COLS 4096

float t[ROWS][COLS], power[ROWS][COLS], out[ROWS][COLS];

void hotspot(float cap, float ry, float rx, float rz, float amb) {
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++) {
      float tc = t[i][j], d;
      if (i == 0 && j == 0)
        d = (t[1][0] - tc) * ry + (t[0][1] - tc) * rx;
      else if (i == 0 && j == COLS - 1)
        d = (t[1][j] - tc) * ry + (t[0][j - 1] - tc) * rx;
      else if (i == ROWS - 1 && j == COLS - 1)
        d = (t[i - 1][j] - tc) * ry + (t[i][j - 1] - tc) * rx;
      else if (i == ROWS - 1 && j == 0)
        d = (t[i - 1][0] - tc) * ry + (t[i][1] - tc) * rx;
      else if (i == 0)
        d = (t[1][j] - tc) * ry + (t[0][j - 1] + t[0][j + 1] - 2.0f * tc) * rx;
      else if (j == COLS - 1)
        d = (t[i - 1][j] + t[i + 1][j] - 2.0f * tc) * ry + (t[i][j - 1] - tc) * rx;
      else if (i == ROWS - 1)
        d = (t[i - 1][j] - tc) * ry + (t[i][j - 1] + t[i][j + 1] - 2.0f * tc) * rx;
      else if (j == 0)
        d = (t[i - 1][0] + t[i + 1][0] - 2.0f * tc) * ry + (t[i][1] - tc) * rx;
      else
        d = (t[i - 1][j] + t[i + 1][j] - 2.0f * tc) * ry + (t[i][j - 1] + t[i][j + 1] - 2.0f * tc) * rx;
      out[i][j] = tc + cap * (power[i][j] + d + (amb - tc) * rz);
    }
}
