// Hedged requests around the call: the call inside goes through the hedger, which sends a
// copy after the hedging delay when the hedge budget allows.
#include <cmath>

#include "lab/resilience/overload/hedge_budget.hpp"
#include "lab/resilience/overload/hedged_call.hpp"
#include "lab/resilience/overload/hedging_delay.hpp"
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
namespace {

class Hedging final : public ResilienceStrategy {
 public:
  Outcome execute(QuoteContext& c, const Next& next) override {
    const HedgingTools* const tools = c.guards.held<HedgingTools>(Strategy::hedging);
    if (!tools || !tools->caller) return next(c);
    // The budget counts flows, not attempts: hedges ≤ share × requests.
    if (!counted_ && tools->budget) tools->budget->on_request();
    counted_ = true;
    auto plain = std::move(c.send);
    c.send = [&c, tools](const CarrierRequest& call) { return hedged(c, *tools, call); };
    Outcome out = next(c);
    c.send = std::move(plain);
    return out;
  }

 private:
  static CallOutcome hedged(QuoteContext& c, const HedgingTools& tools, const CarrierRequest& call) {
    HedgingDelay* const learnt = tools.delay;
    const Millis delay(static_cast<long long>(learnt ? learnt->delay_ms() : c.policy.overload.hedging.delay.fixed_delay_ms));
    HedgeBudget* const budget = tools.budget;
    // A half-open breaker admits one call, not one call and its copy (resilience4j counts
    // permitted calls in half-open; Polly v8 puts the breaker inside each hedged attempt): the
    // probe's hedge is refused, and the budget is not asked.
    const bool probe = c.probe;
    const HedgedCaller::Result r = tools.caller->call(
        call, delay, [budget, probe] { return !probe && (!budget || budget->try_hedge()); },
        learnt ? std::function<void(double)>([learnt](double ms) { learnt->record_latency_ms(ms); }) : nullptr);
    auto& steps = c.trace.events;
    if (r.hedged) steps.push_back({.step = Step::hedge, .attempt = call.attempt, .wait_ms = std::llround(r.delay_ms)});
    if (r.hedge_refused)
      steps.push_back({.step = Step::hedge_skipped, .attempt = call.attempt,
                       .reason = probe ? Reason::half_open_probe : Reason::hedge_budget});
    if (r.hedge_won) steps.push_back({.step = Step::hedge_won, .attempt = call.attempt});
    return r.outcome;
  }

  bool counted_ = false;
};

constexpr GaugeFamily kDelay{
    "quote_lab_hedge_delay_seconds",
    "The wait before a hedged call is sent (fixed, or the observed percentile), in seconds, by mode.",
    "Espera antes de enviar la llamada de cobertura (fija, o el percentil observado), en segundos, por modo.",
    {"espera antes de la llamada de cobertura", "wait before the hedged call"},
    GaugeShows::milliseconds};

// The hedged calls' threads last: they finish before the delay they report to is destroyed.
class HedgingState final : public StrategyState {
 public:
  HedgingState(const StateDeps& d, const HedgingPolicy& h)
      : budget_(d.clock, h.budget),
        delay_(h.delay),
        hedger_(d.make_hedger ? d.make_hedger() : nullptr),
        tools_{hedger_.get(), &budget_, &delay_} {}
  void lend(FlowGuards& g) override { g.lend(Strategy::hedging, &tools_); }
  void read(std::vector<GaugeReading>& out) override { out.push_back({&kDelay, delay_.delay_ms() / 1000.0}); }
  void reset() override {
    budget_.reset();
    delay_.reset();
  }

 private:
  HedgeBudget budget_;
  HedgingDelay delay_;
  std::unique_ptr<HedgedCaller> hedger_;
  HedgingTools tools_;
};

std::unique_ptr<ResilienceStrategy> make_hedging() { return std::make_unique<Hedging>(); }

std::unique_ptr<StrategyState> make_hedging_state(const RetryPolicy& p, const StateDeps& d) {
  return std::make_unique<HedgingState>(d, p.overload.hedging);
}

std::span<const GaugeFamily* const> hedging_gauges() {
  static constexpr const GaugeFamily* kFamilies[] = {&kDelay};
  return kFamilies;
}

}  // namespace

/// Hedged requests (overload/hedged_call.hpp): the call inside goes as a hedged call: `hedge`
/// when the second call goes, `hedge_won` when it answered first, `hedge_skipped` with reason
/// hedge_budget when the budget kept it back, or half_open_probe when the attempt is the
/// half-open breaker's one probe (one call, never two).
const StrategyRow& hedging_row() {
  static const StrategyRow kRow{
      .strategy = Strategy::hedging,
      .name = "hedging",
      .rank = 7,
      .steps = {.hedges = true},
      .about = {{"llamadas de cobertura", "hedged requests"},
                {"si la llamada no respondió tras una espera, envía una segunda; gana la primera respuesta, dentro de "
                 "un presupuesto",
                 "if the call has not answered after a delay, sends a second; the first answer wins, within a budget"},
                "Dean, Barroso, 'The Tail at Scale'; gRPC A6 hedging"},
      .make = [](const StrategyDeps&) { return make_hedging(); },
      .make_state = make_hedging_state,
      .gauges = hedging_gauges,
  };
  return kRow;
}

}  // namespace quote_lab
