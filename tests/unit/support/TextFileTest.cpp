// readTextFile: what is no file to read is refused by name, never read forever.
#include "skelcast/support/Diagnostic.h"
#include "skelcast/support/TextFile.h"

#include "TempDir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace skelcast;

namespace {

// The message readTextFile throws for `path`, or "" when it reads it.
std::string refusal(const std::string &path) {
  try {
    readTextFile(path);
    return "";
  } catch (const InputError &e) {
    EXPECT_EQ(e.loc().file, path);
    return e.message();
  }
}

} // namespace

TEST(TextFile, ReadsARegularFileWhole) {
  testsupport::TempDir tmp("skelcast-textfile");
  std::string p = tmp.file("plain");
  std::string body("a\0b\nc", 5);
  std::ofstream(p, std::ios::binary) << body;
  EXPECT_EQ(readTextFile(p), body);
}

TEST(TextFile, RefusesWhatIsNoFileByName) {
  testsupport::TempDir tmp("skelcast-textfile");
  EXPECT_EQ(refusal(tmp.file("no_such_file")), "cannot open file: No such file or directory");
  EXPECT_EQ(refusal(std::filesystem::temp_directory_path().string()), "is a directory, not a file");
  // /dev/zero and /dev/full never end: a reader that tried would hang.
  EXPECT_EQ(refusal("/dev/zero"), "is a device, not a file");
  EXPECT_EQ(refusal("/dev/full"), "is a device, not a file");
}

TEST(TextFile, RefusesAFileBeyondTheCapInsteadOfReadingOn) {
  testsupport::TempDir tmp("skelcast-textfile");
  std::string p = tmp.file("big");
  {
    std::ofstream out(p, std::ios::binary);
    std::string mib(std::size_t(1) << 20, 'x');
    for (std::size_t i = 0; i <= (kMaxInputBytes >> 20); ++i)
      out << mib;
  }
  EXPECT_EQ(refusal(p), "larger than 64 MiB, not an input skelcast reads");
  EXPECT_EQ(kMaxInputBytes, std::size_t(64) << 20) << "the message names 64 MiB";
}
