// docs/errors.md is the list of bad inputs and the message skelcast prints for
// each: this test reads its tables and runs every row (issue 7, item 3). A row
// is `| bad input | `skelcast ARGS` | `MESSAGE` |`; the command runs in-process
// from the repository root and must print MESSAGE and a newline on stderr (then,
// for a position in a text file, its source line and a caret line),
// nothing on stdout (batch: what it wrote), and exit with code 1. A message cell `FIRST` … `LAST`
// stands for several lines (Clang's own, with its caret lines, in between): the
// first line must be FIRST and the last LAST.
#include "skelcast/cli/Cli.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

struct Row {
  int line = 0;
  std::string input, command, message;
};

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

/// `x` without its enclosing backticks, or "" when it has none.
std::string code(const std::string &x) {
  if (x.size() >= 2 && x.front() == '`' && x.back() == '`')
    return x.substr(1, x.size() - 2);
  return "";
}

std::vector<Row> readRows() {
  std::ifstream in(kSrc + "/docs/errors.md");
  std::vector<Row> rows;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.rfind("| ", 0) != 0 || line.rfind("| ---", 0) == 0 || line.rfind("| bad input |", 0) == 0)
      continue;
    std::vector<std::string> cells;
    std::string body = line.substr(1, line.size() - (line.back() == '|' ? 2 : 1));
    size_t at = 0;
    while (true) {
      size_t bar = body.find(" | ", at);
      cells.push_back(trim(body.substr(at, bar == std::string::npos ? std::string::npos : bar - at)));
      if (bar == std::string::npos)
        break;
      at = bar + 3;
    }
    Row r;
    r.line = n;
    r.input = cells.size() > 0 ? cells[0] : "";
    r.command = cells.size() > 1 ? cells[1] : "";
    r.message = cells.size() > 2 ? cells[2] : "";
    if (cells.size() != 3)
      r.message = "(malformed row: " + std::to_string(cells.size()) + " cells)";
    rows.push_back(r);
  }
  return rows;
}

/// Shell-like words: split at spaces, '...' quotes a word with spaces.
std::vector<std::string> words(const std::string &s) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false, any = false;
  for (char c : s) {
    if (c == '\'') {
      quoted = !quoted;
      any = true;
    } else if (c == ' ' && !quoted) {
      if (any)
        out.push_back(cur);
      cur.clear();
      any = false;
    } else {
      cur += c;
      any = true;
    }
  }
  if (any)
    out.push_back(cur);
  return out;
}

class ErrorRow : public ::testing::Test {
public:
  explicit ErrorRow(Row r) : row_(std::move(r)) {}
  void TestBody() override {
    SCOPED_TRACE("docs/errors.md:" + std::to_string(row_.line) + ": " + row_.input);
    std::string cmd = code(row_.command), msg = code(row_.message), last;
    const std::string sep = "` … `";
    size_t ellipsis = row_.message.find(sep);
    if (ellipsis != std::string::npos) {
      msg = row_.message.substr(1, ellipsis - 1);
      last = code(row_.message.substr(ellipsis + sep.size() - 1));
      ASSERT_FALSE(last.empty()) << "message cell: " << row_.message;
    }
    ASSERT_EQ(cmd.rfind("skelcast ", 0), 0u) << "command cell: " << row_.command;
    ASSERT_FALSE(msg.empty()) << "message cell: " << row_.message;
    std::vector<std::string> args = words(cmd.substr(9));
    std::filesystem::current_path(kSrc);
    std::ostringstream out, err;
    int rc = skelcast::cli::runCli(args, out, err);
    EXPECT_EQ(rc, 1) << cmd;
    if (last.empty()) {
      // The message, then (for a position in a text file) its source line and a caret.
      // Notes before it (a loop ported as a reduction, with their source line and
      // caret) say what skelcast did on the way; the error is what the row documents.
      std::string e = err.str();
      while (e.find(": note: ") != std::string::npos && e.find(": note: ") < e.find('\n')) {
        size_t end = e.find('\n');
        for (int l = 0; l < 2 && end != std::string::npos; ++l)
          end = e.find('\n', end + 1);
        e = end == std::string::npos ? "" : e.substr(end + 1);
      }
      size_t nl = e.find('\n');
      EXPECT_EQ(e.substr(0, nl), msg) << cmd << "\nstderr:\n" << e;
      std::string rest = nl == std::string::npos ? "" : e.substr(nl + 1);
      if (!rest.empty()) {
        size_t l1 = rest.find('\n');
        std::string caret = l1 == std::string::npos ? "" : rest.substr(l1 + 1);
        EXPECT_TRUE(caret.size() >= 2 && caret.find_first_not_of(" \t") == caret.size() - 2 &&
                    caret.substr(caret.size() - 2) == "^\n")
            << cmd << ": after the message, one source line and a caret line\nstderr:\n" << e;
      }
    } else {
      std::string e = err.str();
      EXPECT_EQ(e.substr(0, e.find('\n')), msg) << cmd << "\nstderr:\n" << e;
      std::string tail = e.substr(0, e.empty() ? 0 : e.size() - 1);
      EXPECT_EQ(tail.substr(tail.rfind('\n') + 1), last) << cmd << "\nstderr:\n" << e;
      EXPECT_EQ(e.back(), '\n') << cmd;
    }
    // batch reports what it wrote even when one benchmark failed (the others ran).
    if (cmd.rfind("skelcast batch ", 0) != 0)
      EXPECT_EQ(out.str(), "") << cmd;
  }

private:
  Row row_;
};

std::string testName(const Row &r, size_t i) {
  std::string s = (i < 9 ? "0" : "") + std::to_string(i + 1) + "_" + r.input;
  std::string out;
  for (char c : s)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

// One test per row, registered before main runs (gtest_discover_tests lists them).
const bool kRegistered = [] {
  std::vector<Row> rows = readRows();
  for (size_t i = 0; i < rows.size(); ++i) {
    Row r = rows[i];
    ::testing::RegisterTest("ErrorsDoc", testName(r, i).c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [r]() -> ::testing::Test * { return new ErrorRow(r); });
  }
  return true;
}();

// The table is there and is read: a guard against a parser that finds nothing.
TEST(ErrorsDocTable, HasTheRowsOfEveryKindOfInput) {
  std::vector<Row> rows = readRows();
  size_t runnable = 0;
  for (const auto &r : rows)
    runnable += code(r.command).rfind("skelcast ", 0) == 0 ? 1 : 0;
  EXPECT_GE(runnable, 60u);
  for (const char *cmd : {"skelcast fmt ", "skelcast project ", "skelcast explain ", "skelcast hw show ",
                          "skelcast validate ", "skelcast batch ", "skelcast check "}) {
    bool empty = false, garbage = false;
    for (const auto &r : rows)
      if (code(r.command).rfind(cmd, 0) == 0) {
        empty = empty || r.message.find("empty file") != std::string::npos;
        garbage = garbage || code(r.command).find("garbage") != std::string::npos;
      }
    EXPECT_TRUE(empty && garbage) << cmd << "needs a row with an empty file and one with garbage";
  }
}

} // namespace
