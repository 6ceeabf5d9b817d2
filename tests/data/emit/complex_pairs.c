/* Complex numbers kept as the two elements of a last dimension of extent 2,
 * as C code without complex.h keeps them: emit writes a pair read or written
 * together as one 8- or 16-byte access (docs/emit.md, "Element pairs") and
 * leaves the accesses whose order matters as they are. */
#define N 4096
#define ROWS 64
#define COLS 256

double x[N][2], y[N][2];
float in[ROWS][COLS][2], out[ROWS][COLS][2], w[COLS][2];

/* y += a x, with temporaries: both stores paired, x's loads paired */
void zaxpy(double are, double aim) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    double re = are * x[i][0] - aim * x[i][1];
    double im = are * x[i][1] + aim * x[i][0];
    y[i][0] = y[i][0] + re;
    y[i][1] = y[i][1] + im;
  }
}

/* the same in place with compound assignments: y is read where it is
 * written, so its stores stay two */
void zaxpy_inplace(double are, double aim) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    y[i][0] += are * x[i][0] - aim * x[i][1];
    y[i][1] += are * x[i][1] + aim * x[i][0];
  }
}

/* a twiddle multiply, then the imaginary part from the real part just
 * stored: the second store reads the first, so they stay two */
void twiddle(void) {
#pragma omp parallel for collapse(2)
  for (int j = 0; j < ROWS; j++)
    for (int i = 0; i < COLS; i++) {
      out[j][i][0] = in[j][i][0] * w[i][0] - in[j][i][1] * w[i][1];
      out[j][i][1] = out[j][i][0] * 0.5f + in[j][i][1] * w[i][0];
    }
}

/* conjugate and swap, written [1] first: one store, its members in their
 * order; the pair's reads from `in` one load */
void swap_conj(void) {
#pragma omp parallel for collapse(2)
  for (int j = 0; j < ROWS; j++)
    for (int i = 0; i < COLS; i++) {
      out[j][i][1] = in[j][i][0];
      out[j][i][0] = -in[j][i][1];
    }
}

/* through pointer parameters, a read inside the declaration of an unnamed
 * enum (printed as written: its type has no name), the stores paired */
void rotate(float (*dst)[2], float (*src)[2], int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    enum { KEEP, FLIP } how = src[i][0] > src[i][1] ? FLIP : KEEP;
    float re = src[i][0], im = src[i][1];
    dst[i][0] = how == FLIP ? -im : re;
    dst[i][1] = how == FLIP ? re : im;
  }
}

void run_rotate(void) { rotate(out[0], in[0], COLS); }
