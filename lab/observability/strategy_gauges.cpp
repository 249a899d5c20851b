#include "lab/observability/strategy_gauges.hpp"

namespace quote_lab {

void add_strategy_gauges(std::vector<prometheus::MetricFamily>& families, const std::vector<StrategyGauges>& policies) {
  struct Quantity {
    const char* name;
    const char* help;
    std::optional<double> StrategyGauges::*value;
  };
  static const Quantity kQuantities[] = {
      {"quote_lab_throttle_drop_ratio",
       "Probability that adaptive throttling drops a call now (SRE book), by mode.",
       &StrategyGauges::throttle_drop_ratio},
      {"quote_lab_concurrency_limit", "The adaptive limit on calls in flight to the carrier (Envoy's gradient), by mode.",
       &StrategyGauges::concurrency_limit},
      {"quote_lab_concurrency_in_flight", "Calls in flight to the carrier that the adaptive limit counts, by mode.",
       &StrategyGauges::concurrency_in_flight},
      {"quote_lab_hedge_delay_seconds",
       "The wait before a hedged call is sent (fixed, or the observed percentile), in seconds, by mode.",
       &StrategyGauges::hedge_delay_s},
      {"quote_lab_adaptive_retry_send_rate",
       "Calls per second adaptive retry allows now (CUBIC, as the AWS SDKs), by mode.",
       &StrategyGauges::send_rate_per_s},
      {"quote_lab_bulkhead_active", "Quotes inside the policy's bulkhead now, by mode.",
       &StrategyGauges::bulkhead_active},
      {"quote_lab_bulkhead_queued", "Quotes waiting in the policy's bulkhead queue for a place now, by mode.",
       &StrategyGauges::bulkhead_queued},
      {"quote_lab_retry_quota_available",
       "Capacity left in the policy's retry quota (the AWS SDKs' retry quota: retries pay, successes refill), by mode.",
       &StrategyGauges::retry_quota_available},
  };
  for (const Quantity& q : kQuantities) {
    prometheus::MetricFamily family{q.name, q.help, prometheus::MetricType::Gauge, {}};
    for (const StrategyGauges& p : policies) {
      if (!(p.*q.value)) continue;
      prometheus::ClientMetric m;
      m.label.push_back({"mode", p.mode});
      m.gauge.value = *(p.*q.value);
      family.metric.push_back(std::move(m));
    }
    if (!family.metric.empty()) families.push_back(std::move(family));
  }
}

}  // namespace quote_lab
