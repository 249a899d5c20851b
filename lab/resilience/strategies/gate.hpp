#pragma once
// What the admission gates (the strategies whose row has a `rejected` step: they may refuse a
// call before it leaves the lab) share: a refusal ends the flow with a `rejected` step (no
// retry: the gate said the carrier is overloaded), or with `cancelled` when the client left
// while the gate made it wait.

#include "lab/resilience/strategy.hpp"

namespace quote_lab {

/// `waited_ms`: how long the gate made the flow wait before it refused (a bulkhead's queue).
inline Outcome refuse(QuoteContext& c, Reason why, std::optional<long long> waited_ms = std::nullopt) {
  if (c.cancelled()) c.trace.events.push_back({.step = Step::cancelled, .attempt = c.attempt});
  else c.trace.events.push_back({.step = Step::rejected, .attempt = c.attempt, .reason = why, .wait_ms = waited_ms});
  return Outcome::over();
}

}  // namespace quote_lab
