// The lab's simulation runner: one thread, arrival order, a bounded line.

#include <doctest/doctest.h>

#include <atomic>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lab/app/simulation_runner.hpp"

namespace test_simulation_runner {

using namespace quote_lab;

// A simulation that counts itself and delivers nothing.
std::function<SimulationRunner::Delivery()> count(std::atomic<int>& ran) {
  return [&ran] {
    ++ran;
    return SimulationRunner::Delivery{};
  };
}

TEST_CASE("simulations run one at a time in the order they were asked") {
  std::vector<int> order;
  std::mutex mutex;
  {
    SimulationRunner runner;
    for (int i = 0; i < 10; ++i)
      REQUIRE(runner.submit([&, i] {
        std::lock_guard lock(mutex);
        order.push_back(i);
        return SimulationRunner::Delivery{};
      }) == SimulationRunner::Admission::queued);
  }  // the destructor runs what is in line, then joins
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
}

// Puts in line, for `asker`, a simulation that holds the runner's thread until `release` is
// set, and returns once it runs.
void hold_the_runner(SimulationRunner& runner, std::promise<void>& release, const std::string& asker) {
  std::shared_future<void> released = release.get_future().share();
  // Shared with the simulation: this function returns (and its locals go) once it is set.
  auto running = std::make_shared<std::promise<void>>();
  std::future<void> started = running->get_future();
  REQUIRE(runner.submit([running, released] {
    running->set_value();
    released.wait();
    return SimulationRunner::Delivery{};
  }, asker) == SimulationRunner::Admission::queued);
  started.wait();
}

TEST_CASE("past kMaxWaiting in line a simulation is refused at once, not queued") {
  std::atomic<int> ran{0};
  {
    SimulationRunner runner;
    std::promise<void> release;
    hold_the_runner(runner, release, "");  // it left the line: kMaxWaiting places are free
    for (std::size_t i = 0; i < SimulationRunner::kMaxWaiting; ++i)
      CHECK(runner.submit(count(ran)) == SimulationRunner::Admission::queued);
    CHECK(runner.waiting() == SimulationRunner::kMaxWaiting);
    CHECK(runner.submit(count(ran)) == SimulationRunner::Admission::line_full);
    CHECK(runner.retry_after_s() == 5);  // 32 waiting: about how long they take
    release.set_value();
  }  // the destructor runs the line, then joins
  CHECK(ran == static_cast<int>(SimulationRunner::kMaxWaiting));
}

TEST_CASE("one asker holds at most kMaxPerAsker places in line: the others still get theirs") {
  std::atomic<int> ran{0};
  {
    SimulationRunner runner;
    std::promise<void> release;
    hold_the_runner(runner, release, "bob");
    // Bob's running one counts: one more of his may wait, the next is his share full.
    CHECK(runner.submit(count(ran), "bob") == SimulationRunner::Admission::queued);
    CHECK(runner.submit(count(ran), "bob") == SimulationRunner::Admission::asker_full);
    CHECK(runner.submit(count(ran), "ana") == SimulationRunner::Admission::queued);
    CHECK(runner.submit(count(ran)) == SimulationRunner::Admission::queued);  // no asker: no share
    release.set_value();
  }
  CHECK(ran == 3);
  // Once answered, the share is free again: one at a time, Bob is never refused (his last one
  // may still be leaving the runner when he asks again: the share holds it).
  SimulationRunner runner;
  for (int i = 0; i < 5; ++i) {
    std::promise<void> done;
    REQUIRE(runner.submit([&done] { return SimulationRunner::Delivery([&done] { done.set_value(); }); }, "bob") ==
            SimulationRunner::Admission::queued);
    done.get_future().wait();
  }
}

TEST_CASE("an answered asker may ask again at once: her place is free before her answer is delivered") {
  // A page keeps its 2 places busy: the moment one answer arrives it asks for the next cell.
  SimulationRunner runner;
  std::promise<void> release, first_answered, second_answered, third_answered;
  std::shared_future<void> released = release.get_future().share();
  REQUIRE(runner.submit([released, &first_answered] {
    released.wait();
    return SimulationRunner::Delivery([&first_answered] { first_answered.set_value(); });
  }, "bob") == SimulationRunner::Admission::queued);
  REQUIRE(runner.submit([&second_answered] {
    return SimulationRunner::Delivery([&second_answered] { second_answered.set_value(); });
  }, "bob") == SimulationRunner::Admission::queued);
  release.set_value();
  first_answered.get_future().wait();
  // Bob has his first answer and his second in line: his share has a place for a third.
  CHECK(runner.submit([&third_answered] {
    return SimulationRunner::Delivery([&third_answered] { third_answered.set_value(); });
  }, "bob") == SimulationRunner::Admission::queued);
  second_answered.get_future().wait();
  third_answered.get_future().wait();
}

}  // namespace test_simulation_runner
