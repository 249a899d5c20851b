#include "lab/resilience/pipeline.hpp"

#include <algorithm>

namespace quote_lab {
namespace {

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
  if (const auto need = outer_need(s); need && !is_listed(outer, need->outer))
    return quoted(s) + " must come after " + quoted(need->outer) + ": " + std::string(need->because.en);
  return "";
}

}  // namespace

std::string pipeline_problem(const std::vector<Strategy>& pipeline) {
  std::vector<Strategy> outer;
  for (const Strategy s : pipeline) {
    if (std::string problem = misplaced(s, outer); !problem.empty()) return problem;
    outer.push_back(s);
  }
  return "";
}

}  // namespace quote_lab
