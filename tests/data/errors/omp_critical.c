#define N 1024
float a[N], total;
void sum(void) {
  #pragma omp parallel for
  for (int i = 0; i < N; ++i) {
    #pragma omp critical
    total += a[i];
  }
}
