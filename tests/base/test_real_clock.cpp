// The machine's clock (lab/base/real_clock.cpp): real sleeps that a stop cuts short.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "lab/base/clock.hpp"
#include "support/poll.hpp"

namespace test_real_clock {

using namespace quote_lab;
using quote_lab::testing::eventually;
using namespace std::chrono_literals;

TEST_CASE("an interruptible sleep sleeps its whole time when nobody interrupts it") {
  InterruptibleSleep sleep;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(sleep.sleep_for(30ms));
  CHECK(std::chrono::steady_clock::now() - t0 >= 30ms);
}

TEST_CASE("interrupt() wakes a sleeper at once, and later sleeps return false until rearm()") {
  InterruptibleSleep sleep;
  std::atomic<int> result{-1};
  std::thread sleeper([&] { result = sleep.sleep_for(std::chrono::hours(1)) ? 1 : 0; });
  sleep.interrupt();
  CHECK(eventually([&] { return result.load() == 0; }, 5s));  // woke up, reported the interruption
  sleeper.join();
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_FALSE(sleep.sleep_for(std::chrono::hours(1)));
  CHECK(std::chrono::steady_clock::now() - t0 < 1s);
  sleep.rearm();
  CHECK(sleep.sleep_for(1ms));
}

TEST_CASE("the system clock's stoppable sleep ends when the stop is requested") {
  SystemClock clock;
  std::stop_source stop;
  std::atomic<int> result{-1};
  std::thread sleeper([&] { result = clock.sleep_unless_stopped(std::chrono::hours(1), stop.get_token()) ? 1 : 0; });
  stop.request_stop();
  CHECK(eventually([&] { return result.load() == 0; }, 5s));
  sleeper.join();
  CHECK_FALSE(clock.sleep_unless_stopped(1ms, stop.get_token()));  // already stopped: no sleep at all
}

}  // namespace test_real_clock
