#pragma once
// A carrier for executor tests: answers from a script and advances the fake clock by
// each attempt's duration, recording every request it was sent.

#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "lab/carrier/carrier_client.hpp"
#include "support/fake_clock.hpp"

namespace quote_lab::testing {

class ScriptedCarrier final : public CarrierCaller {
 public:
  explicit ScriptedCarrier(FakeClock& clock) : clock_(clock) {}

  /// The next call fails with `error` after `ms`; `retry_after`: the carrier's Retry-After
  /// as the client would have read it (CallOutcome::retry_after).
  ScriptedCarrier& fail(CallError error, int ms, std::optional<Millis> retry_after = std::nullopt) {
    std::lock_guard lock(mutex_);
    script_.push_back({error, ms, retry_after});
    return *this;
  }
  /// The next call answers a quote after `ms`.
  ScriptedCarrier& succeed(int ms) { return fail(CallError::none, ms); }

  CallOutcome call(const CarrierRequest& request) override {
    Step step{CallError::timeout, request.timeout.count() > 0 ? static_cast<int>(request.timeout.count()) : 0, {}};
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(request);
      if (!script_.empty()) {
        step = script_.front();
        script_.pop_front();
      }
    }
    // An attempt never outlives its timeout: a slower scripted answer is a timeout.
    if (step.ms > request.timeout.count()) step = {CallError::timeout, static_cast<int>(request.timeout.count()), {}};
    clock_.advance(Millis(step.ms));
    CallOutcome out;
    out.error = step.error;
    out.elapsed_ms = step.ms;
    out.retry_after = step.retry_after;
    if (step.error == CallError::none)
      out.quote = Quote{"Q-test-" + std::to_string(requests_.size()), 59.7, "USD", clock_.wall_now()};
    if (step.error == CallError::http_5xx) out.http_status = 503;
    if (step.error == CallError::http_4xx) out.http_status = 404;
    return out;
  }

  std::vector<CarrierRequest> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  struct Step {
    CallError error;
    int ms;
    std::optional<Millis> retry_after;
  };
  FakeClock& clock_;
  mutable std::mutex mutex_;
  std::deque<Step> script_;
  std::vector<CarrierRequest> requests_;
};

}  // namespace quote_lab::testing
