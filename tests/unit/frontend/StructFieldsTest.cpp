// Scalar fields of structs read as values (StructFields.h): a size kept in a
// struct (`dim.number_boxes`, `points->num`) is a variable named as the code
// writes it, its value from the function (one assignment before the loops, an
// initialiser list) or from `--extent dim.number_boxes=1000`; and the traps: a
// field written by the loop, or through another pointer, or whose address is
// taken, stays a member access and the loop is refused.
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

} // namespace

// A parameter block filled in main, its count set once from a macro before the
// frame's parallel loop (the shape of a tracking code's `public` struct).
TEST(StructFields, AFieldSetOnceBeforeTheLoopTakesItsValue) {
  Out o = run(R"(
#define ALL_POINTS 51
struct params { int all_points; int frame_no; float scale; };
float out_pts[ALL_POINTS], in_pts[ALL_POINTS];
int main(void) {
  struct params prm;
  prm.all_points = ALL_POINTS;
  prm.scale = 0.5f;
  #pragma omp parallel for
  for (int i = 0; i < prm.all_points; i++)
    out_pts[i] = prm.scale * in_pts[i];
  return 0;
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for main(ALL_POINTS)")) << o.text;
  EXPECT_FALSE(has(o.warnings, "member access")) << o.warnings;
}

// A struct passed by value whose size field the file never sets: asked for by
// its name, in the one message of missing sizes, and given with --extent.
const char *kBoxes = R"(
typedef struct { int cores_arg; long number_boxes; } dim_str;
void kernel_cpu(dim_str dim, float *restrict fv, const float *restrict rv) {
  long l;
  #pragma omp parallel for
  for (l = 0; l < dim.number_boxes; l = l + 1)
    fv[l] = rv[l] * 2.0f;
}
)";

TEST(StructFields, AnUnknownFieldIsAskedForByItsName) {
  Out o = run(kBoxes);
  ASSERT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "sizes not known at compile time: 'dim.number_boxes' (the loop at 6:3)"))
      << o.error;
  EXPECT_TRUE(has(o.error, "--extent dim.number_boxes=VALUE")) << o.error;
}

TEST(StructFields, ExtentGivesAFieldItsValue) {
  SkeletonizeOptions opts;
  opts.extents["dim.number_boxes"] = {1000};
  Out o = run(kBoxes, opts);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "#define dim_number_boxes 1000 // --extent dim.number_boxes=1000"))
      << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for kernel_cpu(dim_number_boxes)")) << o.text;
}

// A count reached through a pointer to the struct (`points->num`).
TEST(StructFields, AFieldThroughAPointer) {
  SkeletonizeOptions opts;
  opts.extents["points->num"] = {65536};
  Out o = run(R"(
typedef struct { float weight; long num; int dim; } Points;
void reweigh(Points *points, float *restrict w, const float *restrict c) {
  for (long i = 0; i < points->num; i++)
    w[i] = w[i] * c[i];
}
)",
              opts);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "#define points_num 65536 // --extent points->num=65536")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for reweigh(points_num)")) << o.text;
}

// A local struct initialised by a list: its fields are the list's values.
TEST(StructFields, AnInitialiserListGivesTheValues) {
  Out o = run(R"(
#define ROWS 64
#define COLS 32
float grid[ROWS][COLS];
void blur(void) {
  struct dims { int rows, cols; } d = {ROWS, COLS};
  for (int i = 0; i < d.rows; i++)
    for (int j = 0; j < d.cols; j++)
      grid[i][j] = grid[i][j] * 0.25f;
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for blur(ROWS, COLS)")) << o.text;
}

// Traps: a field whose value changes while the loops run stays a member
// access, and the loop is refused.

// A field written by one iteration and read by the next: the value carried
// from one iteration to another is the point of the loop.
TEST(StructFields, AFieldWrittenInTheLoopIsRefused) {
  Out o = run(R"(
struct state { int last; int n; };
void chain(struct state *st, int *restrict a) {
  #pragma omp parallel for
  for (int i = 0; i < 100; i++) {
    a[i] = st->last;
    st->last = i;
  }
}
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "the member access 'st->last'")) << o.error;
}

// The same with a struct variable: written in the loop, read as its bound.
TEST(StructFields, ABoundWrittenInTheLoopIsRefused) {
  Out o = run(R"(
float v[1000];
void shrink(void) {
  struct { int n; } s;
  s.n = 1000;
  for (int i = 0; i < s.n; i++) {
    v[i] = v[i] * 2.0f;
    s.n = s.n - 1;
  }
}
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "'s' carries a value from one iteration to the next")) << o.error;
  EXPECT_FALSE(has(o.error, "--extent s=")) << o.error;
}

