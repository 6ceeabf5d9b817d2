// renderDiagnostic: Clang's form, the source line and a caret under the column
// (issue 20, item 6).
#include "skelcast/support/Diagnostic.h"

#include <gtest/gtest.h>

using namespace skelcast;

TEST(DiagnosticRender, LineAndCaretUnderTheColumn) {
  std::string src = "array A[N]\nkernel f {\n  load B[i]\n}\n";
  EXPECT_EQ(renderDiagnostic(Severity::Error, {"f.skel", 3, 8}, "undeclared array 'B'", &src, false),
            "f.skel:3:8: error: undeclared array 'B'\n  load B[i]\n       ^\n");
}

TEST(DiagnosticRender, TabsAreKeptSoTheCaretLinesUp) {
  std::string src = "int f() {\n\tfor (i = 0;\ti < n; ++i)\n}\n";
  EXPECT_EQ(renderDiagnostic(Severity::Warning, {"t.c", 2, 14}, "w", &src, false),
            "t.c:2:14: warning: w\n\tfor (i = 0;\ti < n; ++i)\n\t           \t^\n");
}

TEST(DiagnosticRender, NoSnippetWithoutLineColumnOrSource) {
  std::string src = "one line\n";
  EXPECT_EQ(renderDiagnostic(Severity::Error, {"f", 0, 0}, "m", &src, false), "f: error: m\n");
  EXPECT_EQ(renderDiagnostic(Severity::Error, {"f", 1, 0}, "m", &src, false), "f:1: error: m\n");
  EXPECT_EQ(renderDiagnostic(Severity::Error, {"f", 1, 2}, "m", nullptr, false), "f:1:2: error: m\n");
  EXPECT_EQ(renderDiagnostic(Severity::Error, {"f", 5, 1}, "m", &src, false), "f:5:1: error: m\n");
  // a column past the end of the line (a file changed since): no caret
  EXPECT_EQ(renderDiagnostic(Severity::Error, {"f", 1, 40}, "m", &src, false), "f:1:40: error: m\n");
}

TEST(DiagnosticRender, ColumnJustPastTheEndPointsAtTheEnd) {
  std::string src = "kernel f {";
  EXPECT_EQ(renderDiagnostic(Severity::Error, {"f", 1, 11}, "m", &src, false),
            "f:1:11: error: m\nkernel f {\n          ^\n");
}

TEST(DiagnosticRender, BinaryLinesAreNotShown) {
  std::string src = std::string("ab\x01") + "cd\n";
  EXPECT_EQ(renderDiagnostic(Severity::Error, {"f", 1, 2}, "m", &src, false), "f:1:2: error: m\n");
}

TEST(DiagnosticRender, ColoursAsClang) {
  std::string src = "x\n";
  std::string t = renderDiagnostic(Severity::Error, {"f", 1, 1}, "m", &src, true);
  EXPECT_EQ(t, "\033[1mf:1:1:\033[0m \033[1;31merror:\033[0m \033[1mm\033[0m\nx\n\033[1;32m^\033[0m\n");
  std::string w = renderDiagnostic(Severity::Warning, {"f", 0, 0}, "m", nullptr, true);
  EXPECT_NE(w.find("\033[1;35mwarning:"), std::string::npos);
}

TEST(DiagnosticRender, SourceLineCrlf) {
  std::string line;
  ASSERT_TRUE(sourceLine("a\r\nbc\r\n", 2, line));
  EXPECT_EQ(line, "bc");
  EXPECT_FALSE(sourceLine("a\n", 2, line));
  EXPECT_FALSE(sourceLine("a\n", 0, line));
}

TEST(DiagnosticRender, Utf8IsShownAndOtherBytesAreNot) {
  std::string ok = "// caf\xc3\xa9\n";
  EXPECT_NE(renderDiagnostic(Severity::Error, {"f", 1, 1}, "m", &ok, false).find("caf"), std::string::npos);
  std::string bad = "\x89PNG\n";
  EXPECT_EQ(renderDiagnostic(Severity::Error, {"f", 1, 1}, "m", &bad, false), "f:1:1: error: m\n");
}
