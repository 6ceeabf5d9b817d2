/* Each element of a 16384 x 4096 float matrix from a copy, written for
 * this set (2026-11-30): the DRAM bytes stay the matrix read once and written
 * once while the loads of other rows grow (validation/kernels/rowreads.cu
 * times the same shapes by hand). */
#define W 4096
#define H 16384
float in[H][W], out[H][W];
void vstencil(void) {
  for (int i = 8; i < H - 8; i++)
    for (int j = 0; j < W; j++)
      out[i][j] = in[i][j];
}
int main(void) {
  vstencil();
  return 0;
}
