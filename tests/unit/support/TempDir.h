// A scratch directory for one test: created fresh and unique (mkdtemp) under
// the temporary directory, removed with everything in it when the object goes
// out of scope, whether the test passed or failed. Every test that writes files
// uses it, so that a ctest run leaves nothing behind (the ctest check
// `tests.no_temp_left` holds that).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace skelcast::testsupport {

class TempDir {
public:
  explicit TempDir(const std::string &prefix = "skelcast-test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!::mkdtemp(tmpl.data()))
      throw std::runtime_error("cannot create a temporary directory from " + tmpl);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::filesystem::path &path() const { return path_; }
  /// The path of `name` inside the directory (nothing is created).
  std::string file(const std::string &name) const { return (path_ / name).string(); }
  /// Write `text` to `name` inside the directory; returns its path.
  std::string write(const std::string &name, const std::string &text) const {
    std::string p = file(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

private:
  std::filesystem::path path_;
};

} // namespace skelcast::testsupport
