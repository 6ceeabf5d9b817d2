#include "SuiteRunner.h"

#include "skelcast/layout/KernelInfo.h"
#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>

#include <atomic>
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
  const model::HwSpec &hw = o.gpus[j.gpu];
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

} // namespace

report::BatchReport runSuite(const Suite &suite, const SuiteRunOptions &o) {
  report::BatchReport rep;
  rep.version = SKELCAST_VERSION;
  rep.model = o.modelLabel;
  rep.suite = suite.path;
  rep.top = o.top;
  for (const auto &hw : o.gpus)
    rep.gpus.push_back({hw.name, hw.description, hw.contentHash, hw.clockGHz});

  // Phase 1, in order: read the inputs and analyse their kernels.
  std::vector<std::vector<layout::KernelInfo>> infos(suite.benchmarks.size());
  std::vector<Job> jobs;
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
        for (size_t k = 0; k < in.file.kernels.size(); ++k)
          infos[b].push_back(layout::analyzeKernel(in.file, k));
        for (size_t k = 0; k < in.file.kernels.size(); ++k)
          br.kernels.push_back({in.file.kernelName(k), std::vector<report::KernelGpuResult>(o.gpus.size())});
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
    for (size_t k = 0; k < infos[b].size(); ++k)
      for (size_t g = 0; g < o.gpus.size(); ++g)
        jobs.push_back({b, k, g, nullptr});
    rep.benchmarks.push_back(std::move(br));
  }
  for (auto &j : jobs)
    j.info = &infos[j.benchmark][j.kernel];

  // Phase 2, in parallel: a shared counter hands out job indices; each result
  // goes to its own slot, so nothing but the counter and progress is shared.
  std::vector<report::KernelGpuResult> results(jobs.size());
  std::atomic<size_t> next{0};
  std::mutex progressMutex;
  size_t done = 0;
  auto worker = [&] {
    for (;;) {
      size_t i = next.fetch_add(1);
      if (i >= jobs.size())
        return;
      results[i] = project(jobs[i], o);
      if (o.progress) {
        std::lock_guard<std::mutex> lock(progressMutex);
        o.progress(++done, jobs.size());
      }
    }
  };
  size_t threads = std::max<size_t>(1, std::min<size_t>(o.jobs, jobs.size()));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (auto &t : pool)
    t.join();

  for (size_t i = 0; i < jobs.size(); ++i)
    rep.benchmarks[jobs[i].benchmark].kernels[jobs[i].kernel].gpus[jobs[i].gpu] = std::move(results[i]);
  return rep;
}

} // namespace skelcast::cli
