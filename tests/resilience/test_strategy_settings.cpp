// The settings each overload strategy takes in a policy and their ranges: the defaults lie
// inside them, every bound is named with the value that broke it, and a setting the file
// accepts never makes the strategy's own class throw.
#include <doctest/doctest.h>

#include "lab/base/random.hpp"
#include "lab/resilience/overload/adaptive_throttle.hpp"
#include "lab/resilience/overload/bulkhead.hpp"
#include "lab/resilience/overload/gradient_concurrency_limit.hpp"
#include "lab/resilience/overload/hedge_budget.hpp"
#include "lab/resilience/overload/hedging_delay.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/strategy_settings.hpp"
#include "support/fake_clock.hpp"
#include "support/fixed_random.hpp"

namespace test_strategy_settings {

using namespace quote_lab;

namespace {

template <class S>
std::vector<std::string> problems(const S& s) {
  std::vector<std::string> errors;
  validate(s, "x.", errors);
  return errors;
}

// Each setting of `table` at each end of its range, and one step beyond it.
template <class S>
void check_bounds(std::span<const StrategySetting<S>> table) {
  for (const auto& f : table) {
    CAPTURE(f.key);
    const double step = f.int_member ? 1 : 0.5;
    std::vector<std::string> sentence;
    check_range(sentence, "x." + std::string(f.key), f.hi + step, f.lo, f.hi);
    const std::string range = sentence.at(0).substr(0, sentence.at(0).find(" (got"));  // "x.k must be between 1 and 10"
    for (const double v : {f.lo, f.hi}) {
      S s{};
      if (f.int_member) s.*f.int_member = static_cast<int>(v);
      else s.*f.number_member = v;
      // A bound may break a tie with another setting (min_samples at 10000 > window_samples
      // 200); only the setting's own range is checked here.
      for (const auto& e : problems(s)) CHECK_MESSAGE(e.find(range) == std::string::npos, e);
    }
    for (const double beyond : {f.lo - step, f.hi + step}) {
      S s{};
      if (f.int_member) s.*f.int_member = static_cast<int>(beyond);
      else s.*f.number_member = beyond;
      const auto errors = problems(s);
      REQUIRE_FALSE(errors.empty());
      CHECK(errors.front().rfind(range + " (got ", 0) == 0);
    }
  }
}

}  // namespace

TEST_CASE("every strategy's defaults lie within the ranges the policies file accepts") {
  const OverloadStrategies defaults;
  int groups = 0;
  for (const std::string& name : strategy_names())
    visit_settings(*parse_strategy(name), defaults, [&](const std::string& prefix, const auto& group, auto) {
      CAPTURE(name + "." + prefix);
      CHECK(problems(group).empty());
      ++groups;
    });
  CHECK(groups == 7);  // bulkhead, retry_quota, adaptive_throttle, adaptive_retry, concurrency_limit, hedging's two
}

TEST_CASE("each setting is accepted at both ends of its range and refused one step beyond, by name") {
  const OverloadStrategies defaults;
  for (const std::string& name : strategy_names())
    visit_settings(*parse_strategy(name), defaults, [&](const std::string& prefix, const auto&, auto table) {
      CAPTURE(name + "." + prefix);
      check_bounds(table);
    });
}

TEST_CASE("the ties between settings are named with both values") {
  CHECK(problems(AdaptiveThrottleSettings{.k = 2, .window_ms = 10000, .buckets = 30, .protection = 5}) ==
        std::vector<std::string>{"x.window_ms must be a multiple of buckets (got 10000 and 30)"});
  GradientLimitSettings g;
  g.max_limit = 2;
  CHECK(problems(g) == std::vector<std::string>{"x.max_limit must not be below min_concurrency (got 2 and 3)"});
  g = GradientLimitSettings{};
  g.initial_limit = 2;
  CHECK(problems(g) == std::vector<std::string>{
                           "x.initial_limit must be between min_concurrency and max_limit, 3 and 1000 (got 2)"});
  RetryPolicy hedged{.mode = "mine"};
  switch_strategy(hedged, Strategy::hedging, true);
  hedged.overload.hedging.delay.min_samples = 201;
  hedged.overload.hedging.budget.share = -0.1;
  std::vector<std::string> errors;
  validate(hedged, errors);
  CHECK(errors == std::vector<std::string>{"mine.hedging.delay.min_samples must not exceed window_samples (got 201 and 200)",
                                           "mine.hedging.budget.share must be between 0 and 1 (got -0.1)"});
}

TEST_CASE("settings at the edges of the accepted ranges build their strategies without throwing") {
  testing::FakeClock clock;
  testing::FixedRandom random(0.5);
  CHECK_NOTHROW(AdaptiveThrottle(clock, random, {.k = 1, .window_ms = 1000, .buckets = 1000, .protection = 0}));
  CHECK_NOTHROW(AdaptiveThrottle(clock, random, {.k = 10, .window_ms = 600000, .buckets = 1, .protection = 1000}));
  GradientLimitSettings g;
  g.initial_limit = g.min_concurrency = g.max_limit = 1;
  g.update_interval_ms = 1;
  g.min_rtt_interval_ms = 100;
  g.jitter_pct = g.buffer_pct = 100;
  g.sample_percentile = 0;
  CHECK_NOTHROW(GradientConcurrencyLimit(clock, random, g));
  CHECK_NOTHROW(HedgingDelay({.mode = HedgingDelayMode::fixed, .fixed_delay_ms = 0, .percentile = 100,
                              .window_samples = 1, .min_samples = 1}));
  CHECK_NOTHROW(HedgeBudget(clock, {.share = 1, .min_per_s = 0}));
  CHECK_NOTHROW(Bulkhead({.max_concurrent = 1, .max_queued = 1000}, clock));
}

TEST_CASE("the hedging delay's modes and the gradient's headrooms parse back to their values") {
  for (const auto& name : hedging_delay_mode_names()) {
    HedgingDelayMode m{};
    REQUIRE(parse_hedging_delay_mode(name, m));
    CHECK(to_string(m) == name);
  }
  for (const auto& name : gradient_headroom_names()) {
    GradientHeadroom h{};
    REQUIRE(parse_gradient_headroom(name, h));
    CHECK(to_string(h) == name);
  }
  HedgingDelayMode untouched = HedgingDelayMode::fixed;
  CHECK_FALSE(parse_hedging_delay_mode("p95", untouched));
  CHECK(untouched == HedgingDelayMode::fixed);
}

}  // namespace test_strategy_settings
