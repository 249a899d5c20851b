// Envoy's gradient concurrency limit around each call: a place below the limit, held while
// the call runs, and the call's round trip as the limit's sample.
#include "lab/resilience/strategies/gate.hpp"
#include "lab/resilience/overload/gradient_concurrency_limit.hpp"
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
namespace {

class ConcurrencyLimitStrategy final : public ResilienceStrategy {
 public:
  Outcome execute(QuoteContext& c, const Next& next) override {
    GradientConcurrencyLimit* const limit = c.guards.held<GradientConcurrencyLimit>(Strategy::concurrency_limit);
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

constexpr GaugeFamily kLimit{"quote_lab_concurrency_limit",
                             "The adaptive limit on calls in flight to the carrier (Envoy's gradient), by mode.",
                             "Límite adaptativo de llamadas en curso al proveedor (gradiente de Envoy), por modo.",
                             {"límite de llamadas en curso", "limit on calls in flight"}};
constexpr GaugeFamily kInFlight{"quote_lab_concurrency_in_flight",
                                "Calls in flight to the carrier that the adaptive limit counts, by mode.",
                                "Llamadas en curso al proveedor que cuenta el límite adaptativo, por modo.",
                                {"llamadas en curso", "calls in flight"},
                                GaugeShows::count,
                                {},
                                true};

class ConcurrencyLimitState final : public StrategyState {
 public:
  ConcurrencyLimitState(const StateDeps& d, const GradientLimitSettings& s) : limit_(d.clock, d.random, s) {}
  void lend(FlowGuards& g) override { g.lend(Strategy::concurrency_limit, &limit_); }
  void read(std::vector<GaugeReading>& out) override {
    const auto s = limit_.stats();
    out.push_back({&kLimit, static_cast<double>(s.limit)});
    out.push_back({&kInFlight, static_cast<double>(s.in_flight)});
  }
  void reset() override { limit_.reset(); }

 private:
  GradientConcurrencyLimit limit_;
};

std::unique_ptr<ResilienceStrategy> make_concurrency_limit() { return std::make_unique<ConcurrencyLimitStrategy>(); }

std::unique_ptr<StrategyState> make_concurrency_limit_state(const RetryPolicy& p, const StateDeps& d) {
  return std::make_unique<ConcurrencyLimitState>(d, p.overload.concurrency_limit);
}

std::span<const GaugeFamily* const> concurrency_limit_gauges() {
  static constexpr const GaugeFamily* kFamilies[] = {&kLimit, &kInFlight};
  return kFamilies;
}

}  // namespace

/// Envoy's gradient concurrency limit (overload/gradient_concurrency_limit.hpp): `rejected`
/// concurrency_limit at the limit; each call's round trip is its sample. A gate's refusal ends
/// the flow (no retry: the strategy said the carrier is overloaded), then the fallback.
const StrategyRow& concurrency_limit_row() {
  static const StrategyRow kRow{
      .strategy = Strategy::concurrency_limit,
      .name = "concurrency_limit",
      .rank = 5,
      .steps = {.rejected = Reason::concurrency_limit,
                .rejected_means =
                    {"El límite adaptativo de concurrencia está lleno: la llamada se rechazó al instante en vez de "
                     "hacer cola",
                     "The adaptive concurrency limit is full: the call was refused at once instead of queueing"}},
      .about = {{"límite adaptativo de concurrencia", "adaptive concurrency limit"},
                {"limita las llamadas en curso al proveedor con un límite que sigue el gradiente entre el RTT mínimo y "
                 "el medido",
                 "limits the calls in flight to the carrier with a limit that follows the gradient between the minimum "
                 "and the sampled RTT"},
                "Envoy adaptive_concurrency (gradient controller)"},
      .make = [](const StrategyDeps&) { return make_concurrency_limit(); },
      .make_state = make_concurrency_limit_state,
      .gauges = concurrency_limit_gauges,
  };
  return kRow;
}

}  // namespace quote_lab
