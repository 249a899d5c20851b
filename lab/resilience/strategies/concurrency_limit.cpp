// Envoy's gradient concurrency limit around each call: a place below the limit, held while
// the call runs, and the call's round trip as the limit's sample.
#include "lab/resilience/strategies/gate.hpp"
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
namespace {

class ConcurrencyLimitStrategy final : public ResilienceStrategy {
 public:
  Outcome execute(QuoteContext& c, const Next& next) override {
    GradientConcurrencyLimit* const limit = c.guards.concurrency;
    if (!limit) return next(c);
    std::optional<ConcurrencyPermit> in_flight = limit->try_acquire();
    if (!in_flight) return refuse(c, Reason::concurrency_limit);
    Outcome out = next(c);
    // No sample without a round trip to the carrier's queue: no call (refused, cut when the
    // client left), or a refused connection.
    if (out.end != Outcome::End::call || out.call.error == CallError::connect_error) in_flight->cancel();
    else in_flight->release();
    return out;
  }
};

}  // namespace

std::unique_ptr<ResilienceStrategy> make_concurrency_limit() { return std::make_unique<ConcurrencyLimitStrategy>(); }

}  // namespace quote_lab
