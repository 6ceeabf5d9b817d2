// writeFilesAtomically and DirectoryLock (issue 17, item 1): a set of files is
// renamed into place only once every member is written, and a directory is held
// by one writer at a time.
#include "skelcast/support/AtomicFile.h"
#include "skelcast/support/Diagnostic.h"

#include "TempDir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace skelcast;

namespace {

std::string slurp(const std::string &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t entries(const std::filesystem::path &dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto &e : std::filesystem::directory_iterator(dir))
    ++n;
  return n;
}

} // namespace

TEST(AtomicFile, ASetIsRenamedOnlyWhenEveryMemberIsWritten) {
  testsupport::TempDir tmp("skelcast-atomic");
  std::string a = tmp.write("a.txt", "old a"), b = tmp.write("b.txt", "old b");
  writeFilesAtomically({{a, "new a"}, {b, "new b"}});
  EXPECT_EQ(slurp(a), "new a");
  EXPECT_EQ(slurp(b), "new b");
  // The third member cannot be written (no such directory): a and b stay as they were.
  EXPECT_THROW(writeFilesAtomically({{a, "newer a"}, {b, "newer b"}, {tmp.file("no/such/c.txt"), "c"}}),
               InputError);
  EXPECT_EQ(slurp(a), "new a");
  EXPECT_EQ(slurp(b), "new b");
  EXPECT_EQ(entries(tmp.path()), 2u) << "a temporary file was left";
}

TEST(DirectoryLock, OneHolderAtATime) {
  testsupport::TempDir tmp("skelcast-lock");
  std::string dir = tmp.path().string();
  {
    std::optional<DirectoryLock> first = DirectoryLock::tryLock(dir);
    ASSERT_TRUE(first.has_value());
    EXPECT_FALSE(DirectoryLock::tryLock(dir).has_value());
    DirectoryLock moved = std::move(*first);
    first.reset(); // the moved-from object releases nothing
    EXPECT_FALSE(DirectoryLock::tryLock(dir).has_value());
  }
  EXPECT_TRUE(DirectoryLock::tryLock(dir).has_value());
  EXPECT_EQ(entries(tmp.path()), 0u) << "the lock leaves no file";
  EXPECT_THROW(DirectoryLock::tryLock(tmp.file("missing")), InputError);
}
