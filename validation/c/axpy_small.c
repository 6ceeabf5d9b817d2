/* A small axpy, y = 2 x + y on 16384 elements: a kernel of a few
 * microseconds, launched back to back (validation/kernels/shapes.cu). */
#define N 16384
float x[N], y[N];
void axpy_small(void) {
  for (int i = 0; i < N; i++)
    y[i] = 2.0f * x[i] + y[i];
}
