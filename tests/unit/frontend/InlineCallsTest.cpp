// Calls of small functions of the file that take pointers, inlined into the
// loops that make them (issue 16, item 5: `randn(seed, i)`; docs/skeletonizer.md,
// "Calls with pointer arguments"). The shapes are written for the test: a
// random-number helper that advances one seed per element, a helper that
// stores through its pointer, helpers calling helpers. The traps, where the
// inlined body carries a dependence (through a neighbour, through the same
// array passed twice, through a shared element), must all be refused.
#include "SkeletonizeText.h"
#include "../support/TempDir.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace skelcast;
using namespace skelcast::frontend;

namespace {

using Out = testsupport::Skeletonized;
using testsupport::has;

Out run(const std::string &code, const SkeletonizeOptions &opts = {}) {
  return testsupport::skeletonizeText(code, "t.c", opts);
}

// A linear congruential generator with one state per element, and a normal
// variate drawn from two of its numbers, as particle codes advance their
// particles.
const char *kWalk = R"(#include <math.h>
#define NP 4096
#define MUL 1103515245
#define INC 12345
#define MOD 2147483647
double uniform(int *state, int k) {
  int next = MUL * state[k] + INC;
  state[k] = next % MOD;
  return fabs(state[k] / ((double)MOD));
}
double gauss(int *state, int k) {
  double u = uniform(state, k);
  double v = uniform(state, k);
  return sqrt(-2 * log(u)) * cos(6.2831853 * v);
}
void walk(double *px, double *py, int *state) {
#pragma omp parallel for
  for (int p = 0; p < NP; p++) {
    px[p] += 1 + 5 * gauss(state, p);
    py[p] += -2 + 2 * gauss(state, p);
  }
}
)";

} // namespace

TEST(InlineCalls, PointerArgumentsBecomeTheCallersArrays) {
  Out o = run(kWalk);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for walk(NP) : p")) << o.text;
  // the helper's `state[k]` is the caller's `state[p]`, read and written
  EXPECT_TRUE(has(o.text, "ld state[p]")) << o.text;
  EXPECT_TRUE(has(o.text, "st state[p]")) << o.text;
  EXPECT_TRUE(has(o.text, "st px[p]") && has(o.text, "st py[p]")) << o.text;
  EXPECT_FALSE(has(o.warnings, "cannot port")) << o.warnings;
  // the calls of the loop are named, the one inside the helper is not
  EXPECT_TRUE(has(o.text, "// line 19: the call to 'gauss' is inlined")) << o.text;
  EXPECT_TRUE(has(o.text, "// line 20: the call to 'gauss' is inlined")) << o.text;
  EXPECT_FALSE(has(o.text, "the call to 'uniform'")) << o.text;
}

TEST(InlineCalls, WithoutOpenMPTheDependenceTestDecides) {
  std::string code = kWalk;
  code.replace(code.find("#pragma omp parallel for"), 24, "");
  Out o = run(code);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for walk(NP) : p")) << o.text;
  EXPECT_TRUE(has(o.text, "iterations independent")) << o.text;
}

TEST(InlineCalls, TheInlinedBodyIsCounted) {
  // a call of the helper costs more than the bare update
  Out with = run(kWalk);
  std::string code = kWalk;
  code.replace(code.find("px[p] += 1 + 5 * gauss(state, p);"), 33, "px[p] += 1;");
  code.replace(code.find("py[p] += -2 + 2 * gauss(state, p);"), 34, "py[p] += 2;");
  Out without = run(code);
  ASSERT_TRUE(with.ok && without.ok) << with.error << without.error;
  EXPECT_TRUE(has(with.text, "ld state[p]")) << with.text;
  EXPECT_FALSE(has(without.text, "state")) << without.text;
}

