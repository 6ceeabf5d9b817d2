// Values of the pass (docs/skeletonizer.md, "Programs"): a local that the body
// of a sequential loop around kernels sets once per pass, before the kernels,
// from the loop's index, constants and known sizes (`rest = n - at - B;
// per_row = rest / B; inner = per_row * per_row;`) is known in each pass: the
// kernels' bounds and subscripts get its expression with the index in it, and
// the kernels are launched once per pass (`repeat at = 0:n - B:B { ... }`).
// The shapes are those of a blocked LU factorization (Rodinia's lud: the
// perimeter and interior blocks of each step); the traps are locals the
// kernel changes, set conditionally, or set after the kernel.
#include "skelcast/frontend/Skeletonizer.h"
#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Printer.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace skelcast;
using namespace skelcast::frontend;

namespace {

struct Out {
  skeleton::SkeletonFile f;
  std::string text, warnings;
};

/// `n` given (`--extent n=256`), and the matrix `m` (`--extent m=256,256`):
/// its caller, in another file, allocates it.
SkeletonizeOptions sized(int64_t n) {
  SkeletonizeOptions o;
  o.extents["n"] = {n};
  o.extents["m"] = {n, n};
  return o;
}

Out skel(const std::string &code, int64_t n = 256) {
  std::ostringstream d;
  SkeletonizeResult r = skeletonizeCode(code, "blocks.c", sized(n), d);
  Out o{r.file, skeleton::printSkeleton(r.file), {}};
  for (const auto &w : r.warnings)
    o.warnings += w.str() + "\n";
  return o;
}

/// The warnings of a file with no portable nest.
std::string refused(const std::string &code) {
  std::ostringstream d;
  try {
    skeletonizeCode(code, "blocks.c", sized(256), d);
  } catch (const InputError &e) {
    return d.str() + e.what();
  }
  ADD_FAILURE() << "expected no portable nest in:\n" << code;
  return {};
}

bool has(const std::string &s, const std::string &sub) { return s.find(sub) != std::string::npos; }

void roundTrips(const Out &o) {
  EXPECT_EQ(skeleton::parseSkeleton(o.text, "s.skel"), o.f) << o.text;
  EXPECT_EQ(skeleton::printSkeleton(skeleton::parseSkeleton(o.text, "s.skel")), o.text);
}

/// One step of a blocked LU per pass of `at`: the diagonal block on the host
/// (a call), then the blocks right of it (one thread per block of the row)
/// and the interior ones (per_row * per_row blocks, row and column from the
/// block's number by `/` and `%`).
const char *kBlockedLu = R"(#define B 16

void diagonal_block(float *m, int n, int at) {
  for (int i = 0; i < B; i++)
    for (int j = i + 1; j < B; j++)
      m[(at + j) * n + at + i] /= m[(at + i) * n + at + i];
}

void block_lu(float *m, int n) {
  int at, blk, rest, per_row, inner;
  for (at = 0; at < n - B; at += B) {
    diagonal_block(m, n, at);
    rest = n - at - B;
    per_row = rest / B;
#pragma omp parallel for default(none) private(blk) shared(m, n, at, per_row)
    for (blk = 0; blk < per_row; blk++) {
      int col = at + B * (blk + 1);
      for (int i = 0; i < B; i++)
        for (int j = 0; j < B; j++)
          m[(at + i) * n + col + j] -= m[(at + i) * n + at + j];
    }
    inner = per_row * per_row;
#pragma omp parallel for default(none) private(blk) shared(m, n, at, per_row, inner)
    for (blk = 0; blk < inner; blk++) {
      int row = at + B * (1 + blk / per_row);
      int col = at + B * (1 + blk % per_row);
      float top[B * B];
      for (int i = 0; i < B; i++)
        for (int j = 0; j < B; j++)
          top[i * B + j] = m[(at + i) * n + col + j];
      for (int i = 0; i < B; i++)
        for (int j = 0; j < B; j++) {
          float s = 0.f;
          for (int k = 0; k < B; k++)
            s += m[(row + i) * n + at + k] * top[k * B + j];
          m[(row + i) * n + col + j] -= s;
        }
    }
  }
}
)";

} // namespace

TEST(PassValues, BlockedLuStepIsTwoKernelsPerPass) {
  Out o = skel(kBlockedLu);
  ASSERT_EQ(o.f.kernels.size(), 2u) << o.text << o.warnings;
  ASSERT_EQ(o.f.repeats.size(), 1u) << o.text;
  const skeleton::Repeat &r = o.f.repeats[0];
  ASSERT_TRUE(r.indexed());
  EXPECT_EQ(r.index, "at");
  EXPECT_EQ(skeleton::printExpr(r.lo), "0");
  EXPECT_EQ(skeleton::printExpr(r.hi), "n - B");
  ASSERT_TRUE(r.step);
  EXPECT_EQ(skeleton::printExpr(*r.step), "16");
  // the bounds: the locals' expressions with the index in them, C's `/` kept
  // (the perimeter's blocks collapse with their rows and columns: isl takes
  // per_row's values over the passes, 1 to 15, as its range)
  ASSERT_EQ(o.f.kernels[0].dims.size(), 3u) << o.text;
  EXPECT_EQ(skeleton::printExpr(o.f.kernels[0].dims[0].hi), "(n - at - B)/B") << o.text;
  ASSERT_EQ(o.f.kernels[1].dims.size(), 1u);
  EXPECT_EQ(skeleton::printExpr(o.f.kernels[1].dims[0].hi), "(n - at - B)/B*((n - at - B)/B)")
      << o.text;
  // the interior block's row and column: `/` and `%` by a value of the pass
  EXPECT_TRUE(has(o.text, "blk/((n - at - B)/B)")) << o.text;
  EXPECT_TRUE(has(o.text, "blk%((n - at - B)/B)")) << o.text;
  EXPECT_TRUE(has(o.text, "launched once per iteration of 'at'")) << o.text;
  // the call on the host, said where it stands
  EXPECT_TRUE(has(o.warnings, "blocks.c:12:5: note: the call to 'diagonal_block' runs on the "
                              "host in each pass of the loop 'at' (line 11)"))
      << o.warnings;
  EXPECT_TRUE(has(o.text, "host writes m")) << o.text;
  roundTrips(o);
}

