#pragma once
// Time, injected: the breaker, the backoff waits, the executor and the carrier read time only
// through a Clock (SystemClock in real_clock.cpp), so tests drive them with a fake one. Code
// timing real sockets and threads (connection heads, watchdog, storm, shutdown) reads steady_clock.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>

namespace quote_lab {

using Millis = std::chrono::milliseconds;
using SteadyTime = std::chrono::steady_clock::time_point;
using WallTime = std::chrono::system_clock::time_point;

/// What one thread waits on until another wakes it or a deadline passes on a clock's time (a
/// bulkhead's queue, waiting for a place). Made by that clock (Clock::make_condition), so a
/// clock that is not the machine's — a test's, a simulation's — decides how the wait passes,
/// and nothing waits in real time behind the clock's back. Thread-safe.
class ClockCondition {
 public:
  virtual ~ClockCondition() = default;
  /// With `lock` held: waits until `ready()` (checked with `lock` held), the clock reads
  /// `deadline`, or `stop` is requested, releasing `lock` meanwhile; returns ready().
  virtual bool wait_until(std::unique_lock<std::mutex>& lock, SteadyTime deadline, std::stop_token stop,
                          const std::function<bool()>& ready) = 0;
  /// Wakes one waiter, which checks ready() again.
  virtual void notify_one() = 0;
};

/// Source of monotonic time (durations, deadlines, cooldowns) and wall time (timestamps
/// and the persisted `opened_until` only). Implementations are thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Monotonic time: never jumps when the system clock is set.
  virtual SteadyTime now() const = 0;
  /// Wall-clock UTC time, for what users read as a date.
  virtual WallTime wall_now() const = 0;
  /// Blocks for `d` (a fake clock advances its time instead and returns at once).
  virtual void sleep_for(Millis d) = 0;
  /// Like sleep_for, but returns as soon as `stop` is requested (shutdown must not wait
  /// out a backoff). Returns false if it was cut short or `stop` was already requested.
  /// The default sleeps the whole `d` (right for a fake clock, whose sleeps are instant).
  virtual bool sleep_unless_stopped(Millis d, std::stop_token stop) {
    if (stop.stop_requested()) return false;
    sleep_for(d);
    return !stop.stop_requested();
  }
  /// A condition whose deadlines are on this clock. The default suits a clock whose sleeps
  /// are instant (a test's): a wait that is not ready passes as a sleep to its deadline, as if
  /// nobody else ran meanwhile, and notifying does nothing; SystemClock's waits on a condition
  /// variable in real time.
  virtual std::unique_ptr<ClockCondition> make_condition();
};

/// The machine's clocks: std::chrono::steady_clock and system_clock.
class SystemClock final : public Clock {
 public:
  SteadyTime now() const override;
  WallTime wall_now() const override;
  void sleep_for(Millis d) override;
  bool sleep_unless_stopped(Millis d, std::stop_token stop) override;
  std::unique_ptr<ClockCondition> make_condition() override;
};

/// A real-time sleep that another thread can cut short, so a server that is simulating a
/// slow or hung dependency can stop at once instead of waiting out its simulated latency.
class InterruptibleSleep {
 public:
  /// Sleeps `d` of real time. Returns false if `interrupt()` was called (before or during).
  bool sleep_for(Millis d);
  /// Wakes every sleeper now and makes later sleeps return false immediately.
  void interrupt();
  /// Makes sleeps work again after `interrupt()` (for a server that restarts).
  void rearm();

 private:
  std::mutex mutex_;                 // guards interrupted_
  std::condition_variable wake_;
  bool interrupted_ = false;
};

/// Milliseconds between two monotonic instants, with sub-millisecond precision.
inline double elapsed_ms(SteadyTime from, SteadyTime to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

}  // namespace quote_lab
