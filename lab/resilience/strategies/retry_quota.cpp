// botocore's retry quota inside a retry: each retry pays its cost before its wait, and the
// flow's live answer refills the quota (retries/standard.py, RetryQuotaChecker).
#include <algorithm>

#include "lab/resilience/retry_quota.hpp"
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
namespace {

// Whether attempt slot `attempt` sent a call: it ended in an answer or a failure, or was cut
// while in flight (a `cancelled` step with the time it ran).
bool reached_carrier(const QuoteTrace& trace, int attempt) {
  return std::any_of(trace.events.begin(), trace.events.end(), [attempt](const TraceEvent& e) {
    return e.attempt == attempt && (e.step == Step::attempt_success || e.step == Step::attempt_failed ||
                                    (e.step == Step::cancelled && e.elapsed_ms));
  });
}

// The flow's account with the quota: what its latest retry paid, and what it gives back. A
// live answer gives back that payment, or no_retry_increment when no retry was paid
// (botocore). A paid retry whose call never left — refused by a gate or the breaker, skipped
// after its wait, its client gone first — cost the carrier nothing, so its payment comes back
// too (botocore has no such retry: its token bucket blocks, never refuses).
class RetryQuotaStrategy final : public ResilienceStrategy {
 public:
  Outcome execute(QuoteContext& c, const Next& next) override {
    Outcome out = next(c);
    settle(c);
    return out;
  }

  std::optional<Reason> admit_retry(QuoteContext& c, CallError failure) override {
    RetryQuota* const quota = quota_of(c);
    if (!quota) return std::nullopt;
    const int cost = quota->retry_cost(failure);
    if (!quota->acquire(cost)) return Reason::retry_quota;
    paid_ = cost;
    paid_for_ = c.attempt + 1;
    return std::nullopt;
  }

  void retry_dropped(QuoteContext& c) override { settle(c); }

 private:
  static RetryQuota* quota_of(const QuoteContext& c) { return c.guards.held<RetryQuota>(Strategy::retry_quota); }
  // Attempt slot c.attempt is over, as the trace shows it.
  void settle(const QuoteContext& c) {
    RetryQuota* const quota = quota_of(c);
    if (!quota) return;
    if (c.trace.status == QuoteStatus::completed) return quota->on_success(paid_);
    if (!paid_ || paid_for_ != c.attempt || reached_carrier(c.trace, c.attempt)) return;
    quota->release(*paid_);
    paid_.reset();
  }

  std::optional<int> paid_;
  int paid_for_ = 0;
};

constexpr GaugeFamily kAvailable{
    "quote_lab_retry_quota_available",
    "Capacity left in the policy's retry quota (the AWS SDKs' retry quota: retries pay, successes refill), by mode.",
    "Capacidad que le queda a la cuota de reintentos de la política (la de los SDK de AWS: los reintentos pagan, "
    "las respuestas correctas la recargan), por modo.",
    {"cuota de reintentos que queda", "retry quota left"},
    GaugeShows::count,
    "capacity"};

class RetryQuotaState final : public StrategyState {
 public:
  explicit RetryQuotaState(const RetryQuotaSettings& s) : quota_(s) {}
  void lend(FlowGuards& g) override { g.lend(Strategy::retry_quota, &quota_); }
  void read(std::vector<GaugeReading>& out) override {
    out.push_back({&kAvailable, static_cast<double>(quota_.available())});
  }
  void reset() override { quota_.reset(); }

 private:
  RetryQuota quota_;
};

std::unique_ptr<ResilienceStrategy> make_retry_quota() { return std::make_unique<RetryQuotaStrategy>(); }

std::unique_ptr<StrategyState> make_retry_quota_state(const RetryPolicy& p, const StateDeps&) {
  return std::make_unique<RetryQuotaState>(p.overload.retry_quota);
}

std::span<const GaugeFamily* const> retry_quota_gauges() {
  static constexpr const GaugeFamily* kFamilies[] = {&kAvailable};
  return kFamilies;
}

}  // namespace

/// botocore's retry quota (retry_quota.hpp): a retry pays its cost before its wait; one it
/// cannot pay for is retry_skipped, reason `retry_quota`; a live answer gives back what the
/// last retry paid (or no_retry_increment), and so does a paid retry whose call never left.
const StrategyRow& retry_quota_row() {
  static const StrategyRow kRow{
      .strategy = Strategy::retry_quota,
      .name = "retry_quota",
      .rank = 4,
      .steps = {.retry_skipped = Reason::retry_quota,
                .retry_skipped_means =
                    {"No se hizo otro reintento: a la cuota de reintentos le queda menos de lo que cuesta uno, y solo "
                     "las respuestas correctas del proveedor la recargan (SDK de AWS).",
                     "No further retry was made: the retry quota holds less than a retry costs, and only the carrier's "
                     "successful answers refill it (AWS SDKs)."}},
      .about =
          {{"cuota de reintentos", "retry quota"},
           {"cada reintento paga de una cuota que solo recargan las respuestas correctas; sin saldo, no hay reintento",
            "every retry pays from a quota only successful answers refill; too little left, no retry"},
           "botocore retries/standard.py RetryQuotaChecker, retries/quota.py"},
      .make = [](const StrategyDeps&) { return make_retry_quota(); },
      .make_state = make_retry_quota_state,
      .gauges = retry_quota_gauges,
      .outer = OuterNeed{Strategy::retry, {.es = "la cuota de reintentos paga los reintentos de `retry`, que va por fuera",
                                           .en = "it pays for the retries of the retry outside it"}},
  };
  return kRow;
}

}  // namespace quote_lab
