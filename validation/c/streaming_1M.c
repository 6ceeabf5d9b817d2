/* STREAM triad a = b + s c in float (validation/kernels/stream.cu). */
#define N 1048576

float a[N], b[N], c[N];

void triad(float s) {
  for (int i = 0; i < N; i++)
    a[i] = b[i] + s * c[i];
}
