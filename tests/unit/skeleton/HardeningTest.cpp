// Regression tests of the skeleton parser and checker found by fuzzing and by
// the hardening work (issue 7): each input once crashed skelcast, printed a
// wrong canonical form, or slipped through to an overflow later on; now it
// parses to the same IR again or is an InputError with a position.
#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Printer.h"
#include "skelcast/support/Diagnostic.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

using namespace skelcast;
using namespace skelcast::skeleton;

namespace {

/// Parsing must fail with exactly this message (after "file:line:col: error: ").
void expectError(const std::string &text, const std::string &message) {
  try {
    parseSkeleton(text, "h.skel");
    FAIL() << "expected: " << message;
  } catch (const InputError &e) {
    EXPECT_EQ(e.message(), message) << e.what();
    EXPECT_EQ(e.loc().file, "h.skel");
    EXPECT_GE(e.loc().line, 1) << e.what();
  }
}

/// Parsing must succeed and print then parse must give the same IR.
void expectRoundTrip(const std::string &text) {
  SkeletonFile f = parseSkeleton(text, "h.skel");
  std::string canon = printSkeleton(f);
  SkeletonFile g = parseSkeleton(canon, "h.skel");
  EXPECT_EQ(g, f) << canon;
  EXPECT_EQ(printSkeleton(g), canon);
}

std::string repeat(const std::string &s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += s;
  return out;
}

} // namespace

// Stack overflow (SIGSEGV) before: 100000 parentheses.
TEST(ParserHardening, DeepParenthesesAreRefused) {
  expectError("#define N " + repeat("(", 100000) + "1" + repeat(")", 100000) + "\n",
              "expression nested deeper than 256 levels");
}

// Stack overflow before: a long chain builds a deep tree without recursion in
// the parser, and every later stage (checker, evaluator, destructor) recursed.
TEST(ParserHardening, LongOperatorChainsAreRefused) {
  expectError("#define N 1" + repeat("+1", 200000) + "\n", "expression nested deeper than 256 levels");
  expectError("#define N 2" + repeat("*2", 300) + "\n", "expression nested deeper than 256 levels");
  expectError("#define N " + repeat("-", 100000) + "1\n", "expression nested deeper than 256 levels");
}

// Stack overflow before: 20000 nested loops.
TEST(ParserHardening, DeepBlocksAreRefused) {
  std::string text = "float A[8]\nparallel_for(8) : i {\n";
  for (int d = 0; d < 20000; ++d)
    text += "for k" + std::to_string(d) + " = 0:2 {\n";
  text += repeat("}\n", 20001);
  expectError(text, "blocks nested deeper than 256 levels");
}

// What is within the limits still parses (and the limits are not off by far).
TEST(ParserHardening, NestingWithinTheLimitParses) {
  expectRoundTrip("#define N " + repeat("(", 200) + "1" + repeat(")", 200) + "\n");
  expectRoundTrip("#define N 1" + repeat("+1", 200) + "\n");
  std::string text = "float A[8]\nparallel_for(8) : i {\n";
  for (int d = 0; d < 200; ++d)
    text += "for k" + std::to_string(d) + " = 0:2 {\n";
  text += "ld A[i]\n" + repeat("}\n", 201);
  expectRoundTrip(text);
}

// fuzz_skeleton: "A[--------0--N]" printed as "-------0 - -N", which parsed to
// another IR (a minus of a literal was one node when parsed and two when built).
TEST(ParserHardening, NegatedLiteralsRoundTrip) {
  expectRoundTrip("#define N((((((((1+2)*3)-0))))))\nfloat A[--------0--N]\n");
  expectRoundTrip("#define N -(5)\n#define M - -5\n#define K -(0)\nfloat A[1 - -N - M * -K + 8]\n");
  SkeletonFile f = parseSkeleton("#define N -(5)\n", "h.skel");
  EXPECT_EQ(printSkeleton(f), "#define N -5\n");
}

// Empty input parsed to nothing: `fmt` printed nothing and succeeded.
TEST(ParserHardening, EmptyFileIsAnError) {
  expectError("", "empty file");
  expectError(" \n\t\n", "empty file");
  // A file of comments alone is not empty.
  expectRoundTrip("// nothing yet\n");
}

// A directory read as an empty file before.
TEST(ParserHardening, DirectoryIsAnError) {
  std::string dir = std::string(SKELCAST_SOURCE_DIR) + "/skeletons";
  try {
    parseSkeletonFile(dir);
    FAIL();
  } catch (const InputError &e) {
    EXPECT_EQ(std::string(e.what()), dir + ": error: is a directory, not a file");
  }
}

// fuzz_skeleton: a sample file that is a device (/dev/full, /dev/zero) was read
// line by line for ever, a hang.
TEST(ParserHardening, ASampleFileThatIsADeviceIsAnError) {
  expectError("int M[8] : hints<sample=\"/dev/full\">\nfloat A[8]\n"
              "parallel_for(8) : i {\n  ld A[M[i]]\n}\n",
              "cannot open sample file '/dev/full': is a device, not a file");
}

// Signed overflow (undefined behaviour) in the analysis before: dimension sizes,
// trip counts and array sizes beyond 64 bits.
TEST(CheckHardening, SizesBeyond64BitsAreRefused) {
  expectError("float A[8]\nparallel_for(-9223372036854775807:9223372036854775807) : i {\n  st A[0]\n}\n",
              "loop space has more than 2^62 iterations");
  expectError("float A[8]\nparallel_for(4294967296, 4294967296) : i, j {\n  st A[0]\n}\n",
              "loop space has more than 2^62 iterations");
  expectError("float A[8]\nparallel_for(8) : i {\n  for k = -9223372036854775807:9223372036854775807 {\n"
              "    st A[0]\n  }\n}\n",
              "loop 'k' has more than 2^62 iterations");
  expectError("float A[8]\nparallel_for(8) : i {\n  for k = 0:4611686018427387905 {\n"
              "    st A[0]\n  }\n}\n",
              "loop 'k' has more than 2^62 iterations");
  expectError("float A[2147483648][2147483648]\n", "array 'A' holds more than 2^62 bytes");
  expectError("char A[4611686018427387904][2]\n", "array 'A' holds more than 2^62 bytes");
  // an indexed repeat whose loop space is not affine in its index: the
  // largest pass lies between the first and the last (1, 2^61 + 1, 2^62 + 1, 1)
  expectError("#define B 2305843009213693952\nfloat A[4]\nrepeat k = 0:4 {\n"
              "  parallel_for f(0:1 + (k % 3) * B) : i {\n    ld A[0]\n  }\n}\n",
              "loop space has more than 2^62 iterations");
}

// The largest sizes that are accepted.
TEST(CheckHardening, SizesAtTheLimitsParse) {
  expectRoundTrip("char A[4611686018427387904]\nparallel_for(2147483648, 2147483648) : i, j {\n  st A[i]\n}\n");
  expectRoundTrip("float A[2147483648][268435456]\nparallel_for(8) : i {\n"
                  "  for k = 0:4611686018427387904 {\n    ld A[i][0]\n  }\n}\n");
}