// Another pointer to a struct of the same type may be the same object: its
// write of the field keeps the bound read through the first pointer unknown.
TEST(StructFields, AWriteThroughAnotherPointerIsRefused) {
  SkeletonizeOptions opts;
  opts.extents["p->num"] = {64};
  Out o = run(R"(
typedef struct { long num; } Points;
void grow(Points *p, Points *q, float *restrict w) {
  for (long i = 0; i < p->num; i++) {
    w[i] = 1.0f;
    q->num = i;
  }
}
)",
              opts);
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "the member access 'p->num'")) << o.error;
}

// A struct whose address goes to a call (which may set the field), and one
// whose field is set after the loop reads it: no value is taken from the file.
TEST(StructFields, AnAddressTakenOrALateAssignmentGivesNoValue) {
  Out o = run(R"(
#define N 100
struct dims { int n; };
void fill(struct dims *d);
float v[N];
void twice(void) {
  struct dims d;
  d.n = N;
  fill(&d);
  for (int i = 0; i < d.n; i++)
    v[i] = v[i] * 2.0f;
}
void late(void) {
  struct dims e;
  for (int i = 0; i < e.n; i++)
    v[i] = v[i] * 3.0f;
  e.n = N;
}
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "10:3: warning: cannot port this loop: the loop bound 'd.n' is not a "
                           "known constant: it reads a field of 'd' that may change"))
      << o.error;
  EXPECT_TRUE(has(o.error, "15:3: warning: cannot port this loop: the loop bound 'e.n'")) << o.error;
}

// A field assigned in both arms of a branch has no single value.
TEST(StructFields, AFieldSetInABranchGivesNoValue) {
  Out o = run(R"(
float v[200];
void pick(int big) {
  struct { int n; } s;
  if (big)
    s.n = 200;
  else
    s.n = 100;
  for (int i = 0; i < s.n; i++)
    v[i] = 0.0f;
}
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "the loop bound 's.n' is not a known constant: it reads a field of 's'"))
      << o.error;
}

// Arrays of structs of mixed fields: an element is taken as words of the type
// of the fields the loop uses, a field's offset in words its last index.

// A search tree's nodes, read through indices loaded from data (the shape of
// a B+ tree lookup): array fields of the nodes, one number type.
const char *kTree = R"(
#define ORDER 256
#define COUNT 10000
#define HEIGHT 3
typedef struct knode {
  int location;
  int indices[ORDER + 1];
  int keys[ORDER + 1];
  _Bool is_leaf;
  int num_keys;
} knode;
typedef struct record { int value; } record;
void findK(knode *knodes, record *records, long *currKnode, long *offset, int *keys,
           record *ans) {
  int bid, i, thid;
  #pragma omp parallel for private(i, thid)
  for (bid = 0; bid < COUNT; bid++) {
    for (i = 0; i < HEIGHT; i++) {
      for (thid = 0; thid < ORDER; thid++)
        if (knodes[currKnode[bid]].keys[thid] <= keys[bid] &&
            knodes[currKnode[bid]].keys[thid + 1] > keys[bid])
          offset[bid] = knodes[offset[bid]].indices[thid];
      currKnode[bid] = offset[bid];
    }
    for (thid = 0; thid < ORDER; thid++)
      if (knodes[currKnode[bid]].keys[thid] == keys[bid])
        ans[bid].value = records[knodes[currKnode[bid]].indices[thid]].value;
  }
}
)";

