#include "lab/resilience/pipeline.hpp"

#include "lab/base/name_table.hpp"

namespace quote_lab {
namespace {

constexpr NameTable<Strategy, 11> kNames{{{
    {Strategy::fallback, "fallback"},
    {Strategy::bulkhead, "bulkhead"},
    {Strategy::deadline, "deadline"},
    {Strategy::retry, "retry"},
    {Strategy::retry_quota, "retry_quota"},
    {Strategy::circuit_breaker, "circuit_breaker"},
    {Strategy::adaptive_throttle, "adaptive_throttle"},
    {Strategy::adaptive_retry, "adaptive_retry"},
    {Strategy::concurrency_limit, "concurrency_limit"},
    {Strategy::hedging, "hedging"},
    {Strategy::timeout, "timeout"},
}}};

constexpr std::string_view kOrder =
    "outermost first: fallback, bulkhead, deadline, retry, retry_quota, the gates adaptive_throttle, adaptive_retry, "
    "concurrency_limit in any order, circuit_breaker, hedging, timeout";

}  // namespace

std::string_view to_string(Strategy s) { return kNames.name(s); }

std::optional<Strategy> parse_strategy(std::string_view text) { return kNames.parse(text); }

std::vector<std::string> strategy_names() { return kNames.names(); }

StrategySteps steps_of(Strategy s) {
  switch (s) {
    case Strategy::bulkhead: return {.rejected = Reason::bulkhead_full};
    case Strategy::retry_quota: return {.retry_skipped = Reason::retry_quota};
    case Strategy::adaptive_throttle: return {.rejected = Reason::throttled};
    case Strategy::adaptive_retry: return {.rejected = Reason::client_rate_limited};
    case Strategy::concurrency_limit: return {.rejected = Reason::concurrency_limit};
    case Strategy::hedging: return {.hedges = true};
    default: return {};
  }
}

int strategy_rank(Strategy s) {
  switch (s) {
    case Strategy::fallback: return 0;
    case Strategy::bulkhead: return 1;
    case Strategy::deadline: return 2;
    case Strategy::retry: return 3;
    case Strategy::retry_quota: return 4;
    case Strategy::adaptive_throttle:
    case Strategy::adaptive_retry:
    case Strategy::concurrency_limit: return 5;
    case Strategy::circuit_breaker: return 6;
    case Strategy::hedging: return 7;
    case Strategy::timeout: return 8;
  }
  return 9;
}

std::string pipeline_problem(const std::vector<Strategy>& pipeline) {
  for (std::size_t i = 0; i < pipeline.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      if (pipeline[j] == pipeline[i]) return "'" + std::string(to_string(pipeline[i])) + "' is listed twice";
      if (strategy_rank(pipeline[j]) > strategy_rank(pipeline[i]))
        return "'" + std::string(to_string(pipeline[i])) + "' must come before '" + std::string(to_string(pipeline[j])) +
               "' (" + std::string(kOrder) + ")";
    }
  return "";
}

}  // namespace quote_lab
