// The AWS SDKs' adaptive retry before each call: a token from the CUBIC-paced bucket, waited
// for up to max_wait_ms; every carrier answer tells the bucket whether it was a 429.
#include "lab/resilience/strategies/gate.hpp"
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
namespace {

class AdaptiveRetryStrategy final : public ResilienceStrategy {
 public:
  Outcome execute(QuoteContext& c, const Next& next) override {
    CubicRateLimiter* const rate = c.guards.rate;
    if (!rate) return next(c);
    const std::optional<Millis> waited = rate->acquire(c.policy.overload.adaptive_retry.max_wait_ms, c.stop);
    if (!waited) return refuse(c, Reason::client_rate_limited);
    if (*waited > Millis::zero())
      c.trace.events.push_back({.step = Step::token_wait, .attempt = c.attempt, .wait_ms = waited->count()});
    Outcome out = next(c);
    if (out.end == Outcome::End::call) rate->on_response(out.call.error == CallError::http_429);
    return out;
  }
};

}  // namespace

std::unique_ptr<ResilienceStrategy> make_adaptive_retry() { return std::make_unique<AdaptiveRetryStrategy>(); }

}  // namespace quote_lab
