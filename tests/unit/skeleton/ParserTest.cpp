#include "skelcast/skeleton/Eval.h"
#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Printer.h"
#include "skelcast/support/TextFile.h"

#include "../support/TempDir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace skelcast;
using namespace skelcast::skeleton;

namespace {

SkeletonFile parse(const std::string &text) { return parseSkeleton(text, "t.skel"); }

const char *kAllElements = R"(// file comment
#define ROWS 132
#define COLS (2048*2)
#define HALF COLS/2 - 1 // trailing comment
int J[ROWS + 1]
int Idx[ROWS]
float B[ROWS][COLS][2]
double D[ROWS]
char Ch[4]
short Sh[4]
long L[4]
parallel_for spmv(ROWS, 1:COLS - 1) : j, i {
  ld J[j]
  begin = J[j]
  end = J[j + 1]
  comp 4
  stream n = begin:end (hint:14) {
    ld Idx[n]
    r = Idx[n]
    ld B[r][i][0]
    ld B[Idx[n]][i % 7][1]
    comp 22
  }
  for m = 0:4:2 {
    comp 1
  }
  if (p=0.25) {
    st D[j]
  } else {
    comp 3
  }
  /* closing */
}
parallel_for(ROWS) : x {
  st Ch[x/64]
}
)";

} // namespace

TEST(Parser, EveryElement) {
  SkeletonFile f = parse(kAllElements);
  ASSERT_EQ(f.macros.size(), 3u);
  EXPECT_EQ(f.macros[2].comments.trailing, "// trailing comment");
  EXPECT_EQ(f.macros[0].comments.leading, std::vector<std::string>{"// file comment"});
  MacroTable m = evalMacros(f);
  EXPECT_EQ(m["COLS"], 4096);
  EXPECT_EQ(m["HALF"], 2047);
  ASSERT_EQ(f.arrays.size(), 7u);
  EXPECT_EQ(f.arrays[2].extents.size(), 3u);
  EXPECT_EQ(elemBytes(f.arrays[3].type), 8);
  EXPECT_EQ(elemBytes(f.arrays[4].type), 1);
  EXPECT_EQ(elemBytes(f.arrays[5].type), 2);
  EXPECT_EQ(elemBytes(f.arrays[6].type), 8);
  ASSERT_EQ(f.kernels.size(), 2u);
  const Kernel &k = f.kernels[0];
  EXPECT_EQ(k.name, "spmv");
  EXPECT_EQ(f.kernelName(1), "kernel1");
  ASSERT_EQ(k.dims.size(), 2u);
  ASSERT_TRUE(k.dims[1].lo.has_value());
  EXPECT_EQ(k.indices, (std::vector<std::string>{"j", "i"}));
  ASSERT_EQ(k.body.size(), 7u);
  EXPECT_EQ(k.body[0].kind, Stmt::Kind::Mem);
  EXPECT_FALSE(k.body[0].mem.isStore);
  EXPECT_EQ(k.body[1].kind, Stmt::Kind::Bind);
  EXPECT_EQ(k.body[1].bindName, "begin");
  const Loop &s = k.body[4].loop;
  EXPECT_TRUE(s.isStream);
  EXPECT_EQ(s.tripHint, 14);
  ASSERT_EQ(s.body.size(), 5u);
  EXPECT_EQ(s.body[3].mem.index[0].kind, Expr::Kind::Access); // indirect through an access
  EXPECT_EQ(s.body[2].mem.index[0].kind, Expr::Kind::Name);   // indirect through a scalar
  const Loop &fl = k.body[5].loop;
  EXPECT_FALSE(fl.isStream);
  ASSERT_TRUE(fl.step.has_value());
  const Branch &b = k.body[6].branch;
  EXPECT_DOUBLE_EQ(b.prob, 0.25);
  EXPECT_TRUE(b.hasElse);
  EXPECT_EQ(k.closingComments, std::vector<std::string>{"/* closing */"});
  EXPECT_TRUE(f.kernels[1].body[0].mem.isStore);
}

