#include "SuiteRunner.h"

#include "skelcast/layout/KernelInfo.h"
#include "skelcast/model/Program.h"
#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>
#include <sstream>
#include <thread>

namespace skelcast::cli {
namespace {

struct Job {
  size_t benchmark, kernel, gpu;
  const layout::KernelInfo *info;
};

report::KernelGpuResult project(const Job &j, const SuiteRunOptions &o) {
  report::KernelGpuResult r;
  const hw::HwSpec &hw = o.gpus[j.gpu];
  try {
    // Only the reported layouts are kept while enumerating (as `project --top`
    // does): same ranking and counts, without holding every layout.
    model::ModelOptions mo = o.model;
    mo.keepTop = o.top;
    model::KernelProjection kp = model::projectKernel(*j.info, hw, o.enumerate, mo);
    r.layoutsExplored = kp.layoutsExplored;
    r.layoutsPruned = kp.layoutsPruned;
    r.layouts = std::move(kp.layouts);
    if (r.layouts.empty())
      r.error = fmt::format("no layout fits {}: all {} layouts explored were pruned", hw.name,
                            r.layoutsExplored);
  } catch (const InputError &e) {
    r.error = e.what();
  } catch (const std::bad_alloc &) {
    r.error = "out of memory";
  } catch (const std::exception &e) {
    r.error = fmt::format("internal error: {}", e.what());
  }
  return r;
}

/// Run fn(i) for i in [0, n) on `jobs` threads: a shared counter hands out the
/// indices; fn writes only its own slot, so results do not depend on `jobs`.
template <class Fn> void parallelFor(size_t n, unsigned jobs, Fn fn) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1))
      fn(i);
  };
  size_t threads = std::max<size_t>(1, std::min<size_t>(jobs, n));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (auto &t : pool)
    t.join();
}

/// The whole program of one benchmark on one GPU (docs/model.md section 9):
/// transfers, repeats and fusion, from the kernels' best layouts; nullopt when
/// a kernel has no projection.
std::optional<model::ProgramProjection> program(const skeleton::SkeletonFile &file,
                                                const report::BenchmarkResult &b, size_t g,
                                                const SuiteRunOptions &o) {
  std::vector<model::KernelProjection> kps;
  for (const auto &k : b.kernels) {
    if (!k.gpus[g].ok())
      return std::nullopt;
    kps.push_back({k.name, k.gpus[g].layoutsExplored, k.gpus[g].layoutsPruned, k.gpus[g].layouts});
  }
  model::ProgramOptions po;
  po.cpuMs = b.cpuMs;
  if (b.cpuMs)
    po.cpuSource = "manifest";
  return model::projectProgram(file, kps, o.gpus[g], o.enumerate, o.model, po);
}

} // namespace

