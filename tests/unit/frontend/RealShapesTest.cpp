// Shapes of real C code (issue 16, item 5), each in a file written for the
// test: rows through pointers (`float **w` subscripted `w[k][j]`),
// `if (c) continue;` in a loop body, fields of arrays of structs
// (`pts[i].x`), and locals computed once from known sizes.
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

// A neural-network layer with its weights in rows allocated one by one.
const char *kRows = R"(
#include <stdlib.h>
#define NIN 4096
#define NHID 16
void layer(float *in, float *out, float **wt, int nin, int nhid) {
  int j, k;
  float acc;
#pragma omp parallel for private(k, acc)
  for (j = 1; j <= nhid; j++) {
    acc = 0.0f;
    for (k = 0; k <= nin; k++)
      acc += wt[k][j] * in[k];
    out[j] = acc;
  }
}
void update(float *d, int nd, float *y, int ny, float **wt, float **prev) {
  int j, k;
  for (j = 1; j <= nd; j++)
    for (k = 0; k <= ny; k++) {
      float dw = 0.3f * d[j] * y[k] + 0.3f * prev[k][j];
      wt[k][j] += dw;
      prev[k][j] = dw;
    }
}
int main(void) {
  float *in = malloc((NIN + 1) * sizeof(float)), *out = malloc((NHID + 1) * sizeof(float));
  float **wt = malloc((NIN + 1) * sizeof(float *)), **prev = malloc((NIN + 1) * sizeof(float *));
  layer(in, out, wt, NIN, NHID);
  update(out, NHID, in, NIN, wt, prev);
  return 0;
}
)";

} // namespace

TEST(RealShapes, RowsThroughPointersAreATwoDimensionalArray) {
  Out o = run(kRows);
  ASSERT_TRUE(o.ok) << o.error;
  // extents from the loops over rows and columns; the comment says how rows lie
  EXPECT_TRUE(has(o.text, "float wt[NIN + 1][NHID + 1] // 'wt' holds row pointers")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for layer(1:NHID + 1) : j")) << o.text;
  EXPECT_TRUE(has(o.text, "ld wt[k][j]")) << o.text;
  // without an OpenMP pragma the dependence test finds both loops parallel
  EXPECT_TRUE(has(o.text, "parallel_for update(1:NHID + 1, NIN + 1) : j, k")) << o.text;
  EXPECT_TRUE(has(o.text, "st prev[k][j]")) << o.text;
}

TEST(RealShapes, RowsThroughPointersCarryTheirDependences) {
  // a row read from the one before: sequential over k, parallel over j inside
  Out o = run(R"(
void sweep(float **g, int n, int m) {
  for (int k = 1; k < n; k++)
    for (int j = 0; j < m; j++)
      g[k][j] = g[k - 1][j] * 0.5f;
}
int main(void) { float **g = 0; sweep(g, 100, 200); return 0; }
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_FALSE(has(o.text, ") : k")) << o.text;
  // each column on its own: j the loop space, k run in order by each thread
  EXPECT_TRUE(has(o.text, "parallel_for sweep(m) : j {")) << o.text;
  EXPECT_TRUE(has(o.text, "stream k = 1:n {")) << o.text;
  EXPECT_TRUE(has(o.text, "ld g[k - 1][j]")) << o.text;
}

TEST(RealShapes, AnArrayOfRowPointersToo) {
  Out o = run(R"(
#define R 8
void fill(float *rows[R], int m) {
  for (int r = 0; r < R; r++)
    for (int j = 0; j < m; j++)
      rows[r][j] = r + j;
}
int main(void) { float *rows[R]; fill(rows, 300); return 0; }
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "float rows[R][m]") || has(o.text, "float rows[R][300]")) << o.text;
  EXPECT_TRUE(has(o.text, "st rows[r][j]")) << o.text;
}

TEST(RealShapes, ThreeLevelsOfPointersStayRefused) {
  Out o = run(R"(
void f(float ***c, int n) {
  for (int i = 0; i < n; i++)
    c[i][i][i] = 0.0f;
}
int main(void) { f(0, 10); return 0; }
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "is an array of pointers")) << o.error;
}

