#include "lab/carrier/station_signal.hpp"

namespace quote_lab {

std::uint64_t StationSignal::generation() {
  std::lock_guard lock(mutex_);
  return generation_;
}

void StationSignal::notify() {
  {
    std::lock_guard lock(mutex_);
    ++generation_;
  }
  changed_.notify_all();
}

bool StationSignal::wait(std::uint64_t seen, SteadyTime until) {
  std::unique_lock lock(mutex_);
  changed_.wait_until(lock, until, [&] { return interrupted_ || generation_ != seen; });
  return !interrupted_;
}

void StationSignal::interrupt() {
  {
    std::lock_guard lock(mutex_);
    interrupted_ = true;
  }
  changed_.notify_all();
}

void StationSignal::rearm() {
  std::lock_guard lock(mutex_);
  interrupted_ = false;
}

}  // namespace quote_lab
