#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "lab/http/growing_thread_pool.hpp"

namespace test_growing_thread_pool {

using quote_lab::GrowingThreadPool;

namespace {
// Jobs that hold their thread until released.
struct Gate {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  int running = 0;
  void hold() {
    std::unique_lock lock(mutex);
    ++running;
    cv.notify_all();
    cv.wait(lock, [this] { return open; });
  }
  void wait_running(int n) {
    std::unique_lock lock(mutex);
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return running >= n; });
  }
  void release() {
    std::lock_guard lock(mutex);
    open = true;
    cv.notify_all();
  }
};
}  // namespace

TEST_CASE("a growing pool starts no thread until a job comes, then one per job that finds none idle") {
  GrowingThreadPool pool(8);
  CHECK(pool.started() == 0);
  Gate gate;
  for (int i = 0; i < 3; ++i) pool.enqueue([&] { gate.hold(); });
  gate.wait_running(3);
  CHECK(gate.running == 3);
  CHECK(pool.started() == 3);
  gate.release();
  pool.shutdown();
}

TEST_CASE("a growing pool reuses an idle thread, and past its bound queues the job until one frees up") {
  GrowingThreadPool pool(2);
  std::atomic<int> done{0};
  pool.enqueue([&] { ++done; });
  for (int i = 0; i < 200 && done < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(done == 1);
  Gate gate;
  pool.enqueue([&] { gate.hold(); });
  pool.enqueue([&] { gate.hold(); });
  pool.enqueue([&] { gate.hold(); });  // the third waits: the bound is 2
  gate.wait_running(2);
  CHECK(pool.started() == 2);
  {
    std::lock_guard lock(gate.mutex);
    CHECK(gate.running == 2);
  }
  gate.release();
  pool.shutdown();  // runs what was queued, then joins
  CHECK(gate.running == 3);
}

TEST_CASE("a growing pool's shutdown joins every thread it started, and runs a late job on the caller") {
  GrowingThreadPool pool(4);
  std::atomic<int> done{0};
  for (int i = 0; i < 4; ++i) pool.enqueue([&] { ++done; });
  pool.shutdown();
  CHECK(done == 4);
  pool.enqueue([&] { ++done; });
  CHECK(done == 5);
  pool.shutdown();  // a second time: nothing to join
}

}  // namespace test_growing_thread_pool