// A stencil step skipping its border rows, as a blocked code skips border chunks.
TEST(RealShapes, ContinueIsABranchAroundTheRestOfTheBody) {
  Out o = run(R"(
#define ROWS 512
#define COLS 512
void step(float *restrict out, const float *restrict in) {
  int r, c;
#pragma omp parallel for private(c)
  for (r = 0; r < ROWS; r++) {
    if (r == 0 || r == ROWS - 1)
      continue;
    for (c = 1; c < COLS - 1; c++)
      out[r * COLS + c] = in[(r - 1) * COLS + c] + in[(r + 1) * COLS + c];
  }
}
int main(void) { static float a[ROWS*COLS], b[ROWS*COLS]; step(a, b); return 0; }
)");
  ASSERT_TRUE(o.ok) << o.error;
  // the rest of the body runs in 510 of 512 rows
  EXPECT_TRUE(has(o.text, "continue: the rest of the body runs when it does not hold")) << o.text;
  EXPECT_TRUE(has(o.text, "if (p=0.996094) {\n    stream c = 1:COLS - 1 {")) << o.text;
  // a loop whose body may continue is not collapsed with the loop inside
  EXPECT_TRUE(has(o.text, "parallel_for step(ROWS) : r {")) << o.text;
}

TEST(RealShapes, ContinueAfterWorkPutsTheRestInElse) {
  Out o = run(R"(
void blocks(float *restrict out, const float *restrict in, int nb) {
  for (int b = 0; b < nb; b++) {
    if (b % 4 == 0) {
      out[b] = 0.0f;
      continue;
    }
    out[b] = in[b] * 2.0f;
  }
}
int main(void) { static float a[64], b[64]; blocks(a, b, 64); return 0; }
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "{ ...; continue; }: p counted over the loop space, the rest of the "
                          "body in 'else'"))
      << o.text;
  EXPECT_TRUE(has(o.text, "if (p=0.25) {")) << o.text;
  EXPECT_TRUE(has(o.text, "} else {\n    ld in[b]")) << o.text;
}

TEST(RealShapes, ContinueElsewhereIsRefusedWithItsReason) {
  Out o = run(R"(
void bad(float *restrict out, const float *restrict in) {
  for (int i = 0; i < 100; i++) {
    if (in[i] > 0) {
      if (in[i] > 1)
        continue;
      out[i] = 1;
    }
    out[i] += 2;
  }
}
int main(void) { static float a[100], b[100]; bad(a, b); return 0; }
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "t.c:3:3: warning: cannot port this loop: a 'continue' other than an "
                           "'if (...) continue;' among the loop body's statements (line 6)"))
      << o.error;
}

// A graph's nodes as an array of structs {start, count}, and particles as
// {x, y, z}: a field is an access with the struct's stride and its offset.
TEST(RealShapes, FieldsOfAnArrayOfStructs) {
  Out o = run(R"(
#include <stdlib.h>
typedef struct { float x, y, z; } vec3;
struct node { int start; int count; };
#define N 4096
void move(vec3 *restrict p, const vec3 *restrict v, float dt, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    p[i].x += dt * v[i].x;
    p[i].y += dt * v[i].y;
    p[i].z += dt * v[i].z;
  }
}
void degree(const struct node *restrict g, int *restrict deg, int n) {
  for (int i = 0; i < n; i++)
    deg[i] = g[i].count - g[i].start;
}
int main(void) {
  vec3 *p = malloc(N * sizeof(vec3)), *v = malloc(N * sizeof(vec3));
  struct node *g = malloc(N * sizeof(struct node));
  int *deg = malloc(N * sizeof(int));
  move(p, v, 0.1f, N);
  degree(g, deg, N);
  return 0;
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "float p[N][3] // 'p' is an array of 'vec3'")) << o.text;
  EXPECT_TRUE(has(o.text, "ld v[i][1]")) << o.text;
  EXPECT_TRUE(has(o.text, "st p[i][2]")) << o.text;
  EXPECT_TRUE(has(o.text, "int g[N][2]")) << o.text;
  EXPECT_TRUE(has(o.text, "ld g[i][1]")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for degree(N) : i")) << o.text;
}

