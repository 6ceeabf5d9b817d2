#include "skelcast/toolchain/Toolchain.h"

#include "skelcast/support/AtomicFile.h"
#include "skelcast/support/Diagnostic.h"
#include "skelcast/support/Hash.h"
#include "skelcast/support/Interrupt.h"
#include "skelcast/support/Parallel.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace skelcast::toolchain {
namespace {

namespace fs = std::filesystem;

// The compilers' flags: the commands and the store's identity of a build use the same text.
constexpr const char *kClangFlags =
    "-x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudainc -nocudalib -O3 -Wno-unknown-cuda-version -S";
constexpr const char *kNvccFlags = "-cubin -arch=sm_90 -O3 -Xptxas -v";
constexpr const char *kCuobjdumpFlags = "-sass";

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

/// A scratch directory, removed with its contents when it goes out of scope,
/// and by an interrupt of skelcast (CleanupGuard) while it exists.
class ScratchDir {
public:
  ScratchDir() {
    try {
      guard_ = std::make_unique<CleanupGuard>([] {
        const char *tmp = std::getenv("TMPDIR");
        std::string tmpl = (fs::path(tmp && *tmp ? tmp : "/tmp") / "skelcast-cc-XXXXXX").string();
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        if (!::mkdtemp(buf.data()))
          throw std::runtime_error("mkdtemp");
        return std::string(buf.data());
      });
      path_ = guard_->path();
    } catch (const std::runtime_error &) {
    }
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
  std::unique_ptr<CleanupGuard> guard_;
  fs::path path_;
};

/// Run `cmd` (a shell command line) with its output in `log`; true on exit status 0.
/// (runCommand: in a process group of its own, which an interrupt of skelcast kills.)
bool run(const std::string &cmd, const fs::path &log) {
  try {
    return runCommand(cmd + " > " + quote(log.string()) + " 2>&1 < /dev/null").ok();
  } catch (const std::runtime_error &) {
    return false;
  }
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
  if (!cuobjdump.empty()) {
    fs::path beside = fs::path(cuobjdump).parent_path() / "nvdisasm";
    t.nvdisasm = executable(beside) ? beside.string() : findProgram("nvdisasm", cuda);
    if (!t.nvdisasm.empty())
      t.cuobjdump = cuobjdump;
  }
  return t;
}

std::string defaultBuildStore() {
  if (const char *d = std::getenv("SKELCAST_BUILD_CACHE"); d && *d)
    return std::string(d) == "none" ? "" : d;
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return (fs::path(x) / "skelcast" / "builds").string();
  if (const char *h = std::getenv("HOME"); h && *h)
    return (fs::path(h) / ".cache" / "skelcast" / "builds").string();
  return "";
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

void CompileCache::buildAll(const std::vector<std::string> &cudas, unsigned jobs) {
  if (jobs == 0)
    jobs = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<bool> stop{false};
  std::mutex failed;
  std::exception_ptr first; // the first exception a build threw, thrown here after the others end
  try {
    parallelFor(cudas.size(), jobs, [&](size_t i) {
      if (stop)
        return;
      try {
        cached("res", cudas[i]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failed);
        if (!first)
          first = std::current_exception();
        stop = true;
      }
    });
  } catch (const std::system_error &) {
    // No more threads: what the started ones left is built here, one at a time.
    for (size_t i = 0; i < cudas.size() && !stop; ++i)
      cached("res", cudas[i]);
  }
  if (first)
    std::rethrow_exception(first);
}

Compiled CompileCache::cached(const std::string &kind, const std::string &cuda) {
  // One nvcc run answers "res" and "sass"; clang's answers "ptx".
  std::string build = kind == "ptx" ? "ptx" : "nvcc";
  std::string key = kind + '\0' + cuda, buildKey = build + '\0' + cuda;
  std::promise<void> mine;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (auto it = done_.find(key); it != done_.end()) {
        ++hits_;
        return it->second;
      }
      auto b = building_.find(buildKey);
      if (b == building_.end())
        break;
      std::shared_future<void> f = b->second; // another thread builds it: wait for it
      lock.unlock();
      f.wait();
      lock.lock();
    }
    building_[buildKey] = mine.get_future().share();
  }
  std::optional<Answers> a;
  bool fromStore = false;
  try {
    // The tools as they are before the build: a build is kept under what made it.
    std::string id = store_.empty() ? std::string() : identity(build);
    a = load(build, id, cuda);
    fromStore = a.has_value();
    if (!a) {
      a = compile(build, cuda);
      // Kept when it succeeded; a build whose SASS cannot be read because no
      // cuobjdump is installed (which the identity records) is kept for its
      // registers.
      bool ok = true;
      for (const auto &[k, c] : *a)
        ok = ok && (c.ok || (k == "sass" && tools_.cuobjdump.empty()));
      if (ok && (*a)[build == "ptx" ? "ptx" : "res"].ok)
        keep(build, id, cuda, *a);
    }
  } catch (...) {
    // Whoever waits for this build builds it again rather than wait forever.
    {
      std::lock_guard<std::mutex> lock(mutex_);
      building_.erase(buildKey);
    }
    mine.set_value();
    throw;
  }
  Compiled out;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fromStore)
      ++stored_;
    else if (!(build == "ptx" ? tools_.clang : tools_.nvcc).empty())
      ++runs_;
    for (const auto &[k, c] : *a)
      done_[k + '\0' + cuda] = c;
    building_.erase(buildKey);
    out = done_[key];
  }
  mine.set_value();
  return out;
}

