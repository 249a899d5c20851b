// The AWS SDKs' adaptive retry before each call: a token from the CUBIC-paced bucket, waited
// for up to max_wait_ms; every carrier answer tells the bucket whether it was a 429.
#include "lab/resilience/strategies/gate.hpp"
#include "lab/resilience/overload/cubic_rate_limiter.hpp"
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
namespace {

class AdaptiveRetryStrategy final : public ResilienceStrategy {
 public:
  Outcome execute(QuoteContext& c, const Next& next) override {
    CubicRateLimiter* const rate = c.guards.held<CubicRateLimiter>(Strategy::adaptive_retry);
    if (!rate) return next(c);
    const std::optional<Millis> waited = rate->acquire(c.policy.overload.adaptive_retry.max_wait_ms, c.stop);
    if (!waited) return refuse(c, Reason::client_rate_limited);
    if (*waited > Millis::zero())
      c.trace.events.push_back({.step = Step::token_wait, .attempt = c.attempt, .wait_ms = waited->count()});
    Outcome out = next(c);
    if (out.end == Outcome::End::call) rate->on_response(out.call.error == CallError::http_429);
    return out;
  }
};

constexpr GaugeFamily kSendRate{
    "quote_lab_adaptive_retry_send_rate", "Calls per second adaptive retry allows now (CUBIC, as the AWS SDKs), by mode.",
    "Llamadas por segundo que permite ahora el reintento adaptativo (CUBIC, como los SDK de AWS), por modo.",
    {"ritmo de envío permitido", "send rate allowed"},
    GaugeShows::per_second,
    {},
    false,
    {"sin límite (ningún 429 todavía)", "no limit (no 429 yet)"}};

class AdaptiveRetryState final : public StrategyState {
 public:
  explicit AdaptiveRetryState(const StateDeps& d) : rate_(d.clock) {}
  void lend(FlowGuards& g) override { g.lend(Strategy::adaptive_retry, &rate_); }
  // No rate before a 429 turned the pacing on: until then every send goes at once.
  void read(std::vector<GaugeReading>& out) override {
    if (const auto s = rate_.stats(); s.enabled) out.push_back({&kSendRate, s.send_rate_per_s});
  }
  void reset() override { rate_.reset(); }

 private:
  CubicRateLimiter rate_;
};

}  // namespace

std::unique_ptr<ResilienceStrategy> make_adaptive_retry() { return std::make_unique<AdaptiveRetryStrategy>(); }

std::unique_ptr<StrategyState> make_adaptive_retry_state(const RetryPolicy&, const StateDeps& d) {
  return std::make_unique<AdaptiveRetryState>(d);
}

std::span<const GaugeFamily* const> adaptive_retry_gauges() {
  static constexpr const GaugeFamily* kFamilies[] = {&kSendRate};
  return kFamilies;
}

}  // namespace quote_lab
