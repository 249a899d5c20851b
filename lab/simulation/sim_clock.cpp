#include "lab/simulation/sim_clock.hpp"

namespace quote_lab {
namespace {

// A ClockCondition on the scheduler: a waiter that is not ready parks until notified or its
// deadline; the lock is released while it is parked, as a condition variable releases it.
class SimCondition final : public ClockCondition {
 public:
  explicit SimCondition(SimScheduler& scheduler) : scheduler_(scheduler) {}
  bool wait_until(std::unique_lock<std::mutex>& lock, SteadyTime deadline, std::stop_token stop,
                  const std::function<bool()>& ready) override {
    while (!ready()) {
      if (stop.stop_requested() || scheduler_.now() >= deadline) return ready();
      waiters_.push_back(scheduler_.waker());
      lock.unlock();
      scheduler_.park_until(deadline);
      lock.lock();
    }
    return true;
  }
  void notify_one() override {
    // A waiter whose wait ended at its deadline is stale: the next one is woken instead.
    while (!waiters_.empty()) {
      const SimScheduler::Waker w = waiters_.front();
      waiters_.pop_front();
      if (scheduler_.wake(w)) return;
    }
  }

 private:
  SimScheduler& scheduler_;
  std::deque<SimScheduler::Waker> waiters_;
};

}  // namespace

WallTime SimClock::wall_start() {
  // 2026-01-01T00:00:00Z in Unix seconds.
  return WallTime(std::chrono::seconds(1767225600));
}

WallTime SimClock::wall_now() const {
  return wall_start() + std::chrono::duration_cast<WallTime::duration>(scheduler_.now() - start_);
}

void SimClock::sleep_for(Millis d) {
  if (!scheduler_.in_fiber()) throw std::logic_error("simulation: a sleep outside the scheduler's fibers");
  if (d > Millis::zero()) scheduler_.sleep_until(scheduler_.now() + d);
}

bool SimClock::sleep_unless_stopped(Millis d, std::stop_token stop) {
  if (stop.stop_requested()) return false;
  sleep_for(d);
  return !stop.stop_requested();
}

std::unique_ptr<ClockCondition> SimClock::make_condition() { return std::make_unique<SimCondition>(scheduler_); }

bool SimSignal::wait_until(SteadyTime deadline) {
  waiters_.push_back(scheduler_.waker());
  return scheduler_.park_until(deadline);
}

void SimSignal::notify_all() {
  std::deque<SimScheduler::Waker> waiting;
  waiting.swap(waiters_);
  for (const auto& w : waiting) scheduler_.wake(w);
}

void SimSlots::acquire() {
  if (free_ > 0 && line_.empty()) {
    --free_;
    return;
  }
  bool granted = false;
  line_.push_back({scheduler_.waker(), &granted});
  while (!granted) scheduler_.park_until(std::nullopt);
}

void SimSlots::release() {
  if (line_.empty()) {
    ++free_;
    return;
  }
  const Waiter next = line_.front();
  line_.pop_front();
  *next.granted = true;  // the place passes straight to it
  scheduler_.wake(next.waker);
}

}  // namespace quote_lab
