/* A Sobel edge filter, written for this set (2026-11-30): the two 3x3 gradients
 * of an image and their magnitude. */
#include <math.h>
#define H 8192
#define W 8192
float img[H][W], mag[H][W];
void sobel(void) {
  for (int i = 1; i < H - 1; i++)
    for (int j = 1; j < W - 1; j++) {
      float gx = img[i - 1][j + 1] + 2.0f * img[i][j + 1] + img[i + 1][j + 1] - img[i - 1][j - 1] -
                 2.0f * img[i][j - 1] - img[i + 1][j - 1];
      float gy = img[i + 1][j - 1] + 2.0f * img[i + 1][j] + img[i + 1][j + 1] - img[i - 1][j - 1] -
                 2.0f * img[i - 1][j] - img[i - 1][j + 1];
      mag[i][j] = sqrtf(gx * gx + gy * gy);
    }
}