TEST(PassValues, ADeclaredLocalOfTheBodyIsAValueOfThePass) {
  // `int rows = n - k - 1;` declared in the body, then pairs of rows per thread
  Out o = skel(R"(void pairs(float *a, int n) {
  for (int k = 0; k < n - 1; k++) {
    int rows = n - k - 1;
    int pairs = rows / 2;
#pragma omp parallel for
    for (int p = 0; p < pairs; p++) {
      int r = k + 1 + 2 * p;
      a[r * n + k + 1] -= a[r * n + k] * a[k * n + k + 1];
      a[(r + 1) * n + k + 1] -= a[(r + 1) * n + k] * a[k * n + k + 1];
    }
  }
}
)");
  ASSERT_EQ(o.f.kernels.size(), 1u) << o.text << o.warnings;
  ASSERT_EQ(o.f.repeats.size(), 1u);
  EXPECT_EQ(o.f.repeats[0].index, "k");
  EXPECT_EQ(skeleton::printExpr(o.f.kernels[0].dims[0].hi), "(n - k - 1)/2") << o.text;
  roundTrips(o);
}

TEST(PassValues, ALocalTheKernelChangesIsRefusedWithItsReason) {
  // a count set in the pass, then reduced into by a kernel: the next kernel's
  // bound is no value known when the pass starts
  Out o = skel(R"(void count_rows(float *m, int n) {
  int at, blk, cnt;
  for (at = 0; at < n - 1; at++) {
    cnt = (n - at) / 16;
#pragma omp parallel for reduction(+:cnt)
    for (blk = 0; blk < n; blk++)
      cnt += m[blk * n + at] > 0;
#pragma omp parallel for
    for (blk = 0; blk < cnt; blk++)
      m[blk * n + at + 1] += m[blk * n + at];
  }
}
)");
  ASSERT_EQ(o.f.kernels.size(), 1u) << o.text << o.warnings; // the count only
  EXPECT_TRUE(has(o.warnings, "blocks.c:9:5: warning: cannot port this loop: the loop bound "
                              "'cnt' is not a known constant: 'cnt' is set in the body of the "
                              "loop 'at' (line 3) around this nest, and it is no value known in "
                              "each pass: it is set 2 times in the function (a value of the "
                              "pass is set once)"))
      << o.warnings;
}

TEST(PassValues, ALocalSetConditionallyIsRefusedWithItsReason) {
  std::string w = refused(R"(void blocks_if(float *m, int n) {
  int at, blk, per_row = 1;
  for (at = 0; at < n; at += 16) {
    if (at > 0)
      per_row = (n - at) / 16;
#pragma omp parallel for
    for (blk = 0; blk < per_row; blk++)
      m[at * n + blk] *= 2;
  }
}
)");
  EXPECT_TRUE(has(w, "'per_row' is set in the body of the loop 'at' (line 3) around this nest, "
                     "and it is no value known in each pass: it is set at line 5 inside another "
                     "statement of the loop's body (an 'if', a loop), which may not run once in "
                     "every pass"))
      << w;
}

TEST(PassValues, ALocalSetAfterTheKernelIsRefusedWithItsReason) {
  // the kernel reads the value the pass before left
  std::string w = refused(R"(void blocks_late(float *m, int n) {
  int at, blk, per_row = n / 16;
  for (at = 0; at < n; at += 16) {
#pragma omp parallel for
    for (blk = 0; blk < per_row; blk++)
      m[at * n + blk] *= 2;
    per_row = (n - at) / 16;
  }
}
)");
  EXPECT_TRUE(has(w, "it is set at line 7, after this nest, which reads the value of the pass "
                     "before"))
      << w;
}

TEST(PassValues, ALocalOfUnknownValueIsRefusedWithItsReason) {
  // set once per pass, but from data: nothing the skeleton can write
  std::string w = refused(R"(void blocks_data(float *m, int *len, int n) {
  int at, blk, per_row;
  for (at = 0; at < n - 1; at++) {
    per_row = len[at];
#pragma omp parallel for
    for (blk = 0; blk < per_row; blk++)
      m[blk * n + at + 1] += m[blk * n + at];
  }
}
)");
  EXPECT_TRUE(has(w, "the nest at line 6, launched once per iteration of 'at': the loop bound "
                     "'per_row' is not a known constant: 'per_row' is set in the body of the "
                     "loop 'at' (line 3) around this nest, and it is no value known in each "
                     "pass: its value 'len[at]' (line 4) is not an integer expression of 'at', "
                     "constants, known sizes and values set before it in the pass"))
      << w;
}
