#pragma once
// A retry budget (Google SRE book ch. 21–22, "client-side throttling"; Finagle's
// RetryBudget; Envoy's retry_budget; gRPC's retry throttling): retries may add only a
// fraction of the load the requests themselves make, plus a small floor so that a quiet
// client can still retry. Without it, a carrier that fails everything gets max_attempts
// calls per request; with ratio 0.1 it gets about 1.1.
//
// The rule, over a sliding window of the last 10 s (ten one-second buckets):
//   a retry is allowed when  retries + 1 ≤ ratio × requests + min_per_s × 10
// `requests` counts every flow that started (deposit), `retries` every retry allowed
// (withdraw). The ratio and the floor are arguments, not state, so one budget serves a
// policy's configured numbers and any per-request override alike. Time only through the
// injected Clock.

#include <array>
#include <cstdint>
#include <mutex>

#include "lab/base/clock.hpp"

namespace quote_lab {

class RetryBudget {
 public:
  static constexpr int kWindowS = 10;  ///< Finagle's default TTL

  explicit RetryBudget(Clock& clock) : clock_(clock) {}

  /// One request (flow) started: it earns `ratio` of a retry for the next 10 s.
  void deposit();
  /// Takes one retry from the budget if the rule above allows it (`ratio` 0–1,
  /// `min_per_s` ≥ 0); false leaves the budget unchanged. Thread-safe.
  bool try_withdraw(double ratio, int min_per_s);

  /// Requests and retries counted in the current window (tests, diagnostics).
  struct Counts {
    std::uint64_t requests = 0;
    std::uint64_t retries = 0;
  };
  Counts window() const;
  /// Forgets everything (the lab's reset).
  void reset();

 private:
  struct Bucket {
    long long second = -1;  ///< the steady second it counts; another second = stale
    std::uint64_t requests = 0;
    std::uint64_t retries = 0;
  };
  Bucket& current(long long second);  // caller holds mutex_
  Counts sum(long long second) const;  // caller holds mutex_
  long long second_now() const;

  Clock& clock_;
  mutable std::mutex mutex_;  // guards buckets_
  std::array<Bucket, kWindowS> buckets_{};
};

}  // namespace quote_lab