TEST(Parser, RoundTripOfEveryElement) {
  SkeletonFile f = parse(kAllElements);
  std::string once = printSkeleton(f);
  SkeletonFile g = parse(once);
  EXPECT_EQ(f, g) << once;
  EXPECT_EQ(once, printSkeleton(g));
}

TEST(Parser, ExpressionPrecedenceSurvivesPrinting) {
  SkeletonFile f = parse("#define A 10\n#define B (A - (3 - 1))*2\n#define C -A % 3\n#define D A - -1\n");
  EXPECT_EQ(printExpr(f.macros[1].value), "(A - (3 - 1))*2");
  EXPECT_EQ(evalMacros(f)["B"], 16);
  EXPECT_EQ(evalMacros(f)["C"], -1);
  EXPECT_EQ(evalMacros(f)["D"], 11);
  EXPECT_EQ(parse(printSkeleton(f)), f);
}

TEST(Parser, PaperListingsAsInReference) {
  // Listing 2 exactly as the reference page writes it (no kernel name).
  const char *l2 = R"(#define N 800
#define K 400
#define M 800
float A[N][K]
float B[K][M]
float C[N][M]
parallel_for(N, M) : i, j {
  comp 1
  stream k = 0:K {
    ld A[i][k]
    ld B[k][j]
    comp 3
  }
  comp 5
  st C[i][j]
}
)";
  SkeletonFile f = parse(l2);
  EXPECT_EQ(f.kernelName(0), "kernel0");
  EXPECT_EQ(f.kernels[0].body.size(), 4u);
}

TEST(Parser, BundledSkeletonsRoundTripAndAreCanonical) {
  namespace fs = std::filesystem;
  int n = 0;
  for (const auto &e : fs::directory_iterator(fs::path(SKELCAST_SOURCE_DIR) / "skeletons")) {
    if (e.path().extension() != ".skel")
      continue;
    ++n;
    std::string text = readTextFile(e.path().string());
    SkeletonFile f = parseSkeleton(text, e.path().string());
    std::string printed = printSkeleton(f);
    EXPECT_EQ(parseSkeleton(printed, e.path().string()), f) << e.path();
    EXPECT_EQ(printed, text) << e.path() << " is not in canonical form";
  }
  EXPECT_GE(n, 5);
}

TEST(Parser, SampleFileResolvedRelativeToSkeleton) {
  namespace fs = std::filesystem;
  testsupport::TempDir tmp("skelcast-sample-test");
  const fs::path &dir = tmp.path();
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "sub" / "m.txt") << "0 1\n2 3\n";
  std::string skel = (dir / "k.skel").string();
  std::string text = "int M[2][2] : hints<sample=\"sub/m.txt\">\nfloat A[4]\n"
                     "parallel_for(2) : i {\n  ld A[M[i][0]]\n}\n";
  EXPECT_NO_THROW(parseSkeleton(text, skel));
  // A value outside the indexed dimension names the sample file and its line.
  std::ofstream(dir / "sub" / "m.txt") << "0 1\n2 9\n";
  try {
    parseSkeleton(text, skel);
    FAIL() << "expected an error";
  } catch (const InputError &e) {
    EXPECT_EQ(e.loc().file, (dir / "sub" / "m.txt").string());
    EXPECT_EQ(e.loc().line, 2);
    EXPECT_NE(e.message().find("sample value 9 is outside dimension 1 of 'A'"), std::string::npos)
        << e.message();
  }
}

// ---- malformed inputs: each asserts line, column and message -------------------

struct BadCase {
  const char *name;
  std::string text;
  int line, col;
  const char *message; ///< a substring of the message
};

class Malformed : public ::testing::TestWithParam<BadCase> {};

TEST_P(Malformed, IsPositionedError) {
  const BadCase &c = GetParam();
  try {
    parse(c.text);
    FAIL() << "expected an error for: " << c.text;
  } catch (const InputError &e) {
    EXPECT_EQ(e.loc().file, "t.skel");
    EXPECT_EQ(e.loc().line, c.line) << e.what();
    EXPECT_EQ(e.loc().col, c.col) << e.what();
    EXPECT_NE(e.message().find(c.message), std::string::npos)
        << "expected message containing '" << c.message << "', got '" << e.message() << "'";
  }
}

