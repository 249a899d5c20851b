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

}  // namespace

std::unique_ptr<ResilienceStrategy> make_adaptive_throttle() { return std::make_unique<AdaptiveThrottleStrategy>(); }

std::unique_ptr<StrategyState> make_adaptive_throttle_state(const RetryPolicy& p, const StateDeps& d) {
  return std::make_unique<AdaptiveThrottleState>(d, p.overload.adaptive_throttle);
}

std::span<const GaugeFamily* const> adaptive_throttle_gauges() {
  static constexpr const GaugeFamily* kFamilies[] = {&kDropRatio};
  return kFamilies;
}

}  // namespace quote_lab
