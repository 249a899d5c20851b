#include "lab/observability/strategy_gauges.hpp"

#include "lab/resilience/strategies/strategy_table.hpp"

namespace quote_lab {

void add_strategy_gauges(std::vector<prometheus::MetricFamily>& families, const std::vector<StrategyGauges>& policies) {
  for (const GaugeFamily* f : strategy_gauge_families()) {
    prometheus::MetricFamily family{std::string(f->name), std::string(f->help_en), prometheus::MetricType::Gauge, {}};
    for (const StrategyGauges& p : policies)
      for (const GaugeReading& r : p.readings) {
        if (r.family != f) continue;
        prometheus::ClientMetric m;
        m.label.push_back({"mode", p.mode});
        m.gauge.value = r.value;
        family.metric.push_back(std::move(m));
      }
    if (!family.metric.empty()) families.push_back(std::move(family));
  }
}

}  // namespace quote_lab