const char *kArr = "float A[8][8]\n";

INSTANTIATE_TEST_SUITE_P(
    Skeleton, Malformed,
    ::testing::Values(
        BadCase{"UndeclaredName", "float A[8][8]\nparallel_for(8, 8) : i, j {\n  ld A[i][q]\n}\n", 3,
                11, "undeclared name 'q'"},
        BadCase{"UndeclaredArray", "parallel_for(8) : i {\n  ld Z[i]\n}\n", 2, 3,
                "undeclared array 'Z'"},
        BadCase{"WrongIndexCount", "float A[8][8]\nparallel_for(8) : i {\n  st A[i]\n}\n", 3, 3,
                "array 'A' has 2 dimensions but 1 indices are given"},
        BadCase{"NonPositiveExtent", "#define N 0\nfloat A[N]\n", 2, 9,
                "extent of array 'A' must be positive, is 0"},
        BadCase{"NegativeExtent", "float A[3 - 5]\n", 1, 11, "must be positive, is -2"},
        BadCase{"MacroDivByZero", "#define N 4\n#define Z N/(N - 4)\n", 2, 12, "division by zero"},
        BadCase{"IndexDivByZero", "float A[8]\nparallel_for(8) : i {\n  ld A[i/0]\n}\n", 3, 9,
                "division by zero"},
        BadCase{"IndexReusedInScope",
                "float A[8]\nparallel_for(8) : i {\n  stream i = 0:8 {\n    ld A[i]\n  }\n}\n", 3,
                3, "loop index 'i' is already declared in this scope"},
        BadCase{"DuplicateParallelIndex", "parallel_for(8, 8) : i, i {\n  comp 1\n}\n", 1, 1,
                "index 'i' is already declared"},
        BadCase{"NegativeComp", "parallel_for(8) : i {\n  comp -3\n}\n", 2, 3,
                "instruction count must not be negative, is -3"},
        BadCase{"MissingBracket", "float A[8\n", 2, 1, "expected ']' after the index"},
        BadCase{"UnknownStatement", "parallel_for(8) : i {\n  load A[i]\n}\n", 2, 3,
                "expected a statement"},
        BadCase{"UnclosedBlock", "parallel_for(8) : i {\n  comp 1\n", 3, 1,
                "expected '}' to close the block, found end of file"},
        BadCase{"TooManyDims", "parallel_for(2, 2, 2, 2) : a, b, c, d {\n  comp 1\n}\n", 1, 1,
                "parallel_for must have 1 to 3 dimensions, has 4"},
        BadCase{"IndexCountMismatch", "parallel_for(2, 2) : a {\n  comp 1\n}\n", 1, 1,
                "parallel_for has 2 dimensions but 1 index names"},
        BadCase{"BadProbability", "parallel_for(8) : i {\n  if (p=1.5) {\n    comp 1\n  }\n}\n",
                2, 3, "branch probability must be within [0, 1], is 1.5"},
        BadCase{"DataBoundWithoutHint",
                "int J[9]\nparallel_for(8) : j {\n  b = J[j]\n  stream n = 0:b {\n    comp 1\n  "
                "}\n}\n",
                4, 3, "bounds of loop 'n' depend on data ('b'): add a trip-count hint"},
        BadCase{"UnknownDirective", "#include <x>\n", 1, 1,
                "unknown directive '#include', expected '#define'"},
        BadCase{"BadCharacter", "float A[8] @\n", 1, 12, "unexpected character '@'"},
        BadCase{"UnknownType", "quad A[8]\n", 1, 1,
                "expected '#define', an array declaration, 'parallel_for', 'repeat' or 'host', found 'quad'"},
        BadCase{"MissingSampleFile", "int M[4] : hints<sample=\"nope.txt\">\n", 1, 1,
                "cannot open sample file 'nope.txt'"},
        BadCase{"UnterminatedComment", "/* never closed\nfloat A[8]\n", 1, 1,
                "unterminated comment, expected '*/'"},
        BadCase{"MacroRedefined", "#define N 1\n#define N 2\n", 2, 1,
                "macro 'N' is already declared"},
        BadCase{"EmptyLoopSpace", "parallel_for(5:5) : i {\n  comp 1\n}\n", 1, 16,
                "loop space dimension must be non-empty, is 5:5"},
        BadCase{"ArrayWithoutIndex", "float A[8]\nparallel_for(8) : i {\n  ld A[A]\n}\n", 3, 8,
                "array 'A' used without an index"},
        BadCase{"MacroOverflow", "#define N 4611686018427387904*4\n", 1, 30, "integer overflow"},
        BadCase{"MissingColonInLoop", "parallel_for(8) : i {\n  stream k = 0 8 {\n  }\n}\n", 2,
                16, "expected ':' between the loop bounds, found '8'"},
        BadCase{"KeywordAsName", "float for[8]\n", 1, 7,
                "expected an array name, found keyword 'for'"},
        BadCase{"NulByte", std::string("float A[8]\n\0", 12), 2, 1, "unexpected NUL byte"},
        BadCase{"MissingMacroValue", "#define N\nfloat A[8]\n", 1, 9,
                "expected the value of macro 'N' on the same line"},
        BadCase{"NegativeHint", "parallel_for(8) : i {\n  stream k = 0:8 (hint:-1) {\n  }\n}\n", 2,
                3, "trip-count hint must not be negative, is -1"}),
    [](const ::testing::TestParamInfo<BadCase> &i) { return std::string(i.param.name); });

