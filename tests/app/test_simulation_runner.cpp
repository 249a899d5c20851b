// The lab's simulation runner: one thread, arrival order, a bounded line.

#include <doctest/doctest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <vector>

#include "lab/app/simulation_runner.hpp"

namespace test_simulation_runner {

using namespace quote_lab;

TEST_CASE("simulations run one at a time in the order they were asked") {
  std::vector<int> order;
  std::mutex mutex;
  {
    SimulationRunner runner;
    for (int i = 0; i < 10; ++i)
      REQUIRE(runner.submit([&, i] {
        std::lock_guard lock(mutex);
        order.push_back(i);
      }));
  }  // the destructor runs what is in line, then joins
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
}

TEST_CASE("past kMaxWaiting in line a simulation is refused at once, not queued") {
  std::atomic<int> ran{0};
  {
    SimulationRunner runner;
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    std::promise<void> running;
    REQUIRE(runner.submit([&running, released] {
      running.set_value();
      released.wait();  // holds the runner's thread
    }));
    running.get_future().wait();  // it left the line: kMaxWaiting places are free
    for (std::size_t i = 0; i < SimulationRunner::kMaxWaiting; ++i) CHECK(runner.submit([&ran] { ++ran; }));
    CHECK(runner.waiting() == SimulationRunner::kMaxWaiting);
    CHECK_FALSE(runner.submit([&ran] { ++ran; }));
    release.set_value();
  }  // the destructor runs the line, then joins
  CHECK(ran == static_cast<int>(SimulationRunner::kMaxWaiting));
}

}  // namespace test_simulation_runner
