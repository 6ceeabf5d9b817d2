// Pointers set in a loop's body into an array (LoopPointers.h): `rA =
// &rv[first_i]` set in every iteration before its uses is `rv` at that
// offset, so `rA[i]` is `rv[first_i + i]`, and the dependence test judges the
// array's own accesses. An offset read from data makes the writes indirect:
// only an OpenMP directive vouches for them, and without one the loop stays
// refused. The traps: a pointer whose offset is affine and carries a
// dependence, one element every iteration updates, a pointer used after its
// block or after the loop, an offset changed between the pointer and its use.
#include "SkeletonizeText.h"

#include <gtest/gtest.h>

using namespace skelcast;
using namespace skelcast::frontend;

namespace {

using Out = testsupport::Skeletonized;
using testsupport::has;

Out run(const std::string &code, const SkeletonizeOptions &opts = {}) {
  return testsupport::skeletonizeText(code, "t.c", opts);
}

// Boxes of particles, each box's particles at an offset into the common
// arrays read from the box (the shape of Rodinia's lavaMD).
const char *kBoxes = R"(
#define NBOX 1000
#define PER 100
typedef struct { double v, x, y, z; } four;
typedef struct { int x, y, z; int number; long offset; int nn; } box_t;
void forces(box_t *box, four *rv, double *qv, four *fv) {
  long first;
  four *rA, *fA;
  double *qA;
  int l, i, j;
  PRAGMA
  for (l = 0; l < NBOX; l++) {
    first = box[l].offset;
    rA = &rv[first];
    fA = &fv[first];
    qA = qv + first;
    for (i = 0; i < PER; i++)
      for (j = 0; j < PER; j++) {
        double r2 = rA[i].x * rA[j].x + rA[i].y * rA[j].y;
        fA[i].v += qA[j] * r2;
        fA[i].x += qA[j] * rA[j].x;
      }
  }
}
)";

std::string withPragma(const std::string &pragma) {
  std::string code = kBoxes;
  code.replace(code.find("PRAGMA"), 6, pragma);
  return code;
}

} // namespace

// Under `omp parallel for`: the pointers are the arrays at the box's offset,
// the offset a binding loaded from the box, and the comment says whose word
// the indirect stores rest on.
TEST(LoopPointers, PointersIntoArraysAtAnOffsetReadFromData) {
  SkeletonizeOptions opts;
  opts.extents["rv"] = {100000};
  opts.extents["fv"] = {100000};
  opts.extents["qv"] = {100000};
  Out o = run(withPragma("#pragma omp parallel for private(first, rA, fA, qA, i, j)"), opts);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for forces(NBOX) : l")) << o.text;
  EXPECT_TRUE(has(o.text, "first = box[l][2]")) << o.text;
  EXPECT_TRUE(has(o.text, "ld rv[first + i][1]")) << o.text;
  EXPECT_TRUE(has(o.text, "ld qv[first + j]")) << o.text;
  EXPECT_TRUE(has(o.text, "st fv[first + i][0]")) << o.text;
  EXPECT_TRUE(has(o.text, "// line 15: 'fA' is set in each iteration to '&fv[first]': its "
                          "accesses are those of 'fv' at that offset (the offset is not affine, "
                          "read from data: its writes are indirect stores, independent on the "
                          "directive's word)"))
      << o.text;
  EXPECT_TRUE(has(o.text, "// line 16: 'qA' is set in each iteration to 'qv + first'")) << o.text;
}

// Without a directive nothing vouches for a write at an offset read from
// data: the loop stays refused, the array named.
TEST(LoopPointers, WithoutADirectiveTheIndirectWriteIsRefused) {
  SkeletonizeOptions opts;
  opts.extents["rv"] = {100000};
  opts.extents["fv"] = {100000};
  opts.extents["qv"] = {100000};
  Out o = run(withPragma(""), opts);
  EXPECT_FALSE(has(o.text, "parallel_for forces(NBOX)")) << o.text;
  EXPECT_TRUE(has(o.error, "12:3: warning: cannot port this loop: the element 'fA[i]' may be "
                           "written by more than one iteration (line 20)"))
      << o.error;
}

