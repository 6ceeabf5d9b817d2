// `skelcast validate --run FILE.c... --hw NAME`: emit the chosen layouts of
// each C file (docs/emit.md), build them with nvcc for the spec's compute
// capability, run them on this machine's GPU, gather their measurement
// records into one file, and validate the projections against it.
#ifdef SKELCAST_HAVE_FRONTEND

#include "ValidateRun.h"

#include "PtxasRegisters.h"
#include "skelcast/model/Program.h"

#include "skelcast/support/AtomicFile.h"
#include "skelcast/support/Interrupt.h"
#include "skelcast/support/JsonText.h"
#include "skelcast/support/TextFile.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <ostream>
#include <unistd.h>

namespace skelcast::cli {

namespace fs = std::filesystem;

std::string findNvcc(const std::string &given) {
  std::error_code ec;
  if (!given.empty()) {
    if (!fs::is_regular_file(given, ec) || access(given.c_str(), X_OK) != 0)
      throw InputError({"--nvcc", 0, 0}, fmt::format("'{}' is not an executable file", given));
    return given;
  }
  if (const char *path = std::getenv("PATH")) {
    std::string p = path;
    size_t pos = 0;
    while (pos <= p.size()) {
      size_t colon = p.find(':', pos);
      if (colon == std::string::npos)
        colon = p.size();
      fs::path cand = fs::path(p.substr(pos, colon - pos)) / "nvcc";
      if (colon > pos && fs::is_regular_file(cand, ec) && access(cand.c_str(), X_OK) == 0)
        return cand.string();
      pos = colon + 1;
    }
  }
  if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0)
    return "/usr/local/cuda/bin/nvcc";
  return {};
}

std::string cudaArch(const hw::HwSpec &hw) {
  std::string cc = hw.computeCapability;
  std::string digits;
  for (char ch : cc)
    if (ch >= '0' && ch <= '9')
      digits += ch;
  if (digits.size() < 2)
    throw InputError({"--hw", 0, 0},
                     fmt::format("spec '{}' gives no compute_capability to build for", hw.name));
  return "sm_" + digits;
}

