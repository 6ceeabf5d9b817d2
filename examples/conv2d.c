/* A 2-D convolution with a 5 x 5 filter (a "valid" convolution: the output is
 * smaller than the image by the filter's size minus one). The filter loops
 * have a small constant trip count: `for` loops in the skeleton (unrolling
 * candidates), not streams. */
#define H 1080
#define W 1920
#define KS 5

float img[H][W];
float filt[KS][KS];
float res[H - KS + 1][W - KS + 1];

void conv2d(void) {
  for (int y = 0; y < H - KS + 1; y++) {
    for (int x = 0; x < W - KS + 1; x++) {
      float acc = 0.0f;
      for (int p = 0; p < KS; p++)
        for (int q = 0; q < KS; q++)
          acc += img[y + p][x + q] * filt[p][q];
      res[y][x] = acc;
    }
  }
}
