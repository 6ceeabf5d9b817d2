/* HotSpot: one step of the transient thermal solver of Rodinia's HotSpot
 * (the OpenMP CPU code's single_iteration; the CUDA version is calculate_temp),
 * rewritten here after its structure. A row x col grid of temperatures and
 * powers; corners, edges and the interior use different neighbours, so the
 * kernel is an if-else chain whose probabilities skelcast counts over the
 * loop space. The paper's input is 512 x 512 (GROPHECY, Table 4):
 *   skelcast skeletonize examples/hotspot.c --extent row=512 --extent col=512 */

const float amb_temp = 80.0f;

void single_iteration(float *result, float *temp, float *power, int row, int col,
                      float Cap_1, float Rx_1, float Ry_1, float Rz_1) {
  int r, c;
  float delta;
#pragma omp parallel for collapse(2) private(r, c, delta)
  for (r = 0; r < row; r++) {
    for (c = 0; c < col; c++) {
      if (r == 0 && c == 0) {                      /* corner: top left */
        delta = Cap_1 * (power[0] + (temp[1] - temp[0]) * Rx_1 +
                         (temp[col] - temp[0]) * Ry_1 + (amb_temp - temp[0]) * Rz_1);
      } else if (r == 0 && c == col - 1) {         /* corner: top right */
        delta = Cap_1 * (power[c] + (temp[c - 1] - temp[c]) * Rx_1 +
                         (temp[c + col] - temp[c]) * Ry_1 + (amb_temp - temp[c]) * Rz_1);
      } else if (r == row - 1 && c == col - 1) {   /* corner: bottom right */
        delta = Cap_1 * (power[r * col + c] +
                         (temp[r * col + c - 1] - temp[r * col + c]) * Rx_1 +
                         (temp[(r - 1) * col + c] - temp[r * col + c]) * Ry_1 +
                         (amb_temp - temp[r * col + c]) * Rz_1);
      } else if (r == row - 1 && c == 0) {         /* corner: bottom left */
        delta = Cap_1 * (power[r * col] + (temp[r * col + 1] - temp[r * col]) * Rx_1 +
                         (temp[(r - 1) * col] - temp[r * col]) * Ry_1 +
                         (amb_temp - temp[r * col]) * Rz_1);
      } else if (r == 0) {                         /* edge: top */
        delta = Cap_1 * (power[c] + (temp[c + 1] + temp[c - 1] - 2.0f * temp[c]) * Rx_1 +
                         (temp[col + c] - temp[c]) * Ry_1 + (amb_temp - temp[c]) * Rz_1);
      } else if (c == col - 1) {                   /* edge: right */
        delta = Cap_1 * (power[r * col + c] +
                         (temp[(r + 1) * col + c] + temp[(r - 1) * col + c] -
                          2.0f * temp[r * col + c]) * Ry_1 +
                         (temp[r * col + c - 1] - temp[r * col + c]) * Rx_1 +
                         (amb_temp - temp[r * col + c]) * Rz_1);
      } else if (r == row - 1) {                   /* edge: bottom */
        delta = Cap_1 * (power[r * col + c] +
                         (temp[r * col + c + 1] + temp[r * col + c - 1] -
                          2.0f * temp[r * col + c]) * Rx_1 +
                         (temp[(r - 1) * col + c] - temp[r * col + c]) * Ry_1 +
                         (amb_temp - temp[r * col + c]) * Rz_1);
      } else if (c == 0) {                         /* edge: left */
        delta = Cap_1 * (power[r * col] +
                         (temp[(r + 1) * col] + temp[(r - 1) * col] - 2.0f * temp[r * col]) * Ry_1 +
                         (temp[r * col + 1] - temp[r * col]) * Rx_1 +
                         (amb_temp - temp[r * col]) * Rz_1);
      } else {                                     /* the interior */
        delta = Cap_1 * (power[r * col + c] +
                         (temp[(r + 1) * col + c] + temp[(r - 1) * col + c] -
                          2.0f * temp[r * col + c]) * Ry_1 +
                         (temp[r * col + c + 1] + temp[r * col + c - 1] -
                          2.0f * temp[r * col + c]) * Rx_1 +
                         (amb_temp - temp[r * col + c]) * Rz_1);
      }
      result[r * col + c] = temp[r * col + c] + delta;
    }
  }
}