TEST(Parser, EveryTruncationAndByteFlipIsAnErrorOrAValidFile) {
  // Deterministic mutations of a bundled skeleton: parsing either succeeds or
  // throws InputError with a position; it never crashes or throws anything else.
  std::string text = readTextFile(std::string(SKELCAST_SOURCE_DIR) + "/skeletons/ispinex_complex.skel");
  auto attempt = [](const std::string &t) {
    try {
      SkeletonFile f = parseSkeleton(t, "m.skel");
      EXPECT_EQ(parseSkeleton(printSkeleton(f), "m.skel"), f);
    } catch (const InputError &e) {
      EXPECT_EQ(e.loc().file, "m.skel");
      EXPECT_GE(e.loc().line, 1) << e.what();
    }
  };
  for (size_t n = 0; n <= text.size(); n += 3)
    attempt(text.substr(0, n));
  const char junk[] = {'{', '}', '[', ']', '(', ')', ':', '=', '-', '#', '/', '*', '9', 'x', '\n', '"', '\x01'};
  for (size_t i = 0; i < text.size(); i += 7) {
    std::string t = text;
    t[i] = junk[i % sizeof(junk)];
    attempt(t);
  }
}

TEST(Parser, ProgramsWithMarksAndRepeat) {
  const char *text = R"(#define N 64
#define STEPS 10

in float power[N][N]
inout float temp[N][N]
float result[N][N]
out float in[N]

parallel_for init(N) : i {
  st in[i]
}

repeat STEPS {
  parallel_for step(N, N) : i, j {
    ld temp[i][j]
    ld power[i][j]
    st result[i][j]
  }

  // copy back
  parallel_for back(N, N) : i, j {
    ld result[i][j]
    st temp[i][j]
  }
}
)";
  SkeletonFile f = parse(text);
  ASSERT_EQ(f.repeats.size(), 1u);
  EXPECT_EQ(f.repeats[0].kernels, (std::vector<size_t>{1, 2}));
  EXPECT_EQ(f.arrays[0].mark, HostMark::In);
  EXPECT_EQ(f.arrays[1].mark, HostMark::InOut);
  EXPECT_EQ(f.arrays[2].mark, HostMark::None);
  EXPECT_EQ(f.arrays[3].mark, HostMark::Out);
  EXPECT_EQ(f.arrays[3].name, "in"); // 'in' stays usable as a name
  EXPECT_EQ(f.kernels[2].comments.leading, std::vector<std::string>{"// copy back"});
  std::string printed = printSkeleton(f);
  EXPECT_EQ(printed, text);
  EXPECT_EQ(parse(printed), f);
}