TEST(RealShapes, FieldsCarryTheirDependences) {
  // a field written from the same field of the previous element: sequential
  Out o = run(R"(
struct pair { float a, b; };
void chain(struct pair *restrict q, int n) {
  for (int i = 1; i < n; i++)
    q[i].a = q[i - 1].a + q[i].b;
}
int main(void) { static struct pair q[100]; chain(q, 100); return 0; }
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "cannot port this loop: the iterations are not independent")) << o.error;
  // another field of the previous element is another element: parallel
  Out p = run(R"(
struct pair { float a, b; };
void other(struct pair *restrict q, int n) {
  for (int i = 1; i < n; i++)
    q[i].a = q[i - 1].b + 1.0f;
}
int main(void) { static struct pair q[100]; other(q, 100); return 0; }
)");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_TRUE(has(p.text, "ld q[i - 1][1]")) << p.text;
  EXPECT_TRUE(has(p.text, "st q[i][0]")) << p.text;
}

// Mixed fields: the element is taken as words of the field's type
// (StructFieldsTest has the rest); fields of two types in one loop, and a
// packed struct whose field is not at a multiple of its size, stay refused.
TEST(RealShapes, StructsOfMixedFieldsAreWords) {
  Out o = run(R"(
struct rec { double w; int id; };
void f(struct rec *restrict r, int n) {
  for (int i = 0; i < n; i++)
    r[i].w = 0.0;
}
int main(void) { static struct rec r[10]; f(r, 10); return 0; }
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "double r[n][2]")) << o.text;
  EXPECT_TRUE(has(o.text, "st r[i][0]")) << o.text;
  Out m = run(R"(
struct rec { double w; int id; };
void f(struct rec *restrict r, int n) {
  for (int i = 0; i < n; i++)
    r[i].w = r[i].id;
}
int main(void) { static struct rec r[10]; f(r, 10); return 0; }
)");
  EXPECT_FALSE(m.ok);
  EXPECT_TRUE(has(m.error, "numbers of different types ('int' and 'double')")) << m.error;
  Out p = run(R"(
struct __attribute__((packed)) tag { char c; int id; };
void f(struct tag *restrict t, int n) {
  for (int i = 0; i < n; i++)
    t[i].id = i;
}
int main(void) { static struct tag t[10]; f(t, 10); return 0; }
)");
  EXPECT_FALSE(p.ok);
  EXPECT_TRUE(has(p.error, "cannot port this loop: an assignment to 't[i].id'")) << p.error;
}

// A blocked loop's chunk count computed once from the sizes its caller passes.
TEST(RealShapes, ALocalComputedFromKnownSizesIsKnown) {
  Out o = run(R"(
#define BS 16
void blocked(float *restrict out, const float *restrict in, int rows, int cols) {
  int nchunks = rows * cols / (BS * BS);
  for (int c = 0; c < nchunks; c++)
    out[c] = in[c] * 2.0f;
}
int main(void) { static float a[65536], b[65536]; blocked(a, b, 1024, 1024); return 0; }
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for blocked(4096) : c")) << o.text;
}

// A graph walk marking neighbours through an edge list: the subscript is
// indirect, the extent comes from the allocation (the node count given with
// --extent, as a size read at run time).
TEST(RealShapes, AnIndirectSubscriptTakesTheExtentOfTheAllocation) {
  SkeletonizeOptions opts;
  opts.extents["nodes"] = {100000};
  Out o = run(R"(
#include <stdlib.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int nodes = atoi(argv[1]);
  int *edge = (int *)malloc(sizeof(int) * nodes);
  char *seen = (char *)calloc(nodes, sizeof(char));
  char *next = (char *)malloc(nodes);
#pragma omp parallel for
  for (int n = 0; n < nodes; n++)
    if (!seen[edge[n]])
      next[edge[n]] = 1;
  printf("%d\n", next[0]);
  return 0;
}
)",
              opts);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "char seen[nodes] // 'seen' is a pointer: extent from its allocation"))
      << o.text;
  EXPECT_TRUE(has(o.text, "char next[nodes]")) << o.text;
}