// An affine offset (a row of a matrix, `row = a + i * M` declared in the
// body): exact, the dependence test proves the rows apart with no directive.
TEST(LoopPointers, ARowPointerDeclaredInTheBodyIsTheMatrix) {
  Out o = run(R"(
#define N 512
#define M 256
void scale(double *a, const double *b) {
  for (int i = 0; i < N; i++) {
    double *row = a + i * M;
    const double *src = &b[i * M];
    for (int j = 0; j < M; j++)
      row[j] = 2.0 * src[j];
  }
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for scale(N, M) : i, j")) << o.text;
  EXPECT_TRUE(has(o.text, "st a[i][j]")) << o.text;
  EXPECT_TRUE(has(o.text, "// iterations independent: the dependence test")) << o.text;
}

// Traps. An affine offset that reaches the next iteration's element: a
// recurrence, refused even under the directive (a race in the OpenMP code).
TEST(LoopPointers, ARecurrenceThroughThePointerIsRefused) {
  Out o = run(R"(
#define N 1000
void chain(double *a) {
  double *p;
  #pragma omp parallel for private(p)
  for (int i = 0; i < N - 1; i++) {
    p = &a[i];
    p[1] = p[0] + 1.0;
  }
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "a data race in the OpenMP code")) << o.error;
}

// One element every iteration updates through its pointer: a reduction
// without a clause, refused.
TEST(LoopPointers, OneElementEveryIterationUpdatesIsRefused) {
  Out o = run(R"(
#define N 1000
void total(double *sum, const double *v) {
  double *p;
  #pragma omp parallel for private(p)
  for (int i = 0; i < N; i++) {
    p = &sum[0];
    p[0] += v[i];
  }
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "a data race in the OpenMP code")) << o.error;
}

// A pointer whose value is used after the loop, one set in an `if` arm and
// used after it, and an offset changed between the pointer and its use: not
// the array at one offset, left as they are, and refused.
TEST(LoopPointers, APointerLiveAfterItsBlockIsLeftAlone) {
  Out o = run(R"(
#define N 1000
double last(double *a, const int *off) {
  double *p;
  int k;
  #pragma omp parallel for private(k) lastprivate(p)
  for (int i = 0; i < N; i++) {
    k = off[i];
    p = &a[k];
    p[0] = 1.0;
  }
  return p[0];
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "the address '&a[k]' is taken")) << o.error;
}

TEST(LoopPointers, APointerSetInABranchIsLeftAlone) {
  Out o = run(R"(
#define N 1000
void pick(double *a, double *b, const int *flag) {
  double *p = a;
  #pragma omp parallel for firstprivate(p)
  for (int i = 0; i < N; i++) {
    if (flag[i]) {
      p = &b[i];
    }
    p[i] = 1.0;
  }
}
)");
  EXPECT_FALSE(o.ok) << o.text;
}

TEST(LoopPointers, AnOffsetChangedBeforeTheUseIsLeftAlone) {
  Out o = run(R"(
#define N 1000
void shift(double *a, const int *off) {
  double *p;
  int k;
  #pragma omp parallel for private(p, k)
  for (int i = 0; i < N; i++) {
    k = off[i];
    p = &a[k];
    k = k + 1;
    p[0] = a[k];
  }
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "the address '&a[k]' is taken")) << o.error;
}

// A pointer into an array of another element type (`char *` over doubles)
// is not that array's elements: left alone.
TEST(LoopPointers, AnotherElementTypeIsLeftAlone) {
  Out o = run(R"(
#define N 1000
void bytes(double *a) {
  unsigned char *p;
  #pragma omp parallel for private(p)
  for (int i = 0; i < N; i++) {
    p = (unsigned char *)&a[i];
    p[0] = 0;
  }
}
)");
  EXPECT_FALSE(o.ok) << o.text;
}

// The neighbour boxes: the box whose particles a pass reads is the home box
// at k = 0 and a neighbour's number after, set on both sides of an `if`.
// After the `if` it holds the side most iterations take (the `else` of an
// `==` test), the other side approximated; the trip of the loop over the
// neighbours, a bound read from the box, comes from --trip.
TEST(LoopPointers, ANeighbourSetOnBothSidesOfAnIf) {
  SkeletonizeOptions opts;
  opts.extents["qv"] = {100000};
  opts.extents["fv"] = {100000};
  opts.trips["k"] = 27;
  Out o = run(R"(
#define NB 1000
#define PER 100
typedef struct { int number; long offset; } nei_t;
typedef struct { long offset; int nn; nei_t nei[26]; } box_t;
void near(box_t *box, const double *qv, double *fv) {
  int l, k, i, j, pointer;
  long first_i, first_j;
  double *fA;
  const double *qB;
  #pragma omp parallel for private(k, i, j, pointer, first_i, first_j, fA, qB)
  for (l = 0; l < NB; l++) {
    first_i = box[l].offset;
    fA = &fv[first_i];
    for (k = 0; k < 1 + box[l].nn; k++) {
      if (k == 0) {
        pointer = l;
      } else {
        pointer = box[l].nei[k - 1].number;
      }
      first_j = box[pointer].offset;
      qB = &qv[first_j];
      for (i = 0; i < PER; i++)
        for (j = 0; j < PER; j++)
          fA[i] += qB[j];
    }
  }
}
)",
              opts);
  ASSERT_TRUE(o.ok) << o.error;
  // 8 + 4 + 4 (padding) + 26 * 16 bytes: 108 ints; nn at int 2, nei[k - 1].number at 4 + 4(k - 1)
  EXPECT_TRUE(has(o.text, "int box[NB][108]")) << o.text;
  EXPECT_TRUE(has(o.text, "stream k = 0:1 + box[l][2] (hint:27)")) << o.text;
  EXPECT_TRUE(has(o.text, "// line 16: 'pointer' is set on both sides: after the 'if' it holds "
                          "the value of the 'else' side, which most iterations take; the other "
                          "side is approximated"))
      << o.text;
  EXPECT_TRUE(has(o.text, "first_j = box[box[l][4 + 4*(k - 1)]][0]")) << o.text;
  EXPECT_TRUE(has(o.text, "ld qv[first_j + j]")) << o.text;
  EXPECT_TRUE(has(o.text, "st fv[first_i + i]")) << o.text;
}

// The value kept after the `if` is the skeleton's index, never the dependence
// test's: a store through an index set on both sides stays a scatter.
TEST(LoopPointers, AScatterThroughAnIndexSetOnBothSidesIsRefused) {
  Out o = run(R"(
#define N 1000
void scatter(int *out, const int *idx) {
  for (int i = 0; i < N; i++) {
    int t;
    if (i == 0) {
      t = 0;
    } else {
      t = idx[i];
    }
    out[t] = i;
  }
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "'out' is written through a subscript computed from data")) << o.error;
}

// A `case` label between the pointer and its use: a jump past the assignment
// reaches the use with the pointer of an earlier iteration. Left alone.
TEST(LoopPointers, AJumpPastThePointerIsLeftAlone) {
  Out o = run(R"(
#define N 1000
void jump(double *a, const int *kind) {
  double *p = a;
  #pragma omp parallel for firstprivate(p)
  for (int i = 0; i < N; i++) {
    switch (kind[i]) {
    case 0:
      p = &a[i];
    case 1:
      p[0] = 1.0;
    }
  }
}
)");
  EXPECT_FALSE(o.ok) << o.text;
}

TEST(LoopPointers, APointerIntoARowOfAMatrixIsLeftAlone) {
  // `r[-M]` is the row above: A[i][-M] compared dimension by dimension would
  // look independent of A[i][0] (review of 120d07d); such pointers stay refused
  Out o = run(R"(#define N 1024
#define M 1024
float A[N][M];
void f(void) {
  for (int i = 1; i < N; i++) {
    float *r = &A[i][0];
    r[0] = r[-M] + 1.0f;
  }
}
)");
  EXPECT_FALSE(o.ok) << o.text;
}
