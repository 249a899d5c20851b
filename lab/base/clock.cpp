// The default condition of a Clock: for clocks whose sleeps are instant (clock.hpp).
#include "lab/base/clock.hpp"

namespace quote_lab {
namespace {

// Nobody else runs while a wait on an instant clock passes, so nothing could make it ready
// before its deadline: it is a sleep to the deadline, then a last look.
class SleepingCondition final : public ClockCondition {
 public:
  explicit SleepingCondition(Clock& clock) : clock_(clock) {}
  bool wait_until(std::unique_lock<std::mutex>& lock, SteadyTime deadline, std::stop_token stop,
                  const std::function<bool()>& ready) override {
    if (ready() || stop.stop_requested()) return ready();
    const SteadyTime now = clock_.now();
    if (now < deadline) {
      lock.unlock();
      clock_.sleep_unless_stopped(std::chrono::ceil<Millis>(deadline - now), stop);
      lock.lock();
    }
    return ready();
  }
  void notify_one() override {}

 private:
  Clock& clock_;
};

}  // namespace

std::unique_ptr<ClockCondition> Clock::make_condition() { return std::make_unique<SleepingCondition>(*this); }

}  // namespace quote_lab
