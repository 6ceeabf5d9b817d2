/// \file
/// Work spread over threads: `batch`'s jobs (src/cli/SuiteRunner.cpp) and the
/// compiler runs of one command (toolchain::CompileCache::buildAll).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <system_error>
#include <vector>

#include <pthread.h>

namespace skelcast {

/// A thread with an 8 MiB stack, what the main thread has by default: Clang's
/// parser and the skeletonizer's walks recurse over a C file's nesting, and a
/// std::thread gets only 2 MiB from glibc when `ulimit -s` is unlimited.
/// Joined when destroyed; throws std::system_error when it cannot start.
class WorkerThread {
public:
  explicit WorkerThread(std::function<void()> fn)
      : fn_(std::make_unique<std::function<void()>>(std::move(fn))) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, size_t{8} << 20);
    int rc = pthread_create(&thread_, &attr, &WorkerThread::start, fn_.get());
    pthread_attr_destroy(&attr);
    if (rc != 0)
      throw std::system_error(rc, std::generic_category(), "cannot start a thread");
  }
  WorkerThread(const WorkerThread &) = delete;
  WorkerThread &operator=(const WorkerThread &) = delete;
  ~WorkerThread() { pthread_join(thread_, nullptr); }

private:
  static void *start(void *fn) {
    (*static_cast<std::function<void()> *>(fn))();
    return nullptr;
  }
  std::unique_ptr<std::function<void()>> fn_;
  pthread_t thread_{};
};

/// Run fn(i) for i in [0, n) on `jobs` threads: a shared counter hands out the
/// indices; fn writes only its own slot, so results do not depend on `jobs`.
/// fn must not throw. A thread that cannot start is a std::system_error, once
/// the threads started have ended.
template <class Fn> void parallelFor(size_t n, unsigned jobs, Fn fn) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1))
      fn(i);
  };
  size_t threads = std::max<size_t>(1, std::min<size_t>(jobs, n));
  std::vector<std::unique_ptr<WorkerThread>> pool;
  for (size_t t = 1; t < threads; ++t)
    pool.push_back(std::make_unique<WorkerThread>(worker));
  worker();
  pool.clear(); // joins
}

} // namespace skelcast
