/* A matrix product accumulated in the output array, as PolyBench's 2mm
 * writes it: tmp[i][j] = 0, then tmp[i][j] += ... in the k loop
 * (validation/kernels/shapes.cu). */
#define N 1024
float A[N][N], B[N][N], tmp[N][N];
void mm_acc(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      tmp[i][j] = 0.0f;
      for (int k = 0; k < N; k++)
        tmp[i][j] += A[i][k] * B[k][j];
    }
}
