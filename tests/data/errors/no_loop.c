void f(float *a) {
  a[0] = 1.0f;
}
