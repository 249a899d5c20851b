// The only file that reads the machine's clocks (see clock.hpp).
#include "lab/base/clock.hpp"

#include <condition_variable>
#include <thread>

namespace quote_lab {

SteadyTime SystemClock::now() const { return std::chrono::steady_clock::now(); }

WallTime SystemClock::wall_now() const { return std::chrono::system_clock::now(); }

void SystemClock::sleep_for(Millis d) {
  if (d > Millis::zero()) std::this_thread::sleep_for(d);
}

bool SystemClock::sleep_unless_stopped(Millis d, std::stop_token stop) {
  if (d <= Millis::zero()) return !stop.stop_requested();
  // Nothing ever notifies this condition: only the stop token (or the timeout) wakes it.
  std::mutex mutex;
  std::condition_variable_any never_notified;
  std::unique_lock lock(mutex);
  never_notified.wait_for(lock, stop, d, [] { return false; });
  return !stop.stop_requested();
}

namespace {

// The machine's time: a condition variable's timed wait, which a stop also ends.
class RealCondition final : public ClockCondition {
 public:
  bool wait_until(std::unique_lock<std::mutex>& lock, SteadyTime deadline, std::stop_token stop,
                  const std::function<bool()>& ready) override {
    return cv_.wait_until(lock, stop, deadline, ready);
  }
  void notify_one() override { cv_.notify_one(); }

 private:
  std::condition_variable_any cv_;
};

}  // namespace

std::unique_ptr<ClockCondition> SystemClock::make_condition() { return std::make_unique<RealCondition>(); }

bool InterruptibleSleep::sleep_for(Millis d) {
  std::unique_lock lock(mutex_);
  return !wake_.wait_for(lock, d, [this] { return interrupted_; });
}

void InterruptibleSleep::interrupt() {
  {
    std::lock_guard lock(mutex_);
    interrupted_ = true;
  }
  wake_.notify_all();
}

void InterruptibleSleep::rearm() {
  std::lock_guard lock(mutex_);
  interrupted_ = false;
}

}  // namespace quote_lab
