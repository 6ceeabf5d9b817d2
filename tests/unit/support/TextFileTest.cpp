// readTextFile: what is no file to read is refused by name, never read forever.
#include "skelcast/support/Diagnostic.h"
#include "skelcast/support/TextFile.h"

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

std::string scratch(const std::string &name) {
  return (std::filesystem::temp_directory_path() / ("skelcast_textfile_" + name)).string();
}

} // namespace

TEST(TextFile, ReadsARegularFileWhole) {
  std::string p = scratch("plain");
  std::string body("a\0b\nc", 5);
  std::ofstream(p, std::ios::binary) << body;
  EXPECT_EQ(readTextFile(p), body);
  std::filesystem::remove(p);
}

TEST(TextFile, RefusesWhatIsNoFileByName) {
  EXPECT_EQ(refusal(scratch("no_such_file")), "cannot open file: No such file or directory");
  EXPECT_EQ(refusal(std::filesystem::temp_directory_path().string()), "is a directory, not a file");
  // /dev/zero and /dev/full never end: a reader that tried would hang.
  EXPECT_EQ(refusal("/dev/zero"), "is a device, not a file");
  EXPECT_EQ(refusal("/dev/full"), "is a device, not a file");
}

TEST(TextFile, RefusesAFileBeyondTheCapInsteadOfReadingOn) {
  std::string p = scratch("big");
  {
    std::ofstream out(p, std::ios::binary);
    std::string mib(std::size_t(1) << 20, 'x');
    for (std::size_t i = 0; i <= (kMaxInputBytes >> 20); ++i)
      out << mib;
  }
  EXPECT_EQ(refusal(p), "larger than 64 MiB, not an input skelcast reads");
  std::filesystem::remove(p);
  EXPECT_EQ(kMaxInputBytes, std::size_t(64) << 20) << "the message names 64 MiB";
}
