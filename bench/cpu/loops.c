/* CPU reference times for bench/suite.json's "cpu_ms": the loop nests that the
 * bundled skeletons describe, written as plain sequential C (one thread, no
 * SIMD intrinsics, no tiling), as the CPU code a team would start porting from.
 *
 *   cc -O2 -o loops bench/cpu/loops.c && ./loops matmul 800 400 800
 *
 * Each kernel runs once to warm up, then REPEATS times (default 5, env
 * SKELCAST_CPU_REPEATS); the median wall time in ms is printed as
 * "<name> <ms>". Inputs are filled with deterministic pseudo-random values; a
 * checksum is printed to stderr so that the compiler cannot drop the work.
 * bench/cpu/measure.sh runs every case of the suite.
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint32_t rng = 12345u;
static float frand(void) {
  rng = rng * 1664525u + 1013904223u;
  return (float)((rng >> 8) & 0xFFFF) / 65536.0f + 0.5f;
}
static float *farray(size_t n) {
  float *p = malloc(n * sizeof *p);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  for (size_t i = 0; i < n; ++i)
    p[i] = frand();
  return p;
}
static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* --- the kernels, as their skeletons describe them ------------------------ */

/* skeletons/matmul.skel, validation/skeletons/matmul_*.skel: C = A x B. */
static int N_, K_, M_;
static float *A, *B, *C;
static void matmul(void) {
  for (int i = 0; i < N_; ++i)
    for (int j = 0; j < M_; ++j) {
      float s = 0;
      for (int k = 0; k < K_; ++k)
        s += A[(size_t)i * K_ + k] * B[(size_t)k * M_ + j];
      C[(size_t)i * M_ + j] = s;
    }
}

/* skeletons/hotspot.skel (Rodinia hotspot, one step, its double-precision
 * constants as written) and validation/skeletons/hotspot_*.skel. */
static int R_, W_;
static float *temp_, *power_, *result_;
static void hotspot(void) {
  const double cap = 0.5 * 1.75e6 * 0.0005 * (0.016 / R_) * (0.016 / W_);
  const double rx = (0.016 / W_) / (2.0 * 100 * 0.0005 * (0.016 / R_));
  const double ry = (0.016 / R_) / (2.0 * 100 * 0.0005 * (0.016 / W_));
  const double rz = 0.0005 / (100 * (0.016 / R_) * (0.016 / W_));
  const double step = 0.001 / cap;
  for (int i = 0; i < R_; ++i)
    for (int j = 0; j < W_; ++j) {
      int n = i > 0 ? i - 1 : 0, s = i < R_ - 1 ? i + 1 : R_ - 1;
      int w = j > 0 ? j - 1 : 0, e = j < W_ - 1 ? j + 1 : W_ - 1;
      float t = temp_[(size_t)i * W_ + j];
      result_[(size_t)i * W_ + j] =
          (float)(t + step * (power_[(size_t)i * W_ + j] +
                              (temp_[(size_t)s * W_ + j] + temp_[(size_t)n * W_ + j] - 2.0 * t) / ry +
                              (temp_[(size_t)i * W_ + e] + temp_[(size_t)i * W_ + w] - 2.0 * t) / rx +
                              (80.0 - t) / rz));
    }
}

/* validation/skeletons/streaming_*.skel: STREAM triad. */
static size_t L_;
static float *a_, *b_, *c_;
static void triad(void) {
  const float s = 3.0f;
  for (size_t i = 0; i < L_; ++i)
    a_[i] = b_[i] + s * c_[i];
}

/* validation/skeletons/compute_heavy_*.skel: 64 x 4 dependent FMAs per element. */
static void heavy(void) {
  for (size_t i = 0; i < L_; ++i) {
    float x = b_[i];
    for (int n = 0; n < 64; ++n) {
      x = x * 0.999f + 0.001f;
      x = x * 1.001f - 0.001f;
      x = x * 0.998f + 0.002f;
      x = x * 1.002f - 0.002f;
    }
    a_[i] = x;
  }
}

