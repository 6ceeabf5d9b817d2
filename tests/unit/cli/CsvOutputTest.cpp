// Every CSV skelcast writes is RFC 4180 (issue 17, item 13): `project --format
// csv` did not quote its fields, so a path with a comma made 12 fields under an
// 11-column header.
#include "../support/CliRun.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

using skelcast::testsupport::CliRun;
using skelcast::testsupport::run;

const std::string kSrc = SKELCAST_SOURCE_DIR;

/// The records of an RFC 4180 text, each a list of unquoted fields.
std::vector<std::vector<std::string>> parseCsv(const std::string &text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cur;
  bool quoted = false, wasQuoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      EXPECT_TRUE(cur.empty() && !wasQuoted) << "a quote inside an unquoted field at byte " << i;
      quoted = wasQuoted = true;
    } else if (c == ',') {
      row.push_back(cur);
      cur.clear();
      wasQuoted = false;
    } else if (c == '\n') {
      row.push_back(cur);
      rows.push_back(row);
      row.clear();
      cur.clear();
      wasQuoted = false;
    } else {
      cur += c;
    }
  }
  EXPECT_FALSE(quoted) << "unterminated quoted field";
  EXPECT_TRUE(cur.empty() && row.empty()) << "the last record has no line break";
  return rows;
}

TEST(CsvOutput, ProjectQuotesAPathWithACommaAndAQuote) {
  auto dir = std::filesystem::temp_directory_path() / "skelcast csv, \"test\"";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string skel = (dir / "mat,mul.skel").string();
  std::filesystem::copy_file(kSrc + "/skeletons/matmul.skel", skel);
  CliRun r = run({"project", skel, "--format", "csv", "--top", "3"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto rows = parseCsv(r.out);
  ASSERT_EQ(rows.size(), 4u) << r.out;
  for (const auto &row : rows)
    EXPECT_EQ(row.size(), rows.front().size()) << r.out;
  EXPECT_EQ(rows[1][1], skel);
  EXPECT_EQ(rows[1][4].rfind("block=", 0), 0u) << rows[1][4];
  std::filesystem::remove_all(dir);
}

TEST(CsvOutput, BatchCsvHasAsManyFieldsInEveryRecordAsInItsHeader) {
  auto dir = std::filesystem::temp_directory_path() / "skelcast-csv-batch";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "suite");
  std::filesystem::copy_file(kSrc + "/skeletons/matmul.skel", dir / "suite" / "m,m.skel");
  CliRun r = run({"batch", (dir / "suite").string(), "--out", (dir / "out").string(), "--top", "2"});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::ifstream in(dir / "out" / "report.csv");
  std::stringstream ss;
  ss << in.rdbuf();
  auto rows = parseCsv(ss.str());
  ASSERT_GE(rows.size(), 2u);
  for (const auto &row : rows)
    EXPECT_EQ(row.size(), rows.front().size()) << ss.str();
  std::filesystem::remove_all(dir);
}

} // namespace
