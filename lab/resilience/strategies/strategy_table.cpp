// Every strategy's row (strategies.hpp), listed, and what the lab asks of them.
// Adding a strategy: its enum value (pipeline.hpp); its file in strategies/ with its class,
// its state if it keeps one (lent in its own FlowGuards slot, with its gauges and how the
// overload panel shows them) and its row, listed here; if it takes settings, its struct in
// OverloadStrategies with its table and its visit_settings case (strategy_settings); its doc
// row (docs/policies.md, held to GET / by a test).
#include "lab/resilience/strategies/strategy_table.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace quote_lab {

// Each defined in its strategy's own file, with its class.
const StrategyRow& fallback_row();
const StrategyRow& bulkhead_row();
const StrategyRow& deadline_row();
const StrategyRow& retry_row();
const StrategyRow& retry_quota_row();
const StrategyRow& circuit_breaker_row();
const StrategyRow& adaptive_throttle_row();
const StrategyRow& adaptive_retry_row();
const StrategyRow& concurrency_limit_row();
const StrategyRow& hedging_row();
const StrategyRow& timeout_row();

namespace {

// In the enum's order, as every `one of` list names them; `rank` gives the shipped order.
const std::array<const StrategyRow*, kStrategyCount>& rows() {
  static const std::array<const StrategyRow*, kStrategyCount> kRows{
      &fallback_row(),          &bulkhead_row(),       &deadline_row(), &retry_row(),
      &retry_quota_row(),       &circuit_breaker_row(), &adaptive_throttle_row(), &adaptive_retry_row(),
      &concurrency_limit_row(), &hedging_row(),        &timeout_row()};
  return kRows;
}

const StrategyRow& row(Strategy s) {
  return **std::find_if(rows().begin(), rows().end(), [s](const StrategyRow* r) { return r->strategy == s; });
}

}  // namespace

std::string_view to_string(Strategy s) { return row(s).name; }

StrategyAbout about(Strategy s) { return row(s).about; }

std::optional<OuterNeed> outer_need(Strategy s) { return row(s).outer; }

std::optional<Strategy> parse_strategy(std::string_view text) {
  for (const StrategyRow* r : rows())
    if (r->name == text) return r->strategy;
  return std::nullopt;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> out;
  for (const StrategyRow* r : rows()) out.emplace_back(r->name);
  return out;
}

StrategySteps steps_of(Strategy s) { return row(s).steps; }

std::optional<StrategySteps> steps_giving(Reason r) {
  for (const StrategyRow* x : rows())
    if (x->steps.rejected == r || x->steps.retry_skipped == r) return x->steps;
  return std::nullopt;
}

std::string strategy_reasons(std::optional<Reason> StrategySteps::*which) {
  std::string out;
  for (const StrategyRow* x : rows())
    if (const std::optional<Reason> r = x->steps.*which) out += (out.empty() ? "" : ", ") + std::string(to_string(*r));
  return out;
}

int strategy_rank(Strategy s) { return row(s).rank; }

std::vector<std::unique_ptr<ResilienceStrategy>> make_pipeline(const std::vector<Strategy>& pipeline,
                                                               const StrategyDeps& deps) {
  std::vector<std::unique_ptr<ResilienceStrategy>> out;
  out.reserve(pipeline.size());
  for (const Strategy s : pipeline) out.push_back(row(s).make(deps));
  return out;
}

std::vector<std::unique_ptr<StrategyState>> make_states(const RetryPolicy& policy, const StateDeps& deps) {
  std::vector<std::unique_ptr<StrategyState>> out;
  for (const Strategy s : policy.pipeline)
    if (const StateMaker make = row(s).make_state) out.push_back(make(policy, deps));
  return out;
}

Millis longest_wait(Strategy s, const RetryPolicy& policy) {
  if (const LongestWait wait = row(s).longest_wait) return wait(policy);
  return Millis::zero();
}

std::span<const GaugeFamily* const> gauges_of(Strategy s) {
  if (const GaugeList gauges = row(s).gauges) return gauges();
  return {};
}

std::span<const GaugeFamily* const> strategy_gauge_families() {
  // Gathered once: every /metrics scrape and Spanish help lookup walks them.
  static const std::vector<const GaugeFamily*> kFamilies = [] {
    std::vector<const GaugeFamily*> out;
    for (const StrategyRow* r : rows())
      if (r->gauges)
        for (const GaugeFamily* f : r->gauges()) out.push_back(f);
    return out;
  }();
  return kFamilies;
}

}  // namespace quote_lab