TEST(StructArrays, ArrayFieldsOfMixedStructsAreWords) {
  SkeletonizeOptions opts;
  opts.extents["knodes"] = {4000};
  opts.extents["records"] = {1000000};
  Out o = run(kTree, opts);
  ASSERT_TRUE(o.ok) << o.error;
  // 4 + 257*4 + 257*4 + 1 (+3) + 4 bytes: 517 ints; keys at int 258, indices at 1
  EXPECT_TRUE(has(o.text, "int knodes[4000][517]")) << o.text;
  EXPECT_TRUE(has(o.text, "258 + thid]")) << o.text;
  EXPECT_TRUE(has(o.text, "1 + thid]")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for findK(COUNT)")) << o.text;
}

// Fields of one number type in a struct with a pointer and a long among them:
// `p[i].cost` is word 6 of 8 floats.
TEST(StructArrays, FieldsOfOneTypeBesideOthers) {
  Out o = run(R"(
typedef struct { float weight; float *coord; long assign; float cost; } Point;
#define NUM 4096
Point pts[NUM];
void recost(void) {
  for (int i = 0; i < NUM; i++)
    pts[i].cost = pts[i].weight * 2.0f;
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "float pts[NUM][8] // 'pts' is an array of 'Point' taken as 8 words "
                          "of 'float' each")) << o.text;
  EXPECT_TRUE(has(o.text, "ld pts[i][0]")) << o.text;
  EXPECT_TRUE(has(o.text, "st pts[i][6]")) << o.text;
}

// Fields of different number types in one loop cannot be one array's words.
TEST(StructArrays, FieldsOfDifferentTypesAreRefused) {
  Out o = run(R"(
typedef struct { float weight; float *coord; long assign; float cost; } Point;
#define NUM 4096
Point pts[NUM];
void reassign(void) {
  for (int i = 0; i < NUM; i++)
    pts[i].assign = (long)pts[i].cost;
}
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "numbers of different types")) << o.error;
}

// Traps: a field of the element before, and one field every iteration writes.
TEST(StructArrays, ARecurrenceThroughAFieldIsRefused) {
  Out o = run(R"(
typedef struct { double key; int *next; double sum; } Node;
#define NUM 1000
Node nodes[NUM];
void prefix(void) {
  for (int i = 1; i < NUM; i++)
    nodes[i].sum = nodes[i - 1].sum + nodes[i].key;
}
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "not independent")) << o.error;
}

TEST(StructArrays, OneFieldWrittenByEveryIterationIsRefused) {
  Out o = run(R"(
typedef struct { int count; char tag; int last; } Head;
#define NUM 1000
Head heads[4];
int vals[NUM];
void mark(void) {
  for (int i = 0; i < NUM; i++)
    heads[0].last = vals[i];
}
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "not independent")) << o.error;
}

// Distinct fields of one element are distinct words: reading `key` and writing
// `sum` of the same node is no dependence.
TEST(StructArrays, DistinctFieldsAreIndependent) {
  Out o = run(R"(
typedef struct { double key; int *next; double sum; } Node;
#define NUM 1000
Node nodes[NUM];
void twice(void) {
  for (int i = 0; i < NUM; i++)
    nodes[i].sum = nodes[i].key * 2.0;
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "double nodes[NUM][3]")) << o.text;
  EXPECT_TRUE(has(o.text, "st nodes[i][2]")) << o.text;
}

// Fields deeper in the element: an array of structs inside each struct (a
// box's neighbours, the shape of Rodinia's lavaMD), its `long` and `int`
// fields read together. The element is words of the smallest integer (a box
// is 656 bytes, 164 ints), the place the fields' offsets plus each subscript
// times its stride (a neighbour is 24 bytes, 6 ints: `number` of neighbour k
// is int 8 + 6k + 3), and the `long` is read as the word it begins with.
TEST(StructArrays, NestedFieldsOfMixedIntegersAreWords) {
  Out o = run(R"(
#define NB 1000
typedef struct { int x, y, z; int number; long offset; } nei_t;
typedef struct { int x, y, z; int number; long offset; int nn; nei_t nei[26]; } box_t;
void gather(box_t *box, double *out, const double *q) {
  int l, k;
  #pragma omp parallel for private(k)
  for (l = 0; l < NB; l++) {
    double s = 0;
    for (k = 0; k < 26; k++)
      s += q[box[l].nei[k].number] + (double)box[l].offset;
    out[l] = s;
  }
}
)",
              [] {
                SkeletonizeOptions opts;
                opts.extents["q"] = {1000};
                return opts;
              }());
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "int box[NB][164] // 'box' is an array of 'box_t' taken as 164 words "
                          "of 'int' each: a field's offset in words is the last index (its "
                          "'long' fields read as the word each begins with)"))
      << o.text;
  EXPECT_TRUE(has(o.text, "ld q[box[l][11 + 6*k]]")) << o.text;
  EXPECT_TRUE(has(o.text, "ld box[l][4]")) << o.text;
}