namespace {
/// `t` is refused at line:col with a message holding `msg`.
void expectError(const std::string &t, int line, int col, const std::string &msg) {
  try {
    parse(t);
    FAIL() << t;
  } catch (const InputError &e) {
    EXPECT_EQ(e.loc().line, line) << e.what();
    EXPECT_EQ(e.loc().col, col) << e.what();
    EXPECT_NE(e.message().find(msg), std::string::npos) << e.what();
  }
}
} // namespace

TEST(Parser, RepeatErrors) {
  expectError("repeat 0 {\n  parallel_for(4) : i {\n    comp 1\n  }\n}\n", 1, 8,
              "repeat count must be at least 1, is 0");
  expectError("repeat 2 {\n}\n", 1, 1, "'repeat' needs at least one kernel");
  expectError("repeat 2 {\n  float A[4]\n}\n", 2, 3, "expected 'parallel_for' or 'host' inside 'repeat'");
  expectError("inout A[4]\n", 1, 1, "expected '#define', an array declaration");
}

TEST(Parser, HostSteps) {
  // Host steps between kernels and inside a repeat, in program order: each
  // knows the kernels before it and its repeat; the canonical form keeps them.
  const char *text = R"(#define N 64

inout float u[N]
float err[1]
float host[N]

parallel_for init(N) : i {
  st u[i]
}

host writes u, host

repeat 5 {
  host reads u

  parallel_for step(N) : i {
    ld u[i]
    st err[0]
  }

  // the convergence test
  host reads err // each step
}

host reads u
)";
  SkeletonFile f = parse(text);
  ASSERT_EQ(f.hostSteps.size(), 4u);
  EXPECT_TRUE(f.hostSteps[0].writes);
  EXPECT_EQ(f.hostSteps[0].arrays, (std::vector<std::string>{"u", "host"}));
  EXPECT_EQ(f.hostSteps[0].beforeKernel, 1u);
  EXPECT_EQ(f.hostSteps[0].repeat, -1);
  EXPECT_EQ(f.hostSteps[0].arrayLocs[1].col, 16);
  EXPECT_FALSE(f.hostSteps[1].writes);
  EXPECT_EQ(f.hostSteps[1].beforeKernel, 1u);
  EXPECT_EQ(f.hostSteps[1].repeat, 0);
  EXPECT_EQ(f.hostSteps[2].beforeKernel, 2u);
  EXPECT_EQ(f.hostSteps[2].repeat, 0);
  EXPECT_EQ(f.hostSteps[2].comments.leading, std::vector<std::string>{"// the convergence test"});
  EXPECT_EQ(f.hostSteps[2].comments.trailing, "// each step");
  EXPECT_EQ(f.hostSteps[3].beforeKernel, 2u);
  EXPECT_EQ(f.hostSteps[3].repeat, -1);
  EXPECT_EQ(f.repeats[0].hostSteps, (std::vector<size_t>{1, 2}));
  std::string printed = printSkeleton(f);
  EXPECT_EQ(printed, text);
  EXPECT_EQ(parse(printed), f);
}

TEST(Parser, HostStepErrors) {
  expectError("float a[4]\nhost reads a, b\n", 2, 15, "'host reads' names 'b', which is not a declared array");
  expectError("float a[4]\nhost writes\n", 3, 1, "expected an array name after 'host writes', found end of file");
  expectError("float a[4]\nhost reads a,\nfloat b[4]\n", 3, 1, "expected an array name after 'host reads', found keyword 'float'");
  expectError("float a[4]\nhost copies a\n", 2, 1, "expected '#define', an array declaration");
}

// The dataflow of programs (docs/model.md, section 9) reads a kernel's loads and
// stores in this order: inside loops once, a branch's then-arm before its else-arm.
TEST(Skeleton, MemTouchesListLoadsAndStoresInStatementOrder) {
  SkeletonFile f = parse("float a[8]\nfloat b[8]\nfloat c[8]\n"
                         "parallel_for(8) : i {\n"
                         "  ld a[i]\n"
                         "  for k = 0:2 {\n    ld b[k]\n    st c[i]\n  }\n"
                         "  if (p=0.5) {\n    st a[i]\n  } else {\n    ld c[i]\n  }\n"
                         "  comp 2\n"
                         "  st b[i]\n"
                         "}\n");
  std::vector<std::pair<std::string, bool>> got;
  for (const auto &t : memTouches(f.kernels[0].body))
    got.push_back({t.array, t.isStore});
  std::vector<std::pair<std::string, bool>> want = {
      {"a", false}, {"b", false}, {"c", true}, {"a", true}, {"c", false}, {"b", true}};
  EXPECT_EQ(got, want);
}