// --- the store ----------------------------------------------------------------
// A record: a header line, the tools' identity, the kind and the source, then
// each answer (name, ok, text), every field preceded by its length, so that a
// record is read back only whole and only for exactly the same build.

namespace {

constexpr const char *kStoreHeader = "skelcast build 1\n";


/// A build's record in the store: named by FNV-1a of the build kind, the tools'
/// identity and the source (collisions are caught by the exact comparison).
fs::path recordPath(const fs::path &store, const std::string &build, const std::string &id,
                    const std::string &cuda) {
  return store / fmt::format("{:016x}.build", fnv1a(cuda, fnv1a(build + '\0' + id)));
}

std::string toolStamp(const std::string &path) {
  if (path.empty())
    return "-";
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  auto time = fs::last_write_time(path, ec).time_since_epoch().count();
  return fmt::format("{}:{}:{}", path, ec ? 0 : size, ec ? 0 : time);
}

void putField(std::string &out, const std::string &s) { out += fmt::format("{}\n", s.size()) + s; }

bool getField(const std::string &in, size_t &at, std::string &s) {
  size_t nl = in.find('\n', at);
  if (nl == std::string::npos || nl == at || nl - at > 12)
    return false;
  size_t n = 0;
  for (size_t i = at; i < nl; ++i) {
    if (in[i] < '0' || in[i] > '9')
      return false;
    n = n * 10 + static_cast<size_t>(in[i] - '0');
  }
  if (n > in.size() - nl - 1)
    return false;
  s = in.substr(nl + 1, n);
  at = nl + 1 + n;
  return true;
}

} // namespace

std::string CompileCache::identity(const std::string &build) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = identities_.find(build); it != identities_.end())
      return it->second;
  }
  auto env = [](const char *name) {
    const char *v = std::getenv(name);
    return fmt::format(" {}={}", name, v ? v : "");
  };
  std::string id;
  if (build == "ptx") {
    // clang-19 is a driver; the code generator is libLLVM (and libclang-cpp)
    // beside its real path, which a package upgrade can change alone.
    std::error_code ec;
    fs::path real = fs::canonical(tools_.clang, ec);
    id = "clang " + toolStamp(tools_.clang) + " " + toolStamp(ec ? "" : real.string());
    if (!ec)
      for (const auto &e : fs::directory_iterator(real.parent_path().parent_path() / "lib", ec)) {
        std::string name = e.path().filename().string();
        if (name.rfind("libLLVM", 0) == 0 || name.rfind("libclang-cpp", 0) == 0)
          id += " " + toolStamp(e.path().string());
      }
    id += std::string(" ") + kClangFlags + env("CCC_OVERRIDE_OPTIONS");
  } else {
    // nvcc runs cicc (the front end's optimizer) and ptxas beside it.
    fs::path dir = fs::path(tools_.nvcc).parent_path();
    auto beside = [](const fs::path &p) {
      std::error_code ec;
      return fs::exists(p, ec) ? p.string() : std::string();
    };
    id = "nvcc " + toolStamp(tools_.nvcc) + " ptxas " + toolStamp(tools_.nvcc.empty() ? "" : beside(dir / "ptxas")) +
         " cicc " + toolStamp(tools_.nvcc.empty() ? "" : beside(dir.parent_path() / "nvvm" / "bin" / "cicc")) +
         " cuobjdump " + toolStamp(tools_.cuobjdump) + " nvdisasm " + toolStamp(tools_.nvdisasm) + " " + kNvccFlags +
         " " + kCuobjdumpFlags + env("NVCC_PREPEND_FLAGS") + env("NVCC_APPEND_FLAGS");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  identities_[build] = id;
  return id;
}