/* validation/skeletons/transpose_*.skel. */
static void transpose(void) {
  for (int i = 0; i < R_; ++i)
    for (int j = 0; j < R_; ++j)
      a_[(size_t)j * R_ + i] = b_[(size_t)i * R_ + j];
}

/* skeletons/ispinex_real.skel, validation/skeletons/ispinex_real_*.skel: a
 * sparse (CSR, 14 entries per row) times dense product, C[j][i] = sum T[n] B[I[n]][i]. */
static int *Jp, *Ip;
static float *T_;
static void ispinex_real(void) {
  for (int j = 0; j < R_; ++j)
    for (int i = 0; i < W_; ++i) {
      float s = 0;
      for (int n = Jp[j]; n < Jp[j + 1]; ++n)
        s += T_[n] * B[(size_t)Ip[n] * W_ + i];
      C[(size_t)j * W_ + i] = s;
    }
}

static double checksum(const float *p, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i += 1 + n / 4096)
    s += p[i];
  return s;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s matmul N K M | hotspot ROWS COLS | triad N | heavy N | "
                    "transpose N | ispinex_real ROWS COLS\n", argv[0]);
    return 2;
  }
  const char *k = argv[1];
  void (*fn)(void) = 0;
  const float *out = 0;
  size_t outN = 0;
  if (!strcmp(k, "matmul") && argc == 5) {
    N_ = atoi(argv[2]), K_ = atoi(argv[3]), M_ = atoi(argv[4]);
    A = farray((size_t)N_ * K_), B = farray((size_t)K_ * M_), C = farray((size_t)N_ * M_);
    fn = matmul, out = C, outN = (size_t)N_ * M_;
  } else if (!strcmp(k, "hotspot") && argc == 4) {
    R_ = atoi(argv[2]), W_ = atoi(argv[3]);
    temp_ = farray((size_t)R_ * W_), power_ = farray((size_t)R_ * W_), result_ = farray((size_t)R_ * W_);
    fn = hotspot, out = result_, outN = (size_t)R_ * W_;
  } else if ((!strcmp(k, "triad") || !strcmp(k, "heavy")) && argc == 3) {
    L_ = strtoull(argv[2], 0, 10);
    a_ = farray(L_), b_ = farray(L_), c_ = farray(L_);
    fn = !strcmp(k, "triad") ? triad : heavy, out = a_, outN = L_;
  } else if (!strcmp(k, "transpose") && argc == 3) {
    R_ = atoi(argv[2]);
    a_ = farray((size_t)R_ * R_), b_ = farray((size_t)R_ * R_);
    fn = transpose, out = a_, outN = (size_t)R_ * R_;
  } else if (!strcmp(k, "ispinex_real") && argc == 4) {
    R_ = atoi(argv[2]), W_ = atoi(argv[3]);
    int elems = 14 * R_;
    Jp = malloc((R_ + 1) * sizeof *Jp), Ip = malloc(elems * sizeof *Ip);
    for (int j = 0; j <= R_; ++j)
      Jp[j] = 14 * j;
    for (int n = 0; n < elems; ++n)
      Ip[n] = (int)(frand() * 65536.0f) % R_;
    T_ = farray(elems), B = farray((size_t)R_ * W_), C = farray((size_t)R_ * W_);
    fn = ispinex_real, out = C, outN = (size_t)R_ * W_;
  } else {
    fprintf(stderr, "unknown kernel or wrong arguments: %s\n", k);
    return 2;
  }
  int repeats = getenv("SKELCAST_CPU_REPEATS") ? atoi(getenv("SKELCAST_CPU_REPEATS")) : 5;
  if (repeats < 1)
    repeats = 1;
  double *t = malloc(repeats * sizeof *t);
  fn(); /* warm-up: page faults, caches */
  for (int r = 0; r < repeats; ++r) {
    double t0 = now_ms();
    fn();
    t[r] = now_ms() - t0;
  }
  qsort(t, repeats, sizeof *t, cmp);
  fprintf(stderr, "checksum %g\n", checksum(out, outN));
  printf("%.4g\n", t[repeats / 2]);
  return 0;
}
