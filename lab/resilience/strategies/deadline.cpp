// The flow's total deadline across attempts and waits (deadline_ms), from the moment the
// flow reaches this strategy.
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
namespace {

class Deadline final : public ResilienceStrategy {
 public:
  Outcome execute(QuoteContext& c, const Next& next) override {
    if (c.policy.deadline_ms <= 0) return next(c);
    const FlowDeadline outer = c.deadline;
    c.deadline = {.steady = c.clock.now() + Millis(c.policy.deadline_ms),
                  .wall = c.clock.wall_now() + Millis(c.policy.deadline_ms)};
    Outcome out = next(c);
    c.deadline = outer;
    return out;
  }
};

}  // namespace

std::unique_ptr<ResilienceStrategy> make_deadline() { return std::make_unique<Deadline>(); }

}  // namespace quote_lab
