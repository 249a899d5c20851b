// The breaker around the calls inside it: asked before, told after (gobreaker's
// beforeRequest / afterRequest).
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
namespace {

class CircuitBreakerStrategy final : public ResilienceStrategy {
 public:
  explicit CircuitBreakerStrategy(Breaker& breaker) : breaker_(breaker) {}

  Outcome execute(QuoteContext& c, const Next& next) override {
    c.recorded.reset();
    const Admission admission = breaker_.try_acquire();
    if (!admission.admitted()) return {.end = Outcome::End::refused, .refusal = admission.refusal};
    const bool probe = admission.permit->probe;
    if (probe) c.trace.events.push_back({.step = Step::half_open_probe, .attempt = c.attempt});
    const bool outer_probe = c.probe;
    c.probe = c.probe || probe;
    Outcome out = next(c);
    c.probe = outer_probe;
    // Only a carrier's answer is recorded; a call cut because its client left says nothing of
    // the carrier (a closed breaker's permit holds nothing: it lapses).
    if (out.end != Outcome::End::call) return out;
    // carrier_failure() excludes a 4xx: the carrier answered, so it counts as healthy.
    BreakerRecord record = breaker_.record(*admission.permit, out.call.carrier_failure(), to_string(out.call.error),
                                           out.call.elapsed_ms);
    out.breaker_after = record.state;
    c.recorded = std::move(record.snapshot);
    if (record.opened_now) c.trace.events.push_back({.step = Step::circuit_opened, .attempt = c.attempt});
    return out;
  }

 private:
  Breaker& breaker_;
};

std::unique_ptr<ResilienceStrategy> make_circuit_breaker(Breaker& breaker) {
  return std::make_unique<CircuitBreakerStrategy>(breaker);
}

}  // namespace

/// The breaker's admission and record (breaker.hpp); the half-open probe is marked in the context.
const StrategyRow& circuit_breaker_row() {
  static const StrategyRow kRow{
      .strategy = Strategy::circuit_breaker,
      .name = "circuit_breaker",
      .rank = 6,
      .steps = {},
      .about = {{"disyuntor", "circuit breaker"},
                {"tras failure_threshold fallos seguidos se abre y corta las llamadas open_duration_s; luego deja "
                 "pasar una sola llamada de prueba",
                 "after failure_threshold failures in a row it opens and cuts calls for open_duration_s; then it lets "
                 "exactly one probe through"},
                "Nygard, 'Release It!'; resilience4j CircuitBreaker"},
      .make = [](const StrategyDeps& d) { return make_circuit_breaker(d.breaker); },
  };
  return kRow;
}

}  // namespace quote_lab
