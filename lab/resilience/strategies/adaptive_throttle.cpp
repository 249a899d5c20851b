// The SRE book's client-side throttling before each call: drop locally with probability
// max(0, (requests − K·accepts) / (requests + 1)), learn from every carrier answer.
#include "lab/resilience/strategies/gate.hpp"
#include "lab/resilience/overload/adaptive_throttle.hpp"
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
namespace {

class AdaptiveThrottleStrategy final : public ResilienceStrategy {
 public:
  Outcome execute(QuoteContext& c, const Next& next) override {
    AdaptiveThrottle* const throttle = c.guards.held<AdaptiveThrottle>(Strategy::adaptive_throttle);
    if (!throttle) return next(c);
    if (!throttle->admit()) return refuse(c, Reason::throttled);
    Outcome out = next(c);
    // An accept unless the carrier failed (a 4xx is the request's fault, not an overload).
    if (out.end == Outcome::End::call) throttle->record(!out.call.carrier_failure());
    return out;
  }
};

constexpr GaugeFamily kDropRatio{
    "quote_lab_throttle_drop_ratio", "Probability that adaptive throttling drops a call now (SRE book), by mode.",
    "Probabilidad con que la limitación adaptativa descarta ahora una llamada (libro de SRE), por modo.",
    {"probabilidad de descarte ahora", "drop probability now"},
    GaugeShows::percent,
    {},
    true};

class AdaptiveThrottleState final : public StrategyState {
 public:
  AdaptiveThrottleState(const StateDeps& d, const AdaptiveThrottleSettings& s) : throttle_(d.clock, d.random, s) {}
  void lend(FlowGuards& g) override { g.lend(Strategy::adaptive_throttle, &throttle_); }
  void read(std::vector<GaugeReading>& out) override {
    out.push_back({&kDropRatio, throttle_.drop_probability()});
  }
  void reset() override { throttle_.reset(); }

 private:
  AdaptiveThrottle throttle_;
};

std::unique_ptr<ResilienceStrategy> make_adaptive_throttle() { return std::make_unique<AdaptiveThrottleStrategy>(); }

std::unique_ptr<StrategyState> make_adaptive_throttle_state(const RetryPolicy& p, const StateDeps& d) {
  return std::make_unique<AdaptiveThrottleState>(d, p.overload.adaptive_throttle);
}

std::span<const GaugeFamily* const> adaptive_throttle_gauges() {
  static constexpr const GaugeFamily* kFamilies[] = {&kDropRatio};
  return kFamilies;
}

}  // namespace

/// The SRE book's client-side throttling (overload/adaptive_throttle.hpp): `rejected` throttled.
/// It hears an accept for each call unless the carrier failed.
const StrategyRow& adaptive_throttle_row() {
  static const StrategyRow kRow{
      .strategy = Strategy::adaptive_throttle,
      .name = "adaptive_throttle",
      .rank = 5,
      .steps = {.rejected = Reason::throttled,
                .rejected_means = {"La limitación adaptativa descartó la llamada sin enviarla: el proveedor viene "
                                   "rechazando casi todo y el cliente deja de insistir (libro de SRE)",
                                   "Adaptive throttling dropped the call without sending it: the carrier has been "
                                   "refusing almost everything, so the client stops insisting (SRE book)"}},
      .about = {{"limitación adaptativa", "adaptive throttling"},
                {"descarta llamadas en el laboratorio con probabilidad (solicitudes − K·aceptadas) / (solicitudes + 1)",
                 "drops calls in the lab with probability (requests − K·accepts) / (requests + 1)"},
                "Google SRE, 'Handling Overload'; go-zero core/breaker"},
      .make = [](const StrategyDeps&) { return make_adaptive_throttle(); },
      .make_state = make_adaptive_throttle_state,
      .gauges = adaptive_throttle_gauges,
  };
  return kRow;
}

}  // namespace quote_lab
