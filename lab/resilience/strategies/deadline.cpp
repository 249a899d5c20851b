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

std::unique_ptr<ResilienceStrategy> make_deadline() { return std::make_unique<Deadline>(); }

}  // namespace

/// Starts the flow's total deadline (deadline_ms): every wait and attempt inside ends by it. A
/// wait that would reach it is not started (retry_skipped, reason `deadline`); each attempt's
/// timeout is min(timeout_ms, time left), CarrierRequest::deadline carries it to the carrier,
/// and an attempt the deadline cut fails as `timeout`, whatever the carrier answered at it.
const StrategyRow& deadline_row() {
  static const StrategyRow kRow{
      .strategy = Strategy::deadline,
      .name = "deadline",
      .rank = 2,
      .steps = {},
      .about = {{"plazo total", "total deadline"},
                {"un plazo para todo el flujo, intentos y esperas incluidos, contado desde donde la lista lo pone",
                 "one deadline for the whole flow, attempts and waits included, counted from where the list puts it"},
                "gRPC A6 (DEADLINE_EXCEEDED)"},
      .make = [](const StrategyDeps&) { return make_deadline(); },
  };
  return kRow;
}

}  // namespace quote_lab
