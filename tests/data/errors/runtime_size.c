#include <stdlib.h>
void scale(int n, float *restrict a) {
  for (int i = 0; i < n; i++)
    a[i] = 2.0f * a[i];
}
float x[1000];
int main(int argc, char **argv) { scale(atoi(argv[1]), x); return 0; }
