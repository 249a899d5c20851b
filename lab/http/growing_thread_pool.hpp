#pragma once
// The HTTP servers' worker threads, started as connections need them. httplib's ThreadPool
// starts all of them up front: the lab's (--max-connections, 768, and a few) and the
// carrier's (--carrier-workers, 354) were 1,100 threads from the first second, and stopping
// joined every one (under ThreadSanitizer, 2.4 s idle and
// 9.8 s beside other tests: a SIGTERM missed its 10 s). Here a thread starts only when a
// connection finds none idle, up to the same bound; beyond it a connection waits in the
// queue, as with httplib's pool. A started thread stays for the server's life, so a storm's
// peak is paid once.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <httplib.h>
#include <mutex>
#include <thread>
#include <vector>

namespace quote_lab {

class GrowingThreadPool final : public httplib::TaskQueue {
 public:
  /// At most `max_threads` (at least 1) threads, none started yet.
  explicit GrowingThreadPool(std::size_t max_threads);
  ~GrowingThreadPool() override;
  GrowingThreadPool(const GrowingThreadPool&) = delete;
  GrowingThreadPool& operator=(const GrowingThreadPool&) = delete;

  /// Runs `job` on an idle thread, a new one if none is idle and the bound allows, else
  /// when a thread frees up. Called by the server's accept loop.
  void enqueue(std::function<void()> job) override;
  /// Runs the jobs already queued, then joins every thread. Idempotent.
  void shutdown() override;

  /// Threads started so far (for tests and the start-up log).
  std::size_t started() const;

 private:
  void work();

  const std::size_t max_threads_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace quote_lab
