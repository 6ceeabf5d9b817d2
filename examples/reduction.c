/* Reductions. A dot product, declared parallel with an OpenMP reduction
 * clause (the kernel's `reduce(+: s)`: each thread's partial, a tree in
 * shared memory per block, one atomic per block), and
 * the sums of the rows of a matrix, where each task's sum is a streaming
 * reduction that the dependence test finds by itself. */
#define N (1 << 20)
#define ROWS 4096
#define COLS 1024

float x[N], y[N];
float A[ROWS][COLS];
float rowsum[ROWS];

float dot(void) {
  float s = 0.0f;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < N; i++)
    s += x[i] * y[i];
  return s;
}

void row_sums(void) {
  for (int r = 0; r < ROWS; r++) {
    float s = 0.0f;
    for (int c = 0; c < COLS; c++)
      s += A[r][c];
    rowsum[r] = s;
  }
}