// A 1-D smoothing with clamped neighbours, as stencil codes clamp at borders.
TEST(RealShapes, AClampedIndexIsWrittenAsItsInteriorArm) {
  Out o = run(R"(
#define N 1024
#define MIN(a, b) ((a) < (b) ? (a) : (b))
void smooth(float out[N], const float in[N]) {
  for (int i = 0; i < N; i++) {
    int w = (i == 0) ? i : i - 1;
    out[i] = in[w] + in[MIN(i + 1, N - 1)];
  }
}
int main(void) { static float a[N], b[N]; smooth(a, b); return 0; }
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "ld in[i - 1]")) << o.text;
  EXPECT_TRUE(has(o.text, "ld in[i + 1]")) << o.text;
  EXPECT_TRUE(has(o.text, "the clamped index '(i == 0) ? i : i - 1' is written as the arm most "
                          "iterations take: the borders are approximated"))
      << o.text;
}

TEST(RealShapes, AClampedWriteStaysWithTheDependenceTest) {
  // two iterations write a[N - 1]: the approximation must not make it parallel
  Out o = run(R"(
#define N 1024
void shift(float a[N], const float b[N]) {
  for (int i = 0; i < N; i++) {
    int j = (i + 1 < N - 1) ? i + 1 : N - 1;
    a[j] = b[i];
  }
}
int main(void) { static float a[N], b[N]; shift(a, b); return 0; }
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "cannot port this loop")) << o.error;
}

// A time-stepped stencil whose grids are allocated in main, at sizes read at
// run time, passed down two calls and swapped between steps: the blocked
// subscripts give no extent, the allocations do (every pointer the kernel's
// parameter may hold is a calloc of rows*cols).
TEST(RealShapes, APointerParameterTakesTheExtentOfItsCallersAllocations) {
  const char *code = R"(
#include <stdlib.h>
#define BS 16
void step(float *out, float *in, int rows, int cols) {
  int nb = rows * cols / (BS * BS), per_row = cols / BS;
#pragma omp parallel for
  for (int b = 0; b < nb; b++) {
    int r0 = BS * (b / per_row), c0 = BS * (b % per_row);
    for (int r = r0; r < r0 + BS; r++)
      for (int c = c0; c < c0 + BS; c++)
        out[r * cols + c] = 0.5f * in[r * cols + c];
  }
}
void run(float *result, float *grid, int rows, int cols, int steps) {
  float *o = result, *i = grid;
  for (int s = 0; s < steps; s++) {
    step(o, i, rows, cols);
    float *t = i;
    i = o;
    o = t;
  }
}
int main(int argc, char **argv) {
  int rows = atoi(argv[1]), cols = atoi(argv[2]);
  float *a = (float *)calloc(rows * cols, sizeof(float));
  float *b;
  b = (float *)malloc(sizeof(float) * rows * cols);
  run(a, b, rows, cols, 10);
  return 0;
}
)";
  SkeletonizeOptions opts;
  opts.extents["rows"] = {512};
  opts.extents["cols"] = {256};
  Out o = run(code, opts);
  ASSERT_TRUE(o.ok) << o.error << o.warnings;
  EXPECT_TRUE(has(o.text, "// from t.c:7, function 'step'")) << o.text;
  EXPECT_TRUE(has(o.text, "'out' is a pointer: extent from its allocation")) << o.text;
  EXPECT_TRUE(has(o.text, "float out[512][256]")) << o.text;
  EXPECT_TRUE(has(o.text, "float in[512][256]")) << o.text;
  // one allocation of another size among the values: no extent, and the
  // refusal says which two allocations differ
  std::string other = code;
  other.replace(other.find("sizeof(float) * rows * cols"), 27, "sizeof(float) * rows");
  Out d = run(other, opts);
  EXPECT_FALSE(d.ok);
  EXPECT_TRUE(has(d.diag, "the extent of 'out' is unknown")) << d.diag;
  EXPECT_TRUE(has(d.diag, "it may point to allocations of 512 (t.c:27:7) and 131072 (t.c:25:14) "
                          "elements"))
      << d.diag;
  // a pointer moved by arithmetic is not followed
  std::string moved = code;
  moved.replace(moved.find("float *t = i;"), 13, "float *t = i + 1;");
  Out m = run(moved, opts);
  EXPECT_FALSE(m.ok);
  EXPECT_TRUE(has(m.diag, "'i + 1' (t.c:18:16) is not an allocation nor a pointer variable"))
      << m.diag;
}