TEST(InlineCalls, AVoidHelperStoringThroughItsPointer) {
  Out o = run(R"(#define N 1000
void put(float *dst, const float *src, int k, float s) { dst[k] = s * src[k] + 1.0f; }
void scale(float *a, const float *b) {
  for (int i = 0; i < N; i++)
    put(a, b, i, 2.0f);
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for scale(N) : i")) << o.text;
  EXPECT_TRUE(has(o.text, "ld b[i]")) << o.text;
  EXPECT_TRUE(has(o.text, "st a[i]")) << o.text;
}

TEST(InlineCalls, ArraysPassedForPointers) {
  Out o = run(R"(#define N 512
float x[N], y[N];
float twice(float *v, int k) { return 2.0f * v[k]; }
void f(void) {
  for (int i = 0; i < N; i++)
    y[i] = twice(x, i) + 1.0f;
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "ld x[i]")) << o.text;
  EXPECT_TRUE(has(o.text, "st y[i]")) << o.text;
  EXPECT_TRUE(has(o.text, "iterations independent")) << o.text;
}

// --- traps: the inlined body carries a dependence; never parallel -----------

TEST(InlineCalls, TrapANeighbourReadInsideTheHelper) {
  // `acc(a, i)` reads a[k - 1], which the previous iteration wrote
  Out o = run(R"(#define N 1000
void acc(float *a, int k) { a[k] = a[k - 1] + 1.0f; }
void prefix(float *a) {
  for (int i = 1; i < N; i++)
    acc(a, i);
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "not independent")) << o.error;
}

TEST(InlineCalls, TrapTheSameArrayPassedForTwoPointers) {
  // inside, dst[k] = src[k + 1]: with one array for both, a[i] = a[i + 1]
  Out o = run(R"(#define N 1000
void shift(float *dst, float *src, int k) { dst[k] = src[k + 1]; }
void f(float *a) {
  for (int i = 0; i < N - 1; i++)
    shift(a, a, i);
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "not independent")) << o.error;
}

TEST(InlineCalls, TrapTheSameArrayPassedForTwoPointersUnderOpenMP) {
  // the directive's word does not stand against a certain dependence
  Out o = run(R"(#define N 1000
void shift(float *dst, float *src, int k) { dst[k + 1] = src[k] * 2.0f; }
void f(float *a) {
#pragma omp parallel for
  for (int i = 0; i < N - 1; i++)
    shift(a, a, i);
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "data race")) << o.error;
}

TEST(InlineCalls, TrapOneElementEveryIterationUpdates) {
  // the helper sums into s[0]: a reduction without a clause
  Out o = run(R"(#define N 1000
void add(float *s, float v) { s[0] = s[0] + v; }
void f(float *s, const float *x) {
  for (int i = 0; i < N; i++)
    add(s, x[i]);
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "'s[0]' (written) and 's[0]' (read)")) << o.error;
}

TEST(InlineCalls, TrapAnIndexTheHelperChanges) {
  // the parameter is a copy: `k += 1` moves the write to the next element
  Out o = run(R"(#define N 1000
void next(float *a, int k) { k += 1; a[k] = a[k - 1] * 0.5f; }
void f(float *a) {
  for (int i = 0; i < N - 1; i++)
    next(a, i);
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "'a[k]' and 'a[k - 1]' may touch the same element")) << o.error;
}

// --- calls left as they were -------------------------------------------------

TEST(InlineCalls, ACallInAConditionalArmIsNotInlined) {
  // `c ? f(p) : 0` may not call f: the call stays, and so does its reason
  Out o = run(R"(#define N 100
float get(float *v, int k) { return v[k]; }
void f(float *a, const float *b, int c) {
  for (int i = 0; i < N; i++)
    a[i] = c ? get((float *)b, i) : 0.0f;
}
)");
  std::string all = o.ok ? o.warnings : o.error;
  EXPECT_TRUE(has(all, "call to 'get', which takes a pointer")) << all;
}

TEST(InlineCalls, AHelperWithALoopBecomesALoopOfTheNest) {
  // a row sum: the helper's `j` loop is a stream inside each thread
  Out o = run(R"(#define N 100
#define M 8
float rowsum(const float *v, int k) {
  float s = 0;
  for (int j = 0; j < M; j++)
    s += v[k * M + j];
  return s;
}
void f(float *out, const float *in) {
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    out[i] = rowsum(in, i);
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for f(N) : i")) << o.text;
  EXPECT_TRUE(has(o.text, "rowsum_j = 0:M")) << o.text;
  EXPECT_TRUE(has(o.text, "ld in[i][rowsum_j]")) << o.text;
  EXPECT_TRUE(has(o.text, "st out[i]")) << o.text;
}

TEST(InlineCalls, TrapAHelperLoopThatReadsTheNextRow) {
  // row k + 1 is read, row k written: iteration i reads what i + 1 writes
  Out o = run(R"(#define N 100
#define M 8
void smooth(float *a, int k) {
  for (int j = 0; j < M; j++)
    a[k * M + j] = 0.5f * a[(k + 1) * M + j];
}
void f(float *a) {
#pragma omp parallel for
  for (int i = 0; i < N - 1; i++)
    smooth(a, i);
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "data race")) << o.error;
}

TEST(InlineCalls, AKernelFunctionCalledFromATimeLoopStaysACall) {
  // `step` has loops of its own: outside an OpenMP loop it is not inlined,
  // its nest is its own kernel, launched from the time loop
  Out o = run(R"(#define N 1000
#define T 50
void step(float *dst, const float *src) {
  for (int i = 1; i < N - 1; i++)
    dst[i] = 0.5f * (src[i - 1] + src[i + 1]);
}
void run(float *a, float *b) {
  for (int t = 0; t < T; t++)
    step(b, a);
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for step(")) << o.text;
  EXPECT_FALSE(has(o.text, "is inlined")) << o.text;
}

TEST(InlineCalls, AHelperLoopWithABreakIsNotInlined) {
  // a search that stops at its first hit: the call stays, and its reason
  Out o = run(R"(#define N 100
#define M 64
int first_above(const float *v, float x) {
  int at = M - 1;
  for (int j = 0; j < M; j++)
    if (v[j] >= x) { at = j; break; }
  return at;
}
void f(int *idx, const float *cdf, const float *u) {
  for (int i = 0; i < N; i++)
    idx[i] = first_above(cdf, u[i]);
}
)");
  std::string all = o.ok ? o.warnings : o.error;
  EXPECT_TRUE(has(all, "call to 'first_above', which takes a pointer")) << all;
}

TEST(InlineCalls, AGlobalPointerIsNotSubstituted) {
  // the helper could reassign the global: the call stays
  Out o = run(R"(#define N 100
float *g;
float *other;
float swapget(float *v, int k) { g = other; return v[k]; }
void f(float *out) {
  for (int i = 0; i < N; i++)
    out[i] = swapget(g, i);
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "swapget")) << o.error;
}

TEST(InlineCalls, AWrapperOfAKernelFunctionStaysACall) {
  // `wrap` has no loop, but calls `scale`, whose nest takes its size from
  // the calls: inlining `wrap` into the time loop would hide main's size
  Out o = run(R"(#define N 1000
void scale(float *a, int n) {
  for (int i = 0; i < n; i++)
    a[i] = a[i] * 2.0f;
}
void wrap(float *a, int n) { scale(a, n); }
int main(void) {
  static float a[N];
  for (int t = 0; t < 10; t++)
    wrap(a, N);
  return 0;
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for scale(N) : i")) << o.text;
  EXPECT_FALSE(has(o.text, "is inlined")) << o.text;
}

// --- traps: the order C gives the call must stay ------------------------------

TEST(InlineCalls, TrapACallAfterAComma) {
  // `keep = t[0]` runs before `take` stores t[0]: y[i] gets the previous
  // iteration's value, a dependence; hoisting the call would make t[0]
  // written before it is read, and private
  Out o = run(R"(#define N 1000
float t[1];
float take(float *s, float v) { s[0] = v; return v; }
void f(float *y, const float *x) {
  float keep;
  for (int i = 0; i < N; i++)
    y[i] = (keep = t[0], take(t, x[i]), keep);
}
)");
  EXPECT_FALSE(o.ok) << o.text;
}

TEST(InlineCalls, TrapACallInASecondDeclarator) {
  // the same order through declarators: `prev` is read before `take` runs
  Out o = run(R"(#define N 1000
float t[1];
float take(float *s, float v) { s[0] = v; return v; }
void f(float *y, const float *x) {
  for (int i = 0; i < N; i++) {
    float prev = t[0], cur = take(t, x[i]);
    y[i] = prev + cur;
  }
}
)");
  EXPECT_FALSE(o.ok) << o.text;
}

TEST(InlineCalls, ACallInAFirstDeclaratorIsInlined) {
  Out o = run(R"(#define N 1000
float take(float *s, int k, float v) { s[k] = v; return v; }
void f(float *y, float *t, const float *x) {
  for (int i = 0; i < N; i++) {
    float cur = take(t, i, x[i]), twice = 2.0f * cur;
    y[i] = twice;
  }
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "st t[i]")) << o.text;
}

TEST(InlineCalls, TrapTheStatementReadsWhatTheCallWrites) {
  // C does not say whether `t[0]` is read before or after `take` stores it:
  // the call is not put first (which would make t[0] private)
  Out o = run(R"(#define N 1000
float t[1];
float take(float *s, float v) { s[0] = v; return v; }
void f(float *y, const float *x) {
  for (int i = 0; i < N; i++)
    y[i] = t[0] + take(t, x[i]);
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "call to 'take'")) << o.error;
}

TEST(InlineCalls, ABodyFromAnIncludedFileIsInlined) {
  // Rodinia's habit: `#include "kernel.c"` beside main.c. The callee's body is
  // the user's code, not a system header's: inlined as if written in the file.
  skelcast::testsupport::TempDir tmp("skelcast-include");
  {
    std::ofstream h(tmp.path() / "rng.c");
    h << "double uniform(int *state, int k) {\n"
         "  state[k] = (1103515245 * state[k] + 12345) % 2147483647;\n"
         "  return state[k] / 2147483647.0;\n"
         "}\n";
  }
  Out o = run("#include \"" + (tmp.path() / "rng.c").string() +
              "\"\n#define NP 4096\nvoid walk(double *px, int *state) {\n#pragma omp parallel for\n"
              "  for (int p = 0; p < NP; p++)\n    px[p] += uniform(state, p);\n}\n");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for walk(NP) : p")) << o.text;
  EXPECT_TRUE(has(o.text, "ld state[p]") && has(o.text, "st state[p]")) << o.text;
  // a function of a system header has no body to read: its call stays refused
  Out sys = run("#include <stdlib.h>\n#define N 4096\nint a[N];\nvoid f(void) {\n"
                "  for (int i = 0; i < N; i++)\n    a[i] = rand();\n}\n");
  EXPECT_FALSE(sys.ok) << sys.text;
}
