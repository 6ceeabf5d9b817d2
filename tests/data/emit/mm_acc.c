/* A matrix product accumulated in the output array, as PolyBench's 2mm
 * writes it (validation/c/mm_acc.c at a size the CPU emulation runs, not a
 * multiple of the tiles: tests/emit/emulated.txt). */
#define N 80
float A[N][N], B[N][N], tmp[N][N];
void mm_acc(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      tmp[i][j] = 0.0f;
      for (int k = 0; k < N; k++)
        tmp[i][j] += A[i][k] * B[k][j];
    }
}