// `comp N (fp64:M)`: M of the N instructions issue at the FP64 rate.
TEST(Parser, CompWithAnFp64Count) {
  std::string text = "double a[8]\n\nparallel_for(8) : i {\n  comp 5 (fp64:2) // two DADD\n"
                     "  comp 3\n  st a[i]\n}\n";
  SkeletonFile f = parse(text);
  ASSERT_EQ(f.kernels[0].body.size(), 3u);
  EXPECT_EQ(f.kernels[0].body[0].comp, 5);
  EXPECT_EQ(f.kernels[0].body[0].fp64, 2);
  EXPECT_EQ(f.kernels[0].body[1].fp64, 0);
  EXPECT_EQ(printSkeleton(f), text);
  expectError("float a[8]\nparallel_for(8) : i {\n  comp 5 (fp64:-1)\n}\n", 3, 3,
              "FP64 count must be within [0, 5] (the instructions of the 'comp'), is -1");
  expectError("float a[8]\nparallel_for(8) : i {\n  comp 5 (fp32:1)\n}\n", 3, 11,
              "expected 'fp64' in 'comp N (fp64:M)', found 'fp32'");
  expectError("float a[8]\nparallel_for(8) : i {\n  comp 5 (fp64:1\n}\n", 4, 1,
              "expected ')' to close '(fp64:M)', found '}'");
}

// Large skeletons (issue 17, item 3): the IR takes about 100 bytes per byte of
// text, so a 50 MB file took 10 GB to format. Beyond the documented bounds the
// parser refuses at once, before lexing.
TEST(Parser, RefusesTextBeyondTheSkeletonBound) {
  std::string text = "float A[8]\n";
  text += std::string(kMaxSkeletonBytes, ' ');
  try {
    parseSkeleton(text, "big.skel");
    FAIL() << "expected a refusal";
  } catch (const InputError &e) {
    EXPECT_EQ(std::string(e.what()),
              "big.skel: error: larger than 8 MiB, more than a skeleton skelcast reads "
              "(docs/performance.md, \"Large skeletons\")");
  }
}

TEST(Parser, RefusesMoreKernelsThanTheBound) {
  std::string text = "float A[8]\n";
  for (size_t k = 0; k <= kMaxKernels; ++k)
    text += k % 2 ? "parallel_for(8) : i {\n  ld A[i]\n}\n" : "repeat 2 {\nparallel_for(8) : i {\n  st A[i]\n}\n}\n";
  try {
    parseSkeleton(text, "many.skel");
    FAIL() << "expected a refusal";
  } catch (const InputError &e) {
    EXPECT_EQ(e.message(), "more than 20000 kernels in one file, more than skelcast projects at once "
                           "(docs/performance.md, \"Large skeletons\"): split the file");
    EXPECT_GT(e.loc().line, 40000);
  }
  // At the bound it is read.
  std::string ok = "float A[8]\n";
  for (size_t k = 0; k < kMaxKernels; ++k)
    ok += "parallel_for(8) : i {\n  ld A[i]\n}\n";
  EXPECT_EQ(parseSkeleton(ok, "ok.skel").kernels.size(), kMaxKernels);
}