report::BatchReport runSuite(const Suite &suite, const SuiteRunOptions &o) {
  report::BatchReport rep;
  rep.version = SKELCAST_VERSION;
  rep.model = o.model.model.label;
  rep.suite = suite.path;
  rep.top = o.top;
  for (const auto &hw : o.gpus)
    rep.gpus.push_back({hw.name, hw.description, hw.contentHash, hw.clockGHz, hw.overrides,
                        {hw.memBandwidthGBps, hw.peakSpGflops, hw.peakDpGflops}});

  // This thread reads the inputs, in order (the frontend is not asked to be
  // thread-safe), and publishes each input's jobs as soon as it is read; the
  // other threads project them meanwhile (the Clang parse of one C file
  // overlaps the projection of the files before it), and this thread joins
  // them once every input is read. Deques: their elements stay in place as
  // they grow, so a job and its result slot are used outside the lock.
  std::vector<std::vector<layout::KernelInfo>> infos(suite.benchmarks.size());
  std::vector<skeleton::SkeletonFile> files(suite.benchmarks.size());
  std::deque<Job> jobs;
  std::deque<report::KernelGpuResult> results;
  std::mutex mutex;
  std::condition_variable published;
  size_t next = 0;
  bool allRead = false;
  // Progress by input: an input is finished when its last job is; the total is
  // the suite's inputs, known before any is read.
  std::vector<size_t> pending(suite.benchmarks.size(), 0);
  rep.benchmarks.reserve(suite.benchmarks.size());
  size_t inputsDone = 0;
  auto finished = [&](size_t b) { // with `mutex` held
    ++inputsDone;
    if (!o.progress)
      return;
    const report::BenchmarkResult &br = rep.benchmarks[b];
    o.progress({inputsDone, suite.benchmarks.size(), br.name, br.input, br.kernels.size(), o.gpus.size(),
                !br.error.empty()});
  };
  auto worker = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      published.wait(lock, [&] { return next < jobs.size() || allRead; });
      if (next == jobs.size())
        return; // every input read, every job taken
      size_t i = next++;
      const Job &job = jobs[i];
      report::KernelGpuResult &result = results[i];
      lock.unlock();
      result = project(job, o);
      lock.lock();
      if (--pending[job.benchmark] == 0)
        finished(job.benchmark);
    }
  };
  // At most one thread per (benchmark, GPU): the jobs are not known before the inputs are read.
  size_t threads = std::max<size_t>(1, std::min<size_t>(o.jobs, suite.benchmarks.size() * o.gpus.size()));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t)
    pool.emplace_back(worker);

  for (size_t b = 0; b < suite.benchmarks.size(); ++b) {
    const BenchmarkSpec &spec = suite.benchmarks[b];
    report::BenchmarkResult br;
    br.name = spec.name;
    br.input = spec.input;
    br.cpuMs = spec.cpuMs;
    br.error = spec.error;
    if (br.error.empty()) {
      std::ostringstream diagnostics;
      try {
        LoadedInput in = loadSkeleton(spec.input, spec.options, diagnostics);
        for (const auto &w : in.warnings)
          br.warnings.push_back(w.str());
        if (in.file.kernels.empty())
          throw InputError({spec.input, 0, 0}, "no parallel_for kernel in this file");
        infos[b] = model::analyzeProgram(in.file);
        for (size_t k = 0; k < in.file.kernels.size(); ++k)
          br.kernels.push_back({in.file.kernelName(k), std::vector<report::KernelGpuResult>(o.gpus.size())});
        files[b] = std::move(in.file);
      } catch (const InputError &e) {
        br.error = diagnostics.str() + e.what();
        br.kernels.clear();
        infos[b].clear();
      } catch (const std::exception &e) {
        br.error = diagnostics.str() + fmt::format("{}: error: internal error: {}", spec.input, e.what());
        br.kernels.clear();
        infos[b].clear();
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      // rep.benchmarks grows under the lock: workers read it to report progress.
      rep.benchmarks.push_back(std::move(br));
      for (size_t k = 0; k < infos[b].size(); ++k)
        for (size_t g = 0; g < o.gpus.size(); ++g) {
          jobs.push_back({b, k, g, &infos[b][k]});
          results.emplace_back();
        }
      pending[b] = infos[b].size() * o.gpus.size();
      if (pending[b] == 0) // failed to read (or nothing to project): finished already
        finished(b);
    }
    published.notify_all();
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    allRead = true;
  }
  published.notify_all();
  worker();
  for (auto &t : pool)
    t.join();

  for (size_t i = 0; i < jobs.size(); ++i)
    rep.benchmarks[jobs[i].benchmark].kernels[jobs[i].kernel].gpus[jobs[i].gpu] = std::move(results[i]);

  // Then each benchmark's program on each GPU, in parallel (fusion projects
  // more kernels, so it is worth the threads too).
  size_t ng = o.gpus.size();
  for (auto &b : rep.benchmarks)
    b.programs.assign(b.error.empty() ? ng : 0, std::nullopt);
  parallelFor(rep.benchmarks.size() * ng, o.jobs, [&](size_t i) {
    report::BenchmarkResult &b = rep.benchmarks[i / ng];
    if (!b.error.empty())
      return;
    try {
      b.programs[i % ng] = program(files[i / ng], b, i % ng, o);
    } catch (const std::exception &) {
      b.programs[i % ng] = std::nullopt; // its kernels' errors are reported already
    }
  });
  return rep;
}

} // namespace skelcast::cli
