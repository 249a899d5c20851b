#include "lab/resilience/pipeline.hpp"

#include <algorithm>

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

bool is_listed(const std::vector<Strategy>& pipeline, Strategy s) {
  return std::find(pipeline.begin(), pipeline.end(), s) != pipeline.end();
}

std::string quoted(Strategy s) { return "'" + std::string(to_string(s)) + "'"; }

// Why `s`, listed after every strategy of `outer`, cannot run there; "" when it can.
std::string misplaced(Strategy s, const std::vector<Strategy>& outer) {
  if (is_listed(outer, s)) return quoted(s) + " is listed twice";
  if (is_listed(outer, Strategy::timeout))
    return quoted(s) + " must come before 'timeout': 'timeout' is the call itself, so it comes last";
  if (is_listed(outer, Strategy::hedging) && s != Strategy::timeout)
    return quoted(s) + " must come before 'hedging': hedging sends its copy through the call itself, so a strategy "
                       "between them would run once for two calls (a half-open breaker would let both through)";
  const bool may_end_a_call = s == Strategy::fallback || steps_of(s).rejected.has_value();
  if (is_listed(outer, Strategy::circuit_breaker) && may_end_a_call)
    return quoted(s) + " must come before 'circuit_breaker': the breaker records every call it lets through, and " +
           quoted(s) + " inside it could end one with no answer from the carrier (a half-open probe never recorded)";
  if (s == Strategy::retry_quota && !is_listed(outer, Strategy::retry))
    return "'retry_quota' must come after 'retry': it pays for the retries of the retry outside it";
  return "";
}

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
  std::vector<Strategy> outer;
  for (const Strategy s : pipeline) {
    if (std::string problem = misplaced(s, outer); !problem.empty()) return problem;
    outer.push_back(s);
  }
  return "";
}

}  // namespace quote_lab
