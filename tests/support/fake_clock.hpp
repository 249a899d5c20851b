#pragma once
// A clock for tests: time moves only when a test (or a sleep) moves it, so breaker
// cooldowns and backoff waits are exact and take no real time.

#include <atomic>
#include <mutex>
#include <vector>

#include "lab/base/clock.hpp"

namespace quote_lab::testing {

/// Where a FakeClock's steady time starts (an hour in, so "an hour ago" is still a time).
inline constexpr SteadyTime kFakeSteadyStart = SteadyTime{} + std::chrono::hours(1);
/// kFakeSteadyStart + `ms`: the times a test hands to parts that take the time as an argument.
inline SteadyTime steady_at(long long ms) { return kFakeSteadyStart + Millis(ms); }

class FakeClock final : public Clock {
 public:
  FakeClock() : steady_(kFakeSteadyStart), wall_(std::chrono::sys_days{std::chrono::year{2026} / 11 / 29}) {}

  SteadyTime now() const override {
    std::lock_guard lock(mutex_);
    return steady_;
  }
  WallTime wall_now() const override {
    std::lock_guard lock(mutex_);
    return wall_;
  }
  /// Advances both clocks by `d` at once and remembers the wait.
  void sleep_for(Millis d) override {
    std::lock_guard lock(mutex_);
    sleeps_.push_back(d);
    steady_ += d;
    wall_ += d;
  }
  void advance(Millis d) {
    std::lock_guard lock(mutex_);
    steady_ += d;
    wall_ += d;
  }
  /// Moves only the wall clock (a lab that was down, or a system clock that was set).
  void advance_wall(Millis d) {
    std::lock_guard lock(mutex_);
    wall_ += d;
  }
  std::vector<Millis> sleeps() const {
    std::lock_guard lock(mutex_);
    return sleeps_;
  }

 private:
  mutable std::mutex mutex_;
  SteadyTime steady_;
  WallTime wall_;
  std::vector<Millis> sleeps_;
};

}  // namespace quote_lab::testing
