/* Element and index types named by the file's own typedefs (PolyBench's
 * nussinov: `typedef char base;`), one naming another. */
#include <stddef.h>
#define N 300
typedef float real;
typedef real pair[2];
typedef int idx_t;
real x[N], y[N];
pair p[N];

void scale(real a) {
  for (idx_t i = 0; i < N; i++) {
    real t = (real)(i % 7) * a;
    y[i] = t * x[i] + p[i][0] - p[i][1];
  }
}

void count(size_t n) {
  for (size_t i = 0; i < (size_t)N; i++)
    x[i] = (real)(i % n);
}
