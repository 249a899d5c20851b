// The policies as plain data: the course's defaults, range validation, jitter names, a
// declared pipeline kept in line with the keys.
// Reading and writing them as JSON is tests/formats/test_policy_json.cpp.
#include <doctest/doctest.h>

#include "lab/resilience/policy.hpp"

namespace test_policy {

using namespace quote_lab;

TEST_CASE("the defaults are the numbers the course teaches") {
  const Policies p = default_policies();
  CHECK(p.legacy.timeout_ms == 360);
  CHECK(p.legacy.max_attempts == 4);
  CHECK(p.legacy.backoff_base_ms == 0);
  CHECK_FALSE(p.legacy.uses(Strategy::circuit_breaker));
  CHECK_FALSE(p.legacy.uses(Strategy::fallback));
  CHECK(p.resilient.timeout_ms == 220);
  CHECK(p.resilient.max_attempts == 2);
  CHECK(p.resilient.backoff_base_ms == 80);
  CHECK(p.resilient.jitter == Jitter::additive);
  CHECK(p.resilient.jitter_min_ms == 15);
  CHECK(p.resilient.jitter_max_ms == 45);
  CHECK(p.resilient.uses(Strategy::circuit_breaker));
  CHECK(p.resilient.uses(Strategy::fallback));
  CHECK(p.breaker.failure_threshold == 2);
  CHECK(p.breaker.open_duration_s == 30);
  CHECK(validate(p).empty());
}

TEST_CASE("every jitter name parses back to its value, and an unknown name is refused") {
  CHECK(jitter_names() == std::vector<std::string>{"none", "additive", "full", "equal", "decorrelated"});
  for (const auto& name : jitter_names()) {
    CAPTURE(name);
    Jitter j = Jitter::none;
    REQUIRE(parse_jitter(name, j));
    CHECK(to_string(j) == name);
  }
  Jitter untouched = Jitter::equal;
  CHECK_FALSE(parse_jitter("Full", untouched));  // case-sensitive: the course writes them in lower case
  CHECK_FALSE(parse_jitter("", untouched));
  CHECK(untouched == Jitter::equal);
}

TEST_CASE("validate names the field, the range and the value, for every problem at once") {
  Policies p = default_policies();
  p.resilient.max_attempts = 11;
  p.legacy.timeout_ms = 9;
  p.resilient.jitter_min_ms = 50;  // above jitter_max_ms = 45
  const auto errors = validate(p);
  REQUIRE(errors.size() == 3);
  const auto says = [&](const std::string& text) {
    for (const auto& e : errors)
      if (e.find(text) != std::string::npos) return true;
    return false;
  };
  CHECK(says("resilient.max_attempts must be between 1 and 10 (got 11)"));
  CHECK(says("legacy.timeout_ms must be between 10 and 10000 (got 9)"));
  CHECK(says("resilient.jitter_min_ms must not exceed jitter_max_ms"));
}

TEST_CASE("validate checks a pipeline: it runs as written and lists what the course settings need") {
  Policies p = default_policies();
  RetryPolicy& hedged = p.named[4].retry;
  REQUIRE(hedged.mode == "hedged");
  hedged.overload.bulkhead.max_concurrent = 0;  // not listed: settings that do not run are not read
  hedged.deadline_ms = 800;                      // needs `deadline`, which the list leaves out
  RetryPolicy& throttled = p.named[1].retry;
  REQUIRE(throttled.mode == "throttled");
  throttled.pipeline = {Strategy::fallback, Strategy::retry, Strategy::timeout, Strategy::adaptive_throttle};
  throttled.overload.adaptive_throttle.buckets = 30;  // 10000 ms is not a multiple of 30
  RetryPolicy& limit = p.named[2].retry;
  REQUIRE(limit.mode == "adaptive_limit");
  switch_strategy(limit, Strategy::deadline, true);  // listed with no deadline_ms
  switch_strategy(limit, Strategy::retry, false);    // max_attempts 2 needs it
  CHECK(validate(p) == std::vector<std::string>{
                           "throttled.adaptive_throttle.window_ms must be a multiple of buckets (got 10000 and 30)",
                           "throttled.pipeline: 'adaptive_throttle' must come before 'timeout': 'timeout' is the "
                           "call itself, so it comes last",
                           "adaptive_limit.pipeline lists 'deadline', which the policy does not use",
                           "adaptive_limit.pipeline leaves out 'retry', which the policy uses",
                           "hedged.pipeline leaves out 'deadline', which the policy uses",
                       });
}

TEST_CASE("switch_strategy adds a strategy at its place in the shipped order and takes it out") {
  RetryPolicy p = hedged_policy().retry;
  REQUIRE(p.pipeline == std::vector<Strategy>{Strategy::fallback, Strategy::retry, Strategy::hedging, Strategy::timeout});
  switch_strategy(p, Strategy::fallback, false);
  switch_strategy(p, Strategy::circuit_breaker, true);
  p.deadline_ms = 900;
  switch_strategy(p, Strategy::deadline, true);
  switch_strategy(p, Strategy::deadline, true);  // already listed: stays once
  CHECK(p.pipeline == std::vector<Strategy>{Strategy::deadline, Strategy::retry, Strategy::circuit_breaker,
                                            Strategy::hedging, Strategy::timeout});
  std::vector<std::string> errors;
  validate(p, errors);
  CHECK(errors.empty());
}

}  // namespace test_policy
