#pragma once
// The live state of each policy's overload strategies as Prometheus gauges (one family per
// quantity, labelled by the policy's name): what the dashboard and Grafana show beside the
// counters. Each strategy's state names its own families and reads its own values; this only
// lays them out.

#include <string>
#include <vector>

#include <prometheus/metric_family.h>

#include "lab/resilience/strategy_state.hpp"

namespace quote_lab {

/// One policy's strategies now: a reading for each gauge its strategies' states show
/// (strategy_state.hpp); none for a strategy the policy does not list.
struct StrategyGauges {
  std::string mode{};
  std::vector<GaugeReading> readings{};
};

/// Appends a gauge family for each family some policy has a reading of, in the strategies'
/// order (strategy_gauge_families: quote_lab_bulkhead_active, quote_lab_retry_quota_available,
/// quote_lab_throttle_drop_ratio, ...), one series per policy, labelled `mode`.
void add_strategy_gauges(std::vector<prometheus::MetricFamily>& families, const std::vector<StrategyGauges>& policies);

}  // namespace quote_lab
