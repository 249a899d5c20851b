#pragma once
// A budget on hedged requests ("The Tail at Scale", Dean and Barroso, CACM 2013: hedging
// after the p95 "adds only 5 % load"; gRPC's hedging policy and Polly's hedging strategy
// send a hedge after a delay). In a partial outage every request is slow, so every request
// would hedge and the carrier would get twice the calls; the budget caps hedges at a share of
// the requests, plus a small floor so that a quiet client can still hedge.
//
// The rule is Finagle's RetryBudget, the same the lab's retry budget keeps (retry_budget.hpp),
// which this budget delegates to: over the last 10 s (ten one-second buckets),
//
//     a hedge is allowed when  hedges + 1 ≤ share × requests + min_per_s × 10
//
// The lab's defaults: share 10 % (a hedge after the p95 should be needed by about 5 % of
// requests; twice that leaves room for a slower minute), min_per_s 1. gRPC instead shares its
// retry throttle's token bucket (maxTokens, tokenRatio) between retries and hedges; the
// window is chosen here so that hedges and retries are budgeted the same way, in the same
// words. Time only through the injected Clock. Thread-safe (RetryBudget's mutex).

#include <atomic>
#include <cstdint>

#include "lab/base/clock.hpp"
#include "lab/resilience/retry_budget.hpp"

namespace quote_lab {

/// The budget's share and floor.
struct HedgeBudgetSettings {
  static constexpr double kDefaultShare = 0.10;
  static constexpr int kDefaultMinPerS = 1;

  double share = kDefaultShare;    ///< hedges per request over the window, 0–1
  int min_per_s = kDefaultMinPerS; ///< hedges per second allowed whatever the requests, ≥ 0
};

/// The window now.
struct HedgeBudgetStats {
  std::uint64_t requests = 0;  ///< requests counted in the last 10 s
  std::uint64_t hedges = 0;    ///< hedges allowed in the last 10 s
  std::uint64_t refused = 0;   ///< hedges refused since start
  double budget = 0.0;         ///< share × requests + min_per_s × 10: the most hedges the window holds
};

class HedgeBudget {
 public:
  static constexpr int kWindowS = RetryBudget::kWindowS;

  /// Throws std::invalid_argument when share is outside [0, 1] or min_per_s < 0.
  explicit HedgeBudget(Clock& clock, HedgeBudgetSettings settings = {});

  /// One request started (its first attempt): it earns `share` of a hedge for 10 s.
  void on_request();
  /// Takes one hedge if the rule allows it; false (nothing taken): send no hedge, wait for
  /// the first attempt.
  bool try_hedge();
  HedgeBudgetStats stats() const;
  const HedgeBudgetSettings& settings() const { return settings_; }
  /// Forgets the window and the refusals (the lab's reset).
  void reset();

 private:
  const HedgeBudgetSettings settings_;
  RetryBudget budget_;
  std::atomic<std::uint64_t> refused_{0};
};

}  // namespace quote_lab