namespace {

std::string quote(const std::string &s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string lastLines(const std::string &path, size_t n) {
  std::string text;
  try {
    text = readTextFile(path);
  } catch (const InputError &) {
    return {};
  }
  size_t pos = text.size();
  while (n-- > 0 && pos > 0) {
    size_t nl = text.rfind('\n', pos > 1 ? pos - 2 : 0);
    pos = nl == std::string::npos ? 0 : nl + 1;
    if (nl == std::string::npos)
      break;
  }
  std::string tail = text.substr(pos);
  while (!tail.empty() && tail.back() == '\n')
    tail.pop_back();
  return tail;
}

} // namespace

std::string buildEmitted(const std::string &nvcc, const std::string &arch, const std::string &cu,
                         const std::string &exe) {
  std::string log = exe + ".build.txt";
  // -fopenmp: the host reference runs on all cores (the emitted file's pragma)
  std::string cmd = fmt::format("{} -O3 -arch={} -Xcompiler -fopenmp -o {} {} > {} 2>&1", quote(nvcc), arch,
                                quote(exe), quote(cu), quote(log));
  CommandStatus st = runCommand(cmd);
  if (!st.ok())
    throw InputError({cu, 0, 0}, fmt::format("nvcc failed ({}):\n{}", st.describe(),
                                             lastLines(log, 20)));
  return cmd;
}

nlohmann::json runEmitted(const std::string &exe, const std::string &cu) {
  std::string out = exe + ".json", err = exe + ".stderr.txt";
  CommandStatus st = runCommand(fmt::format("{} > {} 2> {}", quote(exe), quote(out), quote(err)));
  if (st.exitCode == 2 || (!st.ok() && st.exitCode != 3)) {
    std::string why = lastLines(err, 3);
    if (why.find("no CUDA-capable device") != std::string::npos ||
        why.find("CUDA driver") != std::string::npos || why.find("cudaError") != std::string::npos)
      throw InputError({cu, 0, 0}, fmt::format("validate --run needs a CUDA GPU on this machine: "
                                               "the emitted program says: {}",
                                               why));
    throw InputError({cu, 0, 0}, fmt::format("the emitted program failed ({}): {}",
                                             st.describe(), why));
  }
  nlohmann::json j = parseJsonText(readTextFile(out), out);
  if (!j.is_object() || !j.contains("cases") || !j["cases"].is_array() || j["cases"].size() != 1)
    throw InputError({out, 0, 0}, "the emitted program printed no measurement record");
  return j;
}

std::string mergeRecords(const std::vector<nlohmann::json> &records, const std::string &root) {
  nlohmann::json m;
  m["schema_version"] = 1;
  m["skeleton_root"] = root;
  m["gpu"] = records.front()["gpu"];
  m["method"] = records.front()["method"];
  m["cases"] = nlohmann::json::array();
  for (const auto &r : records) {
    if (r["gpu"]["name"] != m["gpu"]["name"])
      throw InputError({"validate --run", 0, 0}, "the records come from different GPUs");
    nlohmann::json c = r["cases"][0];
    // how the program timed its launches (a record's "timing": back_to_back,
    // or once with --repeats 0), kept per case: the launch term reads it
    if (r.contains("timing") && !c.contains("timing"))
      c["timing"] = r["timing"];
    m["cases"].push_back(std::move(c));
  }
  return m.dump(1) + "\n";
}

/// What a case needs to be projected again from its C file, as this run read
/// it: the file and the options given (validation/README.md's fields).
/// Paths are written relative to the working directory (the measurement
/// file's "skeleton_root" leads there), so that the file can move with the
/// sources, as validation/results/ does.
static std::string fromWorkingDir(const std::string &path) {
  fs::path rel = fs::absolute(path).lexically_normal().lexically_relative(fs::current_path());
  return rel.empty() || *rel.begin() == ".." ? fs::absolute(path).lexically_normal().string()
                                             : rel.string();
}

void nameCFile(nlohmann::json &c, const std::string &file, const frontend::SkeletonizeOptions &so) {
  c.erase("skeleton"); // the skeletonizer's own output: the C file is the source
  c["c"] = fromWorkingDir(file);
  c["c_kernel"] = c["kernel"];
  if (!so.clangArgs.empty())
    c["c_args"] = so.clangArgs;
  if (!so.extents.empty())
    c["c_extent"] = so.extents;
  if (!so.trips.empty())
    c["c_trip"] = so.trips;
  if (!so.function.empty())
    c["c_function"] = so.function;
  if (!so.samples.empty()) {
    nlohmann::json samples = nlohmann::json::object();
    for (const auto &[array, path] : so.samples)
      samples[array] = fromWorkingDir(path);
    c["c_sample"] = samples;
  }
}

/// The --top N of each kernel of `file` (--kernel's only) after the re-rank with
/// ptxas's registers: the best max(2N, 10) by the estimate built with nvcc and
/// ranked again (rerankedWithCompiled), as `project FILE.c --counts ...` shows them.
static std::map<size_t, std::vector<layout::Layout>> rerankedTops(Context &ctx, const ValidateRunOptions &o,
                                                                  const std::string &file,
                                                                  const hw::HwSpec &hw) {
  frontend::SkeletonizeResult r =
      skeletonizeInput(file, o.skeletonize, ctx.err, o.counts.counts, o.counts.compileCache.get());
  model::ProgramAnalysis analysis(r.file);
  model::ModelOptions mo = o.model;
  mo.keepTop = model::rerankCandidates(o.choice.top);
  std::map<size_t, std::vector<layout::Layout>> out;
  for (size_t k = 0; k < r.file.kernels.size(); ++k) {
    if (!o.choice.kernel.empty() && r.file.kernelName(k) != o.choice.kernel)
      continue;
    model::KernelProjection kp = model::projectProgramKernel(analysis, k, hw, {}, mo);
    if (kp.layouts.empty())
      continue;
    kp = rerankedWithCompiled(o.counts, o.skeletonize, file, analysis, k, hw, o.model,
                           std::move(kp), o.choice.top, ctx.err,
                           [&](const Warning &w) { ctx.diag.emit({w}, ctx.err); });
    for (auto &p : kp.layouts)
      out[k].push_back(std::move(p.layout));
  }
  return out;
}

RunMeasurements runAndMeasure(Context &ctx, const ValidateRunOptions &o) {
  hw::HwSpec hw = hw::resolveHwSpec(o.hw, ctx.specDir);
  std::string arch = cudaArch(hw);
  std::string nvcc = findNvcc(o.nvcc);
  if (nvcc.empty())
    throw InputError({"--nvcc", 0, 0}, "validate --run needs nvcc (the CUDA toolkit): none on "
                                       "PATH nor in /usr/local/cuda/bin; give it with --nvcc PATH");
  if (!o.skeletonize.compilationDbDir.empty())
    throw InputError({"-p", 0, 0}, "validate --run records the C files' options in its "
                                   "measurements; give them as -D/-I/-- instead of a compilation database");
  // the work directory: --out-dir, or a temporary one removed when the result goes
  RunMeasurements r;
  std::string dir = o.outDir;
  if (dir.empty()) {
    // removed by an interrupt while the guard lives, and when the result goes
    auto tmp = std::make_shared<CleanupGuard>([] {
      std::string t = (fs::temp_directory_path() / "skelcast-run-XXXXXX").string();
      if (!mkdtemp(t.data()))
        throw InputError({t, 0, 0}, "cannot create a directory for the emitted programs");
      return t;
    });
    dir = tmp->path();
    r.cleanup = std::shared_ptr<void>(tmp.get(), [tmp, dir](void *) {
      std::error_code ec;
      fs::remove_all(dir, ec);
    });
  }
  std::vector<nlohmann::json> records;
  for (const auto &file : o.files) {
    EmitChoice choice = o.choice;
    if (choice.top > 0 && layoutBuildsOn(o.counts, o.model))
      choice.ranked = rerankedTops(ctx, o, file, hw);
    EmittedSet set = emitFiles(file, o.skeletonize, choice, hw, o.model, dir, ctx.diag, ctx.err);
    for (size_t i = 0; i < set.cudaFiles.size(); ++i) {
      const std::string &cu = set.cudaFiles[i];
      std::string exe = cu.substr(0, cu.size() - 3);
      buildEmitted(nvcc, arch, cu, exe);
      records.push_back(runEmitted(exe, cu));
      auto &c = records.back()["cases"][0];
      nameCFile(c, file, o.skeletonize);
      ctx.err << fmt::format("{}: {} ms, max relative error {}{}\n", cu,
                             c.value("time_ms", 0.0), c.value("rel_error", 0.0),
                             c.value("verified", false) ? "" : " (WRONG: not verified)");
    }
  }
  r.path = (fs::path(dir) / "measurements.json").string();
  std::string root = fs::current_path().lexically_relative(fs::absolute(dir).lexically_normal()).string();
  writeFileAtomically(r.path, mergeRecords(records, root.empty() ? "." : root));
  r.gpuName = records.front()["gpu"]["name"].get<std::string>();
  return r;
}

} // namespace skelcast::cli

#endif
