/* STREAM triad a = b + s c in double (validation/kernels/stream.cu). */
#define N 1048576

double a[N], b[N], c[N];

void triad(double s) {
  for (int i = 0; i < N; i++)
    a[i] = b[i] + s * c[i];
}