// `comp N (fp64:M, lit64:K)`: K 64-bit literals among the FP64 operands, at
// most three an FP64 instruction; printed back as written, 0 not printed.
TEST(Parser, CompWithSixtyFourBitLiterals) {
  std::string text = "double a[8]\n\nparallel_for(8) : i {\n  comp 4 (fp64:4, lit64:8)\n  st a[i]\n}\n";
  SkeletonFile f = parse(text);
  EXPECT_EQ(f.kernels[0].body[0].fp64, 4);
  EXPECT_EQ(f.kernels[0].body[0].lit64, 8);
  EXPECT_EQ(printSkeleton(f), text);
  EXPECT_EQ(printSkeleton(parse("double a[8]\n\nparallel_for(8) : i {\n  comp 4 (fp64:4, lit64:0)\n  st a[i]\n}\n")),
            "double a[8]\n\nparallel_for(8) : i {\n  comp 4 (fp64:4)\n  st a[i]\n}\n");
  expectError("double a[8]\nparallel_for(8) : i {\n  comp 4 (fp64:1, lit64:4)\n}\n", 3, 3,
              "64-bit literal count must be within [0, 3] (three operands of each FP64 instruction), is 4");
  expectError("double a[8]\nparallel_for(8) : i {\n  comp 4 (fp64:1, lit32:1)\n}\n", 3, 19,
              "expected 'lit64' in 'comp N (fp64:M, lit64:K)', found 'lit32'");
  expectError("double a[8]\nparallel_for(8) : i {\n  comp 4 (fp64:1, lit64:1\n}\n", 4, 1,
              "expected ')' to close '(fp64:M, lit64:K)', found '}'");
}

// `comp N (chain:C)`: the cycles of the stretch's dependent chain, alone or
// after `fp64:M` and `lit64:K`; printed back in that order, 0 not printed.
TEST(Parser, CompWithAChain) {
  for (const char *comp : {"comp 41 (chain:216)", "comp 41 (chain:146, waits:2)", "comp 17 (fp64:16, chain:160)",
                           "comp 17 (fp64:16, chain:125, waits:1)", "comp 4 (fp64:4, lit64:2, chain:90)",
                           "comp 0 (chain:58, waits:1)"}) {
    std::string text = std::string("double a[8]\n\nparallel_for(8) : i {\n  ") + comp + "\n  st a[i]\n}\n";
    SkeletonFile f = parse(text);
    EXPECT_GT(f.kernels[0].body[0].chain, 0) << comp;
    EXPECT_EQ(f.kernels[0].body[0].chainWaits > 0, std::string(comp).find("waits") != std::string::npos) << comp;
    EXPECT_EQ(printSkeleton(f), text);
  }
  EXPECT_EQ(parse("double a[8]\nparallel_for(8) : i {\n  comp 4 (fp64:4, lit64:2, chain:90)\n}\n").kernels[0].body[0].chain, 90);
  EXPECT_EQ(printSkeleton(parse("double a[8]\n\nparallel_for(8) : i {\n  comp 4 (chain:0)\n  st a[i]\n}\n")),
            "double a[8]\n\nparallel_for(8) : i {\n  comp 4\n  st a[i]\n}\n");
  expectError("float a[8]\nparallel_for(8) : i {\n  comp 5 (chain:-3)\n}\n", 3, 3,
              "chain cycles must be within [0, 1000000000], is -3");
  expectError("float a[8]\nparallel_for(8) : i {\n  comp 5 (chain:2000000000)\n}\n", 3, 3,
              "chain cycles must be within [0, 1000000000], is 2000000000");
  expectError("float a[8]\nparallel_for(8) : i {\n  comp 5 (chain:7\n}\n", 4, 1,
              "expected ')' to close '(chain:C)', found '}'");
  expectError("float a[8]\nparallel_for(8) : i {\n  comp 5 (fp64:1, lit64:1, chian:7)\n}\n", 3, 28,
              "expected 'chain' in 'comp N (fp64:M, lit64:K, chain:C)', found 'chian'");
  expectError("float a[8]\nparallel_for(8) : i {\n  comp 5 (chain:7, waits:-1)\n}\n", 3, 3,
              "chain waits must be within [0, 1000000], is -1");
  expectError("float a[8]\nparallel_for(8) : i {\n  comp 5 (chain:7, wait:1)\n}\n", 3, 20,
              "expected 'waits' in 'comp N (chain:C, waits:L)', found 'wait'");
  expectError("float a[8]\nparallel_for(8) : i {\n  comp 5 (chain:7, waits:1\n}\n", 4, 1,
              "expected ')' to close '(chain:C, waits:L)', found '}'");
}
