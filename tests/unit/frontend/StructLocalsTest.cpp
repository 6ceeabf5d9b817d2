// Struct variables and reference parameters (issue 16, item 5; the shape of
// Rodinia's cfd, in code written for the test): locals of a struct of like
// numbers (`vec3 m;`) whose fields are registers, passed by reference to small
// helpers that fill them. A variable a helper assigns through a reference is
// written by the call, and traps where that matters must stay refused.
#include "SkeletonizeText.h"

#include <gtest/gtest.h>

using namespace skelcast;
using namespace skelcast::frontend;

namespace {

using Out = testsupport::Skeletonized;
using testsupport::has;

Out runCpp(const std::string &code, const SkeletonizeOptions &opts = {}) {
  return testsupport::skeletonizeText(code, "t.cpp", opts);
}

// A particle update: the state of one particle in struct locals, computed by
// helpers that take them by reference, as cfd's flux computation does.
const char *kParticles = R"(
#define NP 100000
struct vec3 { float x, y, z; };
inline void speed_of(float &mass, vec3 &mom, vec3 &vel) {
  vel.x = mom.x / mass;
  vel.y = mom.y / mass;
  vel.z = mom.z / mass;
}
inline float norm2(vec3 &v) { return v.x * v.x + v.y * v.y + v.z * v.z; }
inline float kinetic(float mass, vec3 v) { return 0.5f * mass * (v.x * v.x + v.y * v.y + v.z * v.z); }
void step(float *__restrict state, float *__restrict energy, vec3 drift) {
#pragma omp parallel for
  for (int i = 0; i < NP; i++) {
    float mass = state[i];
    vec3 mom;
    mom.x = state[i + NP];
    mom.y = state[i + 2 * NP];
    mom.z = state[i + 3 * NP];
    vec3 vel;
    speed_of(mass, mom, vel);
    vel.x += drift.x;
    float e = kinetic(mass, vel) + norm2(vel);
    energy[i] = e;
  }
}
)";

} // namespace

TEST(StructLocals, FilledByReferenceHelpersArePrivateRegisters) {
  Out o = runCpp(kParticles);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for step(NP) : i")) << o.text;
  EXPECT_TRUE(has(o.text, "ld state[i + 3*NP]") || has(o.text, "ld state[i + 3 * NP]")) << o.text;
  EXPECT_TRUE(has(o.text, "st energy[i]")) << o.text;
  EXPECT_FALSE(has(o.warnings, "cannot port")) << o.warnings;
}

TEST(StructLocals, WithoutOpenMPTheDependenceTestFindsThemPrivate) {
  std::string code = kParticles;
  code.replace(code.find("#pragma omp parallel for"), 24, "");
  Out o = runCpp(code);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for step(NP) : i")) << o.text;
  EXPECT_TRUE(has(o.text, "iterations independent")) << o.text;
}

TEST(StructLocals, HelperCostIsInlined) {
  // the same loop without the helper calls costs less
  Out with = runCpp(kParticles);
  std::string code = kParticles;
  code.replace(code.find("speed_of(mass, mom, vel);"), 25, "vel.x = mom.x;");
  Out without = runCpp(code);
  ASSERT_TRUE(with.ok && without.ok) << with.error << without.error;
  auto comp = [](const std::string &t) {
    size_t p = t.find("comp ");
    return p == std::string::npos ? -1 : std::stoi(t.substr(p + 5));
  };
  EXPECT_GT(comp(with.text), comp(without.text)) << with.text << without.text;
}

// Traps: each carries a value from one iteration to the next through a
// struct variable or a reference, and must be refused.
TEST(StructLocals, StructDeclaredOutsideTheLoopCarriesItsValue) {
  Out o = runCpp(R"(
#define N 1000
struct vec3 { float x, y, z; };
void run(float *__restrict a, float *__restrict b) {
  vec3 acc;
  acc.x = 0;
  for (int i = 0; i < N; i++) {
    b[i] = acc.x;
    acc.x = a[i];
  }
}
)");
  EXPECT_FALSE(has(o.text, "parallel_for run(N) : i")) << o.text;
  EXPECT_TRUE(has(o.diag, "cannot port this loop")) << o.diag;
  EXPECT_TRUE(has(o.diag, "'acc'")) << o.diag;
}

TEST(StructLocals, ReferenceHelperUpdatingAnOuterScalarIsARecurrence) {
  Out o = runCpp(R"(
#define N 1000
inline void bump(float &s, float x) { s += x; }
void run(float *__restrict a, float *__restrict b) {
  float s = 0;
  for (int i = 0; i < N; i++) {
    bump(s, a[i]);
    b[i] = s;
  }
}
)");
  EXPECT_FALSE(has(o.text, "parallel_for run(N) : i")) << o.text;
  EXPECT_TRUE(has(o.diag, "'s' carries a value")) << o.diag;
}

TEST(StructLocals, IndexShiftedThroughAReferenceIsNotTheLoopIndex) {
  // k is i + 1 after the call: a[i + 1] = a[i] + 1 is a recurrence
  Out o = runCpp(R"(
#define N 1000
inline void next(int &k) { k = k + 1; }
void run(float *a) {
  for (int i = 0; i < N - 1; i++) {
    int k = i;
    next(k);
    a[k] = a[i] + 1.0f;
  }
}
)");
  EXPECT_FALSE(has(o.text, "parallel_for run(")) << o.text;
  EXPECT_TRUE(has(o.diag, "cannot port this loop")) << o.diag;
}

TEST(StructLocals, SizeAssignedThroughAReferenceIsNotKnown) {
  // n is not 10 after grow(n): the loop bound is unknown
  Out o = runCpp(R"(
inline void grow(int &n) { n = n * 2; }
void run(float *a) {
  int n = 10;
  grow(n);
  for (int i = 0; i < n; i++)
    a[i] = 0.0f;
}
)");
  EXPECT_FALSE(has(o.text, "parallel_for run(10)")) << o.text;
  EXPECT_FALSE(has(o.text, "(n)")) << o.text;
}

TEST(StructLocals, ArrayElementPassedByReferenceIsRefused) {
  Out o = runCpp(R"(
#define N 1000
inline void twice(float &x) { x = 2 * x; }
void run(float *a) {
  for (int i = 0; i < N; i++)
    twice(a[i]);
}
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.diag, "'a[i]' is passed by reference to 'twice'")) << o.diag;
}

TEST(StructLocals, CStructLocalsAndByValueArguments) {
  Out o = testsupport::skeletonizeText(R"(
#define N 4096
struct v2 { double re, im; };
static double mag2(struct v2 z) { return z.re * z.re + z.im * z.im; }
void absq(const double *restrict in, double *restrict out) {
  for (int i = 0; i < N; i++) {
    struct v2 z = {in[2 * i], in[2 * i + 1]};
    z.im = -z.im;
    out[i] = mag2(z);
  }
}
)",
                                       "t.c");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for absq(N) : i")) << o.text;
  EXPECT_TRUE(has(o.text, "st out[i]")) << o.text;
}
