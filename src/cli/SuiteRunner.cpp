#include "SuiteRunner.h"

#include "skelcast/layout/KernelInfo.h"
#include "skelcast/model/Program.h"
#include "skelcast/support/Diagnostic.h"
#include "skelcast/support/Parallel.h"

#include <fmt/format.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>
#include <system_error>


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

/// The start of a failed program's warning (programFailures finds it by this).
std::string programFailureText(const std::string &benchmark, const std::string &gpu) {
  return fmt::format("no program projection of '{}' on {}: ", benchmark, gpu);
}

/// Read input `spec` (a C file through the skeletonizer) into `br`, its kernels'
/// analyses into `infos` and the skeleton into `file`; a failure goes into
/// br.error, nothing throws. Runs on any thread: everything it touches is its
/// own (the frontend keeps no state between files; see docs/performance.md).
void readInput(const BenchmarkSpec &spec, size_t gpus, report::BenchmarkResult &br,
               std::vector<layout::KernelInfo> &infos, skeleton::SkeletonFile &file) {
  br.name = spec.name;
  br.input = spec.input;
  br.cpuMs = spec.cpuMs;
  br.error = spec.error;
  if (!br.error.empty())
    return;
  std::ostringstream diagnostics;
  try {
    LoadedInput in = loadSkeleton(spec.input, spec.options, diagnostics);
    for (const auto &w : in.warnings)
      br.warnings.push_back(w.str());
    if (in.file.kernels.empty())
      throw InputError({spec.input, 0, 0}, "no parallel_for kernel in this file");
    infos = model::analyzeProgram(in.file);
    for (size_t k = 0; k < in.file.kernels.size(); ++k)
      br.kernels.push_back({in.file.kernelName(k), std::vector<report::KernelGpuResult>(gpus)});
    file = std::move(in.file);
  } catch (const InputError &e) {
    br.error = diagnostics.str() + e.what();
  } catch (const std::bad_alloc &) {
    br.error = diagnostics.str() + fmt::format("{}: error: out of memory", spec.input);
  } catch (const std::exception &e) {
    br.error = diagnostics.str() + fmt::format("{}: error: internal error: {}", spec.input, e.what());
  }
  if (!br.error.empty()) {
    br.kernels.clear();
    infos.clear();
  }
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

  // Every thread takes work from one queue: a published projection job first
  // (so that memory holds few read inputs and progress moves), else the next
  // input to read (its Clang parse, the bulk of a C suite's time, runs beside
  // the other threads' parses and projections), and stops when nothing is left
  // to read, nothing is being read and every job is taken. Each input and job
  // writes only its own slot (rep.benchmarks[b], results[i]), so the report is
  // the same bytes whatever the number of threads and the order they finish
  // in. Deques: their elements stay in place as they grow, so a job and its
  // result slot are used outside the lock.
  const size_t nb = suite.benchmarks.size(), ng = o.gpus.size();
  std::vector<std::vector<layout::KernelInfo>> infos(nb);
  std::vector<skeleton::SkeletonFile> files(nb);
  rep.benchmarks.resize(nb); // written under the lock: workers read it to report progress
  std::deque<Job> jobs;
  std::deque<report::KernelGpuResult> results;
  std::mutex mutex;
  std::condition_variable changed;
  size_t nextJob = 0, nextInput = 0, reading = 0;
  // Progress by input: an input is finished when its last job is; the total is
  // the suite's inputs, known before any is read.
  std::vector<size_t> pending(nb, 0);
  size_t inputsDone = 0;
  auto finished = [&](size_t b) { // with `mutex` held
    ++inputsDone;
    if (!o.progress)
      return;
    const report::BenchmarkResult &br = rep.benchmarks[b];
    o.progress({inputsDone, nb, br.name, br.input, br.kernels.size(), ng, !br.error.empty()});
  };
  auto worker = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return nextJob < jobs.size() || nextInput < nb || reading == 0; });
      if (nextJob < jobs.size()) {
        size_t i = nextJob++;
        const Job &job = jobs[i];
        report::KernelGpuResult &result = results[i];
        lock.unlock();
        result = project(job, o);
        lock.lock();
        if (--pending[job.benchmark] == 0)
          finished(job.benchmark);
        continue;
      }
      if (nextInput == nb)
        return; // every input read, every job taken (the wait saw reading == 0)
      size_t b = nextInput++;
      ++reading;
      lock.unlock();
      report::BenchmarkResult br;
      readInput(suite.benchmarks[b], ng, br, infos[b], files[b]);
      lock.lock();
      --reading;
      rep.benchmarks[b] = std::move(br);
      for (size_t k = 0; k < infos[b].size(); ++k)
        for (size_t g = 0; g < ng; ++g) {
          jobs.push_back({b, k, g, &infos[b][k]});
          results.emplace_back();
        }
      pending[b] = infos[b].size() * ng;
      if (pending[b] == 0) // failed to read (or nothing to project): finished already
        finished(b);
      changed.notify_all(); // new jobs, or the last read done: waiting threads may go on or stop
    }
  };
  size_t threads = std::max<size_t>(1, std::min<size_t>(o.jobs, nb * ng));
  std::vector<std::unique_ptr<WorkerThread>> pool;
  for (size_t t = 1; t < threads; ++t)
    pool.push_back(std::make_unique<WorkerThread>(worker));
  worker();
  pool.clear(); // joins

  for (size_t i = 0; i < jobs.size(); ++i)
    rep.benchmarks[jobs[i].benchmark].kernels[jobs[i].kernel].gpus[jobs[i].gpu] = std::move(results[i]);

  // Then each benchmark's program on each GPU, in parallel (fusion projects
  // more kernels, so it is worth the threads too). A program that fails where
  // every kernel has a projection (a spec without `host_link`, a repeat the
  // model refuses) is a warning at the error's position, in slot order so that
  // the warnings do not depend on the threads.
  std::vector<std::optional<Warning>> programErrors(nb * ng);
  for (auto &b : rep.benchmarks)
    b.programs.assign(b.error.empty() ? ng : 0, std::nullopt);
  parallelFor(nb * ng, o.jobs, [&](size_t i) {
    report::BenchmarkResult &b = rep.benchmarks[i / ng];
    size_t g = i % ng;
    if (!b.error.empty())
      return;
    auto fail = [&](SourceLoc loc, const std::string &why) {
      programErrors[i] = Warning{std::move(loc), programFailureText(b.name, o.gpus[g].name) + why};
    };
    try {
      b.programs[g] = program(files[i / ng], b, g, o); // nullopt: a kernel failed, reported already
    } catch (const InputError &e) {
      fail(e.loc(), e.message());
    } catch (const std::bad_alloc &) {
      fail({b.input, 0, 0}, "out of memory");
    } catch (const std::exception &e) {
      fail({b.input, 0, 0}, fmt::format("internal error: {}", e.what()));
    }
  });
  for (size_t i = 0; i < programErrors.size(); ++i)
    if (programErrors[i])
      rep.benchmarks[i / ng].warnings.push_back(programErrors[i]->str());
  return rep;
}

std::vector<ProgramFailure> programFailures(const report::BatchReport &r) {
  std::vector<ProgramFailure> out;
  for (const auto &b : r.benchmarks) {
    if (!b.error.empty())
      continue;
    for (size_t g = 0; g < r.gpus.size() && g < b.programs.size(); ++g) {
      if (b.programs[g])
        continue;
      bool kernelsOk = true;
      for (const auto &k : b.kernels)
        kernelsOk = kernelsOk && g < k.gpus.size() && k.gpus[g].ok();
      if (!kernelsOk)
        continue; // the kernel's failure is reported (report::batchFailures)
      std::string key = programFailureText(b.name, r.gpus[g].name), message;
      for (const auto &w : b.warnings)
        if (w.find(key) != std::string::npos)
          message = w;
      out.push_back({b.name, r.gpus[g].name, message.empty() ? key + "no reason recorded" : message});
    }
  }
  return out;
}

} // namespace skelcast::cli
