#pragma once
// Why an overload control refused a quote before the carrier was called: the words a
// refused answer says after `rejected:`. One name per control, so a reader of an answer,
// an incident or a metric knows which control refused it. Standard library only.

#include <string_view>

namespace quote_lab {

/// The reason an overload control gives when it refuses a call at once.
enum class OverloadRejection {
  throttled,            ///< AdaptiveThrottle dropped it locally (SRE book client-side throttling)
  concurrency_limit,    ///< GradientConcurrencyLimit: calls in flight ≥ the adaptive limit
  bulkhead_full,        ///< Bulkhead: every slot busy and the queue full, or the queue wait ran out
  client_rate_limited,  ///< CubicRateLimiter: the token would come later than the caller's max wait
};

/// "throttled", "concurrency_limit", "bulkhead_full" or "client_rate_limited".
constexpr std::string_view to_string(OverloadRejection r) {
  switch (r) {
    case OverloadRejection::throttled: return "throttled";
    case OverloadRejection::concurrency_limit: return "concurrency_limit";
    case OverloadRejection::bulkhead_full: return "bulkhead_full";
    case OverloadRejection::client_rate_limited: return "client_rate_limited";
  }
  return "unknown";
}

}  // namespace quote_lab
