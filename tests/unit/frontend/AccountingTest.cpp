// Every loop accounted for (issue 16, item 6): a nest inside a 'do' or
// 'while' that cannot be ported is named with its own reason.
#include "skelcast/frontend/Skeletonizer.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace skelcast;
using namespace skelcast::frontend;

TEST(Accounting, NestsInsideADoLoopKeepTheirOwnReasons) {
  // Rodinia's bfs: OpenMP loops under 'target' inside a do/while; the size is
  // read at run time. Both loops must be named, with the real reason.
  std::string code = R"(
#include <stdlib.h>
struct Node { int starting, no_of_edges; };
void bfs(int n, struct Node *nodes, int *mask, int *cost, int *stop) {
  do {
    *stop = 0;
#pragma omp target
#pragma omp parallel for
    for (int tid = 0; tid < n; tid++)
      if (mask[tid]) { mask[tid] = 0; cost[tid] = nodes[tid].starting; }
#pragma omp target
#pragma omp parallel for
    for (int tid = 0; tid < n; tid++)
      if (mask[tid]) *stop = 1;
  } while (*stop);
}
)";
  std::ostringstream d;
  std::string err;
  try {
    skeletonizeCode(code, "t.c", {}, d);
  } catch (const InputError &e) {
    err = e.what();
  }
  std::string w = d.str();
  EXPECT_NE(w.find("t.c:9:5: warning: cannot port this loop"), std::string::npos) << w;
  EXPECT_NE(w.find("t.c:13:5: warning: cannot port this loop"), std::string::npos) << w;
  EXPECT_EQ(w.find("a 'do' loop"), std::string::npos) << w; // the inner reasons, not the do's
  EXPECT_NE(err.find("no loop nest"), std::string::npos) << err;
}

TEST(Accounting, ANestLaunchedOncePerIterationKeepsItsOwnReason) {
  // the blocked loop is an indexed repeat (bounds known), the nest inside
  // uses its index but has a bound the host reads from data: the outer loop's
  // warning (it calls a function of another file) names the nest and why (a
  // bound computed from the index, `nc = (N - off - BS) / BS`, is a value of
  // the pass: PassValuesTest.cpp)
  std::string code = R"(
#define N 1024
#define BS 16
void factor(float *a);
void sweep(float *a) {
  int off, c, nc;
  for (off = 0; off < N - BS; off += BS) {
    factor(a);
    nc = (int)a[off];
#pragma omp parallel for
    for (c = 0; c < nc; c++)
      a[off * N + c] = 1.0f;
  }
}
)";
  std::ostringstream d;
  try {
    skeletonizeCode(code, "t.c", {}, d);
  } catch (const InputError &) {
  }
  std::string w = d.str();
  EXPECT_NE(w.find("t.c:7:3: warning: cannot port this loop: call to 'factor', whose body is "
                   "not visible (line 8); the nest at line 11, launched once per iteration of "
                   "'off': the loop bound 'nc' is not a known constant: 'nc' is set in the "
                   "body of the loop 'off' (line 7) around this nest, and it is no value known "
                   "in each pass: its value '(int)a[off]' (line 9) is not an integer expression "
                   "of 'off'"),
            std::string::npos)
      << w;
}
