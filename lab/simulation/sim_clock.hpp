#pragma once
// The lab's Clock (base/clock.hpp) on a SimScheduler's time: the executor's backoffs, the
// strategies' token waits and the bulkhead's queue wait in simulated time, and while one quote
// waits the scheduler runs the others. What a wait needs beyond the clock (a condition, a
// signal, one answer) is here too, each a wait of the scheduler's.

#include <deque>
#include <optional>

#include "lab/base/clock.hpp"
#include "lab/simulation/sim_scheduler.hpp"

namespace quote_lab {

/// Steady and wall time of the simulation. Wall time starts at a fixed instant, so nothing a
/// run prints depends on when it ran. sleep_for from outside the scheduler's fibers throws
/// std::logic_error.
class SimClock final : public Clock {
 public:
  /// 2026-01-01T00:00:00Z: where every simulation's wall time starts.
  static WallTime wall_start();
  explicit SimClock(SimScheduler& scheduler) : scheduler_(scheduler), start_(scheduler.now()) {}

  SteadyTime now() const override { return scheduler_.now(); }
  WallTime wall_now() const override;
  void sleep_for(Millis d) override;
  bool sleep_unless_stopped(Millis d, std::stop_token stop) override;
  /// A condition whose waiters park on the scheduler: notify_one wakes the first of them.
  std::unique_ptr<ClockCondition> make_condition() override;

 private:
  SimScheduler& scheduler_;
  SteadyTime start_;
};

/// Wakes every fiber waiting on it (the carrier's "a place came free" for its stations).
class SimSignal {
 public:
  explicit SimSignal(SimScheduler& scheduler) : scheduler_(scheduler) {}
  /// From a fiber: waits until notify_all() or `deadline`; true when notified.
  bool wait_until(SteadyTime deadline);
  void notify_all();

 private:
  SimScheduler& scheduler_;
  std::deque<SimScheduler::Waker> waiters_;
};

/// `slots` places held one per fiber, given in arrival order: the lab's worker slots
/// (http/worker_slots.hpp) and the carrier's threads, as a simulation holds them.
class SimSlots {
 public:
  SimSlots(SimScheduler& scheduler, int slots) : scheduler_(scheduler), free_(slots) {}
  /// From a fiber: waits for a place, first come first served, and takes it.
  void acquire();
  /// Gives a place back: to the longest waiter, if any.
  void release();

 private:
  struct Waiter {
    SimScheduler::Waker waker;
    bool* granted;
  };
  SimScheduler& scheduler_;
  int free_;
  std::deque<Waiter> line_;
};

}  // namespace quote_lab
