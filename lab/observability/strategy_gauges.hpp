#pragma once
// The live state of each policy's overload strategies as Prometheus gauges (one family per
// quantity, labelled by the policy's name): what the dashboard and Grafana show beside the
// counters — the throttle's drop probability, the adaptive limit and the calls it counts
// in flight, the hedging delay, adaptive retry's send rate, the bulkhead's occupancy, the retry quota's capacity left.

#include <optional>
#include <string>
#include <vector>

#include <prometheus/metric_family.h>

namespace quote_lab {

/// One policy's strategies now; each empty when the policy does not use the strategy.
struct StrategyGauges {
  std::string mode{};
  std::optional<double> throttle_drop_ratio{};   ///< 0–1
  std::optional<double> concurrency_limit{};     ///< calls
  std::optional<double> concurrency_in_flight{}; ///< calls
  std::optional<double> hedge_delay_s{};         ///< seconds
  std::optional<double> send_rate_per_s{};       ///< calls per second; empty until a 429 turned it on
  std::optional<double> bulkhead_active{};       ///< quotes inside
  std::optional<double> bulkhead_queued{};       ///< quotes waiting for a place
  std::optional<double> retry_quota_available{}; ///< capacity units left in the retry quota
};

/// Appends a gauge family for each quantity some policy has (quote_lab_throttle_drop_ratio,
/// quote_lab_concurrency_limit, quote_lab_concurrency_in_flight, quote_lab_hedge_delay_seconds,
/// quote_lab_adaptive_retry_send_rate, quote_lab_bulkhead_active, quote_lab_bulkhead_queued,
/// quote_lab_retry_quota_available), one series per policy.
void add_strategy_gauges(std::vector<prometheus::MetricFamily>& families, const std::vector<StrategyGauges>& policies);

}  // namespace quote_lab
