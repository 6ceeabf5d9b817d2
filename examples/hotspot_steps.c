/* HotSpot with its time steps: Rodinia's transient thermal solver
 * (hotspot_openmp.cpp: compute_tran_temp calling single_iteration STEPS times)
 * with the step's nest written inline and the two grids double-buffered: each
 * step reads `temp` and writes `result`, then the pointers swap, so the next
 * step reads what this one wrote. The skeletonizer maps the time-step loop to
 * `repeat STEPS { ... }` and the swapped pointers to one dataflow pair: the
 * host provides `temp` and `power` once and reads the last grid back once.
 *   skelcast skeletonize examples/hotspot_steps.c
 *   skelcast project examples/hotspot_steps.c --measure-cpu */

#define ROWS 512
#define COLS 512
#define STEPS 100

const float amb_temp = 80.0f;

void compute_tran_temp(float *result, float *temp, const float *power, float Cap_1, float Rx_1,
                       float Ry_1, float Rz_1) {
  int r, c, t;
  float delta;
  for (t = 0; t < STEPS; t++) {
#pragma omp parallel for collapse(2) private(r, c, delta)
    for (r = 0; r < ROWS; r++) {
      for (c = 0; c < COLS; c++) {
        if (r == 0 && c == 0) {                      /* corner: top left */
          delta = Cap_1 * (power[0] + (temp[1] - temp[0]) * Rx_1 +
                           (temp[COLS] - temp[0]) * Ry_1 + (amb_temp - temp[0]) * Rz_1);
        } else if (r == 0 && c == COLS - 1) {         /* corner: top right */
          delta = Cap_1 * (power[c] + (temp[c - 1] - temp[c]) * Rx_1 +
                           (temp[c + COLS] - temp[c]) * Ry_1 + (amb_temp - temp[c]) * Rz_1);
        } else if (r == ROWS - 1 && c == COLS - 1) {   /* corner: bottom right */
          delta = Cap_1 * (power[r * COLS + c] +
                           (temp[r * COLS + c - 1] - temp[r * COLS + c]) * Rx_1 +
                           (temp[(r - 1) * COLS + c] - temp[r * COLS + c]) * Ry_1 +
                           (amb_temp - temp[r * COLS + c]) * Rz_1);
        } else if (r == ROWS - 1 && c == 0) {         /* corner: bottom left */
          delta = Cap_1 * (power[r * COLS] + (temp[r * COLS + 1] - temp[r * COLS]) * Rx_1 +
                           (temp[(r - 1) * COLS] - temp[r * COLS]) * Ry_1 +
                           (amb_temp - temp[r * COLS]) * Rz_1);
        } else if (r == 0) {                         /* edge: top */
          delta = Cap_1 * (power[c] + (temp[c + 1] + temp[c - 1] - 2.0f * temp[c]) * Rx_1 +
                           (temp[COLS + c] - temp[c]) * Ry_1 + (amb_temp - temp[c]) * Rz_1);
        } else if (c == COLS - 1) {                   /* edge: right */
          delta = Cap_1 * (power[r * COLS + c] +
                           (temp[(r + 1) * COLS + c] + temp[(r - 1) * COLS + c] -
                            2.0f * temp[r * COLS + c]) * Ry_1 +
                           (temp[r * COLS + c - 1] - temp[r * COLS + c]) * Rx_1 +
                           (amb_temp - temp[r * COLS + c]) * Rz_1);
        } else if (r == ROWS - 1) {                   /* edge: bottom */
          delta = Cap_1 * (power[r * COLS + c] +
                           (temp[r * COLS + c + 1] + temp[r * COLS + c - 1] -
                            2.0f * temp[r * COLS + c]) * Rx_1 +
                           (temp[(r - 1) * COLS + c] - temp[r * COLS + c]) * Ry_1 +
                           (amb_temp - temp[r * COLS + c]) * Rz_1);
        } else if (c == 0) {                         /* edge: left */
          delta = Cap_1 * (power[r * COLS] +
                           (temp[(r + 1) * COLS] + temp[(r - 1) * COLS] - 2.0f * temp[r * COLS]) * Ry_1 +
                           (temp[r * COLS + 1] - temp[r * COLS]) * Rx_1 +
                           (amb_temp - temp[r * COLS]) * Rz_1);
        } else {                                     /* the interior */
          delta = Cap_1 * (power[r * COLS + c] +
                           (temp[(r + 1) * COLS + c] + temp[(r - 1) * COLS + c] -
                            2.0f * temp[r * COLS + c]) * Ry_1 +
                           (temp[r * COLS + c + 1] + temp[r * COLS + c - 1] -
                            2.0f * temp[r * COLS + c]) * Rx_1 +
                           (amb_temp - temp[r * COLS + c]) * Rz_1);
        }
        result[r * COLS + c] = temp[r * COLS + c] + delta;
      }
    }
    float *swap = temp; /* double buffering: the next step reads this one's result */
    temp = result;
    result = swap;
  }
}
