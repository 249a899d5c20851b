// The SRE book's client-side throttling before each call: drop locally with probability
// max(0, (requests − K·accepts) / (requests + 1)), learn from every carrier answer.
#include "lab/resilience/strategies/gate.hpp"
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
namespace {

class AdaptiveThrottleStrategy final : public ResilienceStrategy {
 public:
  Outcome execute(QuoteContext& c, const Next& next) override {
    AdaptiveThrottle* const throttle = c.guards.throttle;
    if (!throttle) return next(c);
    if (!throttle->admit()) return refuse(c, Reason::throttled);
    Outcome out = next(c);
    // An accept unless the carrier failed (a 4xx is the request's fault, not an overload).
    if (out.end == Outcome::End::call) throttle->record(!out.call.carrier_failure());
    return out;
  }
};

}  // namespace

std::unique_ptr<ResilienceStrategy> make_adaptive_throttle() { return std::make_unique<AdaptiveThrottleStrategy>(); }

}  // namespace quote_lab
