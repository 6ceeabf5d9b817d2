#include "skelcast/toolchain/Toolchain.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace skelcast::toolchain {
namespace {

namespace fs = std::filesystem;

bool executable(const fs::path &p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

/// `name` on PATH, then in the extra directories; empty if nowhere.
std::string findProgram(const std::string &name, const std::vector<std::string> &extra) {
  std::vector<std::string> dirs;
  if (const char *path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string d;
    while (std::getline(ss, d, ':'))
      if (!d.empty())
        dirs.push_back(d);
  }
  dirs.insert(dirs.end(), extra.begin(), extra.end());
  for (const auto &d : dirs)
    if (executable(fs::path(d) / name))
      return (fs::path(d) / name).string();
  return "";
}

std::string quote(const std::string &s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A scratch directory, removed with its contents when it goes out of scope.
class ScratchDir {
public:
  ScratchDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string tmpl = (fs::path(tmp && *tmp ? tmp : "/tmp") / "skelcast-cc-XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()))
      path_ = buf.data();
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty())
      fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;
  const fs::path &path() const { return path_; }

private:
  fs::path path_;
};

/// Run `cmd` (a shell command line) with its output in `log`; true on exit status 0.
bool run(const std::string &cmd, const fs::path &log) {
  int rc = std::system((cmd + " > " + quote(log.string()) + " 2>&1 < /dev/null").c_str());
  return rc == 0;
}

std::string failure(const std::string &cmd, const fs::path &log) {
  std::string out = readFile(log);
  std::stringstream ss(out);
  std::string line, head;
  for (int i = 0; i < 4 && std::getline(ss, line); ++i)
    head += (head.empty() ? "" : " | ") + line;
  return fmt::format("'{}' failed{}{}", cmd, head.empty() ? "" : ": ", head);
}

} // namespace

Tools findTools() {
  std::vector<std::string> cuda;
  if (const char *home = std::getenv("CUDA_HOME"))
    cuda.push_back((fs::path(home) / "bin").string());
  cuda.push_back("/usr/local/cuda/bin");
  Tools t;
  if (const char *c = std::getenv("SKELCAST_CLANG"); c && *c)
    t.clang = executable(c) ? c : "";
  else
    t.clang = findProgram("clang-19", {"/usr/lib/llvm-19/bin"});
  t.nvcc = findProgram("nvcc", cuda);
  std::string cuobjdump = findProgram("cuobjdump", cuda);
  // cuobjdump -sass runs nvdisasm: beside it, or on PATH
  if (!cuobjdump.empty() &&
      (executable(fs::path(cuobjdump).parent_path() / "nvdisasm") ||
       !findProgram("nvdisasm", cuda).empty()))
    t.cuobjdump = cuobjdump;
  return t;
}

std::optional<CountSource> parseCountSource(const std::string &s) {
  if (s == "auto")
    return CountSource::Auto;
  if (s == "sass")
    return CountSource::Sass;
  if (s == "ptx")
    return CountSource::Ptx;
  if (s == "table")
    return CountSource::Table;
  return std::nullopt;
}

const char *countSourceName(CountSource s) {
  switch (s) {
  case CountSource::Auto:
    return "auto";
  case CountSource::Sass:
    return "sass";
  case CountSource::Ptx:
    return "ptx";
  case CountSource::Table:
    return "table";
  }
  return "?";
}

CountSource resolve(CountSource s, const Tools &t) {
  if (s != CountSource::Auto)
    return s;
  if (t.hasSass())
    return CountSource::Sass;
  if (t.hasPtx())
    return CountSource::Ptx;
  return CountSource::Table;
}

Compiled CompileCache::ptx(const std::string &cuda) { return cached("ptx", cuda); }
Compiled CompileCache::sass(const std::string &cuda) { return cached("sass", cuda); }
Compiled CompileCache::resourceUsage(const std::string &cuda) { return cached("res", cuda); }

Compiled CompileCache::cached(const std::string &kind, const std::string &cuda) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string key = kind + '\0' + cuda;
  auto it = done_.find(key);
  if (it != done_.end()) {
    ++hits_;
    return it->second;
  }
  Compiled c = compile(kind, cuda);
  done_[key] = c;
  return c;
}

Compiled CompileCache::compile(const std::string &kind, const std::string &cuda) {
  Compiled c;
  bool wantPtx = kind == "ptx";
  const std::string &tool = wantPtx ? tools_.clang : tools_.nvcc;
  if (tool.empty()) {
    c.error = wantPtx ? "clang-19 is not found (PATH, /usr/lib/llvm-19/bin, or $SKELCAST_CLANG)"
                      : "the CUDA toolkit's nvcc is not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)";
    return c;
  }
  ScratchDir dir;
  if (dir.path().empty()) {
    c.error = "cannot create a scratch directory for the compiler";
    return c;
  }
  fs::path src = dir.path() / "kernel.cu", log = dir.path() / "log.txt";
  {
    std::ofstream out(src, std::ios::binary);
    out << cuda;
  }
  ++runs_;
  if (wantPtx) {
    fs::path ptx = dir.path() / "kernel.ptx";
    std::string cmd = fmt::format("{} -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudainc "
                                  "-nocudalib -O3 -Wno-unknown-cuda-version -S -o {} {}",
                                  quote(tools_.clang), quote(ptx.string()), quote(src.string()));
    if (!run(cmd, log)) {
      c.error = failure(cmd, log);
      return c;
    }
    c.ok = true;
    c.text = readFile(ptx);
    return c;
  }
  // nvcc -Xptxas -v prints ptxas's registers and shared memory: the resource
  // usage; cuobjdump -sass the SASS of the same cubin. Both are remembered.
  fs::path cubin = dir.path() / "kernel.cubin";
  std::string cmd = fmt::format("{} -cubin -arch=sm_90 -O3 -Xptxas -v -o {} {}", quote(tools_.nvcc),
                                quote(cubin.string()), quote(src.string()));
  Compiled sass, res;
  if (!run(cmd, log)) {
    sass.error = res.error = failure(cmd, log);
  } else {
    res.text = readFile(log);
    res.ok = true;
    if (tools_.cuobjdump.empty()) {
      sass.error = "cuobjdump (with nvdisasm) is not found: no SASS to count";
    } else {
      std::string dis = fmt::format("{} -sass {}", quote(tools_.cuobjdump), quote(cubin.string()));
      if (run(dis, log)) {
        sass.ok = true;
        sass.text = readFile(log);
      } else {
        sass.error = failure(dis, log);
      }
    }
  }
  done_[std::string("res") + '\0' + cuda] = res;
  done_[std::string("sass") + '\0' + cuda] = sass;
  return kind == "sass" ? sass : res;
}

} // namespace skelcast::toolchain
