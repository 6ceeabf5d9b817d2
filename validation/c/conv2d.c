/* A 3x3 convolution over a padded image (validation/kernels/shapes.cu). */
#define N 4096
float in[N + 2][N + 2], w[3][3], out[N][N];
void conv2d(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float acc = 0.0f;
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          acc += w[a][b] * in[i + a][j + b];
      out[i][j] = acc;
    }
}