std::optional<CompileCache::Answers> CompileCache::load(const std::string &build, const std::string &id,
                                                        const std::string &cuda) const {
  if (store_.empty())
    return std::nullopt;
  fs::path file = recordPath(store_, build, id, cuda);
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    return std::nullopt;
  std::string in = readFile(file);
  size_t at = std::string(kStoreHeader).size();
  if (in.compare(0, at, kStoreHeader) != 0)
    return std::nullopt;
  std::string f;
  if (!getField(in, at, f) || f != id || !getField(in, at, f) || f != build || !getField(in, at, f) || f != cuda)
    return std::nullopt;
  Answers a;
  std::string name, ok, text;
  while (at < in.size()) {
    if (!getField(in, at, name) || !getField(in, at, ok) || !getField(in, at, text) || (ok != "1" && ok != "0"))
      return std::nullopt;
    a[name] = ok == "1" ? Compiled{true, text, ""} : Compiled{false, "", text};
  }
  if (build == "ptx" ? !(a.count("ptx") && a["ptx"].ok) : !(a.count("res") && a["res"].ok && a.count("sass")))
    return std::nullopt;
  return a;
}

void CompileCache::keep(const std::string &build, const std::string &id, const std::string &cuda,
                        const Answers &a) const {
  if (store_.empty())
    return;
  // The directories skelcast makes for the store are the user's alone (0700):
  // they hold the emitted code of the user's sources.
  std::error_code ec;
  fs::path dir(store_);
  std::vector<fs::path> made;
  for (fs::path p = dir; !p.empty() && !fs::exists(p, ec) && p != p.parent_path(); p = p.parent_path())
    made.push_back(p);
  fs::create_directories(dir, ec);
  for (const auto &p : made)
    fs::permissions(p, fs::perms::owner_all, ec);
  std::string out = kStoreHeader;
  putField(out, id);
  putField(out, build);
  putField(out, cuda);
  for (const auto &[name, c] : a) {
    putField(out, name);
    putField(out, c.ok ? "1" : "0");
    putField(out, c.ok ? c.text : c.error);
  }
  fs::path file = recordPath(dir, build, id, cuda);
  try {
    // Written beside and renamed: a reader sees the whole record or none.
    writeFileAtomically(file.string(), out);
  } catch (const InputError &) {
    // A store that cannot be written only costs the build next time.
  }
}

CompileCache::Answers CompileCache::compile(const std::string &build, const std::string &cuda) {
  Answers out;
  Compiled &c = out[build == "ptx" ? "ptx" : "res"];
  bool wantPtx = build == "ptx";
  const std::string &tool = wantPtx ? tools_.clang : tools_.nvcc;
  if (tool.empty()) {
    c.error = wantPtx ? "clang-19 is not found (PATH, /usr/lib/llvm-19/bin, or $SKELCAST_CLANG)"
                      : "the CUDA toolkit's nvcc is not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)";
    if (!wantPtx)
      out["sass"] = c;
    return out;
  }
  ScratchDir dir;
  if (dir.path().empty()) {
    c.error = "cannot create a scratch directory for the compiler";
    if (!wantPtx)
      out["sass"] = c;
    return out;
  }
  fs::path src = dir.path() / "kernel.cu", log = dir.path() / "log.txt";
  {
    std::ofstream o(src, std::ios::binary);
    o << cuda;
  }
  if (wantPtx) {
    fs::path ptx = dir.path() / "kernel.ptx";
    std::string cmd = fmt::format("{} {} -o {} {}", quote(tools_.clang), kClangFlags, quote(ptx.string()),
                                  quote(src.string()));
    if (!run(cmd, log)) {
      c.error = failure(cmd, log);
      return out;
    }
    c.ok = true;
    c.text = readFile(ptx);
    return out;
  }
  // nvcc -Xptxas -v prints ptxas's registers and shared memory: the resource
  // usage; cuobjdump -sass the SASS of the same cubin. Both are remembered.
  fs::path cubin = dir.path() / "kernel.cubin";
  std::string cmd = fmt::format("{} {} -o {} {}", quote(tools_.nvcc), kNvccFlags, quote(cubin.string()),
                                quote(src.string()));
  Compiled &sass = out["sass"];
  if (!run(cmd, log)) {
    sass.error = c.error = failure(cmd, log);
  } else {
    c.text = readFile(log);
    c.ok = true;
    if (tools_.cuobjdump.empty()) {
      sass.error = "cuobjdump (with nvdisasm) is not found: no SASS to count";
    } else {
      std::string dis = fmt::format("{} {} {}", quote(tools_.cuobjdump), kCuobjdumpFlags, quote(cubin.string()));
      if (run(dis, log)) {
        sass.ok = true;
        sass.text = readFile(log);
      } else {
        sass.error = failure(dis, log);
      }
    }
  }
  return out;
}

} // namespace skelcast::toolchain