// A field of a struct field (`p[i].pos.y`) is a word at the sum of the offsets.
TEST(StructArrays, AFieldOfAStructFieldIsAWord) {
  Out o = run(R"(
#define NUM 4096
typedef struct { float x, y, z; } vec;
typedef struct { vec pos; vec vel; int id; } particle;
particle ps[NUM];
void drift(void) {
  for (int i = 0; i < NUM; i++)
    ps[i].pos.y = ps[i].pos.y + ps[i].vel.y;
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "float ps[NUM][7]")) << o.text;
  EXPECT_TRUE(has(o.text, "ld ps[i][4]")) << o.text;
  EXPECT_TRUE(has(o.text, "st ps[i][1]")) << o.text;
}

// Traps: the nested field of the element before (a recurrence), and one
// neighbour's word written by every iteration.
TEST(StructArrays, ARecurrenceThroughANestedFieldIsRefused) {
  Out o = run(R"(
#define NB 1000
typedef struct { int number; long offset; } nei_t;
typedef struct { long offset; nei_t nei[4]; } box_t;
box_t boxes[NB];
void link(void) {
  #pragma omp parallel for
  for (int l = 1; l < NB; l++)
    boxes[l].nei[0].number = boxes[l - 1].nei[0].number + 1;
}
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "'boxes[l]' (written) and 'boxes[l - 1]' (read): a data race in the "
                           "OpenMP code"))
      << o.error;
}

TEST(StructArrays, ANestedWordEveryIterationWritesIsRefused) {
  Out o = run(R"(
#define NB 1000
typedef struct { int number; long offset; } nei_t;
typedef struct { long offset; nei_t nei[4]; } box_t;
box_t boxes[NB];
int val[NB];
void last(void) {
  for (int l = 0; l < NB; l++)
    boxes[0].nei[2].number = val[l];
}
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "not independent")) << o.error;
}

// The same rule for a plain local: declared without a value, assigned once by
// a statement of the body before every use (a thread count clamped from a
// size the file knows).
TEST(StructFields, ALocalAssignedOnceAtTheTopIsKnown) {
  SkeletonizeOptions opts;
  opts.extents["order"] = {508};
  Out o = run(R"(
#define COUNT 1000
void search(int order, int *restrict hits, const int *restrict keys) {
  int per_block;
  per_block = order < 1024 ? order : 1024;
  #pragma omp parallel for
  for (int b = 0; b < COUNT; b++)
    for (int t = 0; t < per_block; t++)
      hits[b] += keys[b * 1024 + t];
}
)",
              opts);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "0:508")) << o.text;
}

// Traps: used before its assignment, or assigned in a branch (or twice): no value.
TEST(StructFields, ALocalUsedBeforeItsAssignmentHasNoValue) {
  Out o = run(R"(
#define COUNT 1000
int hits[COUNT], keys[COUNT * 64];
void early(int big) {
  int per_block;
  for (int b = 0; b < COUNT; b++)
    for (int t = 0; t < per_block; t++)
      hits[b] += keys[b * 64 + t];
  per_block = 64;
}
void branch(int big) {
  int per_block;
  if (big)
    per_block = 64;
  for (int b = 0; b < COUNT; b++)
    for (int t = 0; t < per_block; t++)
      hits[b] += keys[b * 64 + t];
}
)");
  EXPECT_FALSE(has(o.text, "0:64")) << o.text;
  EXPECT_TRUE(has(o.diag + o.error, "6:3: warning: cannot port this loop")) << o.diag << o.error;
  EXPECT_TRUE(has(o.diag + o.error, "15:3: warning: cannot port this loop")) << o.diag << o.error;
}
