#pragma once
// A carrier that holds one lab's calls until the test lets them go, in front of another
// carrier (the in-process lab's simulated one: in_process_lab.hpp). "A quote still running in
// lab A" is then a state a test holds, not a race it hopes to win. Every other lab's call, and
// every call while nothing is held, goes straight through; the clock does not move while a
// call is held. A held call waits 10 s at most, so a failed test cannot hang the suite.
// Thread-safe.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>

#include "lab/resilience/carrier_call.hpp"

namespace quote_lab::testing {

class HeldCarrier final : public CarrierCaller {
 public:
  explicit HeldCarrier(CarrierCaller& inner) : inner_(inner) {}
  ~HeldCarrier() override { release(); }
  HeldCarrier(const HeldCarrier&) = delete;
  HeldCarrier& operator=(const HeldCarrier&) = delete;

  /// Holds every later call of the student lab `lab` (its normalised name) at the gate.
  void hold(const std::string& lab) {
    std::lock_guard lock(mutex_);
    held_ = lab;
  }
  /// Lets every held call and every later one through.
  void release() {
    std::lock_guard lock(mutex_);
    held_.reset();
    released_.notify_all();
  }
  /// Calls held at the gate now.
  int waiting() const {
    std::lock_guard lock(mutex_);
    return waiting_;
  }

  CallOutcome call(const CarrierRequest& r) override {
    {
      std::unique_lock lock(mutex_);
      if (held_ && *held_ == r.lab) {
        ++waiting_;
        released_.wait_for(lock, std::chrono::seconds(10), [&] { return !held_ || *held_ != r.lab; });
        --waiting_;
      }
    }
    return inner_.call(r);
  }

 private:
  CarrierCaller& inner_;
  mutable std::mutex mutex_;  // guards held_ and waiting_
  std::condition_variable released_;
  std::optional<std::string> held_;
  int waiting_ = 0;
};

}  // namespace quote_lab::testing
