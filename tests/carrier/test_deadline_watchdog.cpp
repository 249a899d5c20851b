// A total deadline for carrier calls (lab/carrier/deadline_watchdog.hpp).
#include <doctest/doctest.h>

#include <atomic>

#include "lab/carrier/deadline_watchdog.hpp"
#include "support/poll.hpp"

namespace test_deadline_watchdog {

using namespace quote_lab;
using quote_lab::testing::eventually;
using namespace std::chrono_literals;

TEST_CASE("the cancel action runs once the deadline passes, and the guard says so") {
  DeadlineWatchdog watchdog;
  std::atomic<int> cancelled{0};
  const auto t0 = std::chrono::steady_clock::now();
  auto guard = watchdog.arm(t0 + 30ms, [&] { ++cancelled; });
  CHECK(eventually([&] { return cancelled.load() == 1; }, 5s, 1ms));
  CHECK(std::chrono::steady_clock::now() - t0 >= 30ms);  // not before its deadline
  CHECK(guard.fired());
  CHECK(cancelled.load() == 1);  // once
}

TEST_CASE("a call that ends in time disarms its deadline: no cancel, not fired") {
  DeadlineWatchdog watchdog;
  std::atomic<int> cancelled{0};
  {
    auto guard = watchdog.arm(std::chrono::steady_clock::now() + 50ms, [&] { ++cancelled; });
    CHECK_FALSE(guard.fired());
  }
  // Nothing may happen after the guard is gone: a fixed wait past the deadline is the behaviour under test.
  std::this_thread::sleep_for(80ms);
  CHECK(cancelled.load() == 0);
}

TEST_CASE("many deadlines: each fires in its own time, the earliest first") {
  DeadlineWatchdog watchdog;
  std::mutex m;
  std::vector<int> order;
  const auto t0 = std::chrono::steady_clock::now();
  auto late = watchdog.arm(t0 + 40ms, [&] { std::lock_guard l(m); order.push_back(2); });
  auto early = watchdog.arm(t0 + 10ms, [&] { std::lock_guard l(m); order.push_back(1); });
  CHECK(eventually([&] { std::lock_guard l(m); return order.size() == 2; }, 5s, 1ms));
  // Copy, then let go of `m` before asking the watchdog anything: its callbacks run under
  // its own lock and take `m`, so holding `m` around fired() would invert that order.
  std::vector<int> seen;
  {
    std::lock_guard l(m);
    seen = order;
  }
  CHECK(seen == std::vector<int>{1, 2});
  CHECK(early.fired());
  CHECK(late.fired());
}

}  // namespace test_deadline_watchdog
