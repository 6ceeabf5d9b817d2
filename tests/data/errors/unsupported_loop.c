int g(int);
void f(float *a, int n) {
  #pragma omp parallel for
  for (int i = 0; i < n; ++i) {
    int k = 0;
    while (a[k] > 0) k = g(k);
    a[i] = k;
  }
}
