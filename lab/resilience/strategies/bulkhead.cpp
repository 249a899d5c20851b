// The bulkhead around the flow inside it: no place (and no queue place, or the queue's wait
// ran out), no call.
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
namespace {

class BulkheadStrategy final : public ResilienceStrategy {
 public:
  Outcome execute(QuoteContext& c, const Next& next) override {
    Bulkhead* const bulkhead = c.guards.bulkhead;
    if (!bulkhead || !c.policy.overload.bulkhead) return next(c);
    // A client that leaves while queued leaves the queue (the stop ends the wait).
    const std::optional<BulkheadPermit> place =
        bulkhead->enter(Millis(c.policy.overload.bulkhead->queue_timeout_ms), c.stop).permit;
    if (!place) {
      if (c.cancelled()) c.trace.events.push_back({.step = Step::cancelled, .attempt = c.attempt});
      else c.trace.events.push_back({.step = Step::rejected, .attempt = c.attempt, .reason = Reason::bulkhead_full});
      return Outcome::over();
    }
    return next(c);
  }
};

}  // namespace

std::unique_ptr<ResilienceStrategy> make_bulkhead() { return std::make_unique<BulkheadStrategy>(); }

}  // namespace quote_lab
