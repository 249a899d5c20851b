#pragma once
// One attempt as a hedged request (Dean and Barroso, "The Tail at Scale", CACM 2013, "hedged
// requests"; gRPC's hedging policy): the call goes out, and if it has not answered after
// `delay`, an identical second call goes too — when `may_hedge()` allows it (the hedge
// budget) — and the first live answer wins. The paper's figure: hedging after the 95th
// percentile cut the 99.9th percentile of a BigTable read from 1800 ms to 74 ms for 2 % more
// requests.
//
// The interface the executor asks; the lab's runs the two calls on threads of their own
// (carrier/threaded_hedged_caller.hpp: resilience/ starts no threads).

#include <functional>

#include "lab/base/clock.hpp"
#include "lab/resilience/carrier_call.hpp"

namespace quote_lab {

class HedgedCaller {
 public:
  virtual ~HedgedCaller() = default;

  struct Result {
    CallOutcome outcome{};       ///< the answer that won; when both failed, the first call's
    bool hedged = false;         ///< a second call was sent
    bool hedge_won = false;      ///< ... and `outcome` is its answer (elapsed_ms from the first call's start)
    bool hedge_refused = false;  ///< a hedge was due and may_hedge() said no
    double delay_ms = 0;         ///< how long the first call had not answered when the hedge went
  };
  /// Calls `request`; after `delay` without an answer, asks `may_hedge()` and, if true, calls
  /// again with the time left of the request's timeout. Returns when a call answered live,
  /// or when every call sent has ended. `first_took_ms` (may be empty) is told how long the
  /// first call took when it ends, abandoned or not: the latency the hedging delay is learnt
  /// from must be the carrier's, not the hedged one.
  virtual Result call(const CarrierRequest& request, Millis delay, const std::function<bool()>& may_hedge,
                      std::function<void(double)> first_took_ms) = 0;
};

class HedgeBudget;
class HedgingDelay;

/// What a policy's hedging lends its flows (FlowGuards' hedging slot): the threads its calls
/// run on (null: hedging passes the call through), the budget hedges ask (null: no bound) and
/// the learnt delay (null: the policy's fixed delay_ms). Not owned.
struct HedgingTools {
  HedgedCaller* caller = nullptr;
  HedgeBudget* budget = nullptr;
  HedgingDelay* delay = nullptr;
};

}  // namespace quote_lab
