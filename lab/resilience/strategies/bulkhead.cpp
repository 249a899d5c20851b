// The bulkhead around the flow inside it: no place (and no queue place, or the queue's wait
// ran out), no call.
#include "lab/resilience/strategies/gate.hpp"
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
namespace {

class BulkheadStrategy final : public ResilienceStrategy {
 public:
  Outcome execute(QuoteContext& c, const Next& next) override {
    Bulkhead* const bulkhead = c.guards.bulkhead;
    if (!bulkhead) return next(c);
    // A client that leaves while queued leaves the queue (the stop ends the wait).
    const std::optional<BulkheadPermit> place =
        bulkhead->enter(Millis(c.policy.overload.bulkhead.queue_timeout_ms), c.stop).permit;
    return place ? next(c) : refuse(c, Reason::bulkhead_full);
  }
};

}  // namespace

std::unique_ptr<ResilienceStrategy> make_bulkhead() { return std::make_unique<BulkheadStrategy>(); }

}  // namespace quote_lab
