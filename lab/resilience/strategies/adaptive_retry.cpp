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

std::unique_ptr<ResilienceStrategy> make_adaptive_retry() { return std::make_unique<AdaptiveRetryStrategy>(); }

std::unique_ptr<StrategyState> make_adaptive_retry_state(const RetryPolicy&, const StateDeps& d) {
  return std::make_unique<AdaptiveRetryState>(d);
}

std::span<const GaugeFamily* const> adaptive_retry_gauges() {
  static constexpr const GaugeFamily* kFamilies[] = {&kSendRate};
  return kFamilies;
}

}  // namespace

/// The AWS SDKs' adaptive retry token (overload/cubic_rate_limiter.hpp): a `token_wait` step
/// (wait_ms, whole ms rounded up) when it waited, or `rejected` client_rate_limited past
/// max_wait_ms; it hears whether each answer was a 429.
const StrategyRow& adaptive_retry_row() {
  static const StrategyRow kRow{
      .strategy = Strategy::adaptive_retry,
      .name = "adaptive_retry",
      .rank = 5,
      .steps = {.rejected = Reason::client_rate_limited,
                .rejected_means = {"El reintento adaptativo no tenía ficha: tras un 429 del proveedor el cliente "
                                   "redujo su ritmo y esta llamada habría esperado demasiado",
                                   "Adaptive retry had no token: after the carrier's 429 the client slowed down and "
                                   "this call would have waited too long"}},
      .about = {{"reintento adaptativo", "adaptive retry"},
                {"cada intento toma una ficha de un balde cuyo ritmo sigue CUBIC: baja tras un 429 y vuelve a subir",
                 "every attempt takes a token from a bucket whose rate follows CUBIC: down after a 429, then back up"},
                "botocore retries/adaptive.py, bucket.py, throttling.py"},
      .make = [](const StrategyDeps&) { return make_adaptive_retry(); },
      .make_state = make_adaptive_retry_state,
      .gauges = adaptive_retry_gauges,
      .longest_wait = [](const RetryPolicy& p) { return Millis(p.overload.adaptive_retry.max_wait_ms); },
  };
  return kRow;
}

}  // namespace quote_lab
