void f(float *a, int n) {
  for (int i = 0; i < n; ++i)
    a[i] = undeclared_b[i];
}
