// The class challenge's scorecard: a fixed battery of five storms in simulated time, the same
// for every design, beside legacy and resilient.

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>

#include "lab/carrier/scenario.hpp"
#include "lab/formats/policy_json.hpp"
#include "lab/simulation/scorecard.hpp"
#include "support/simulated_lab.hpp"

namespace test_scorecard {

using namespace quote_lab;

const ScenarioCatalog& catalog() { return quote_lab::testing::shipped_scenario_catalog(); }

const Policies& policies() {
  static const Policies p = default_policies();
  return p;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kTimed = false;  // a sanitizer's instrumentation is what such a run would time
#else
constexpr bool kTimed = true;
#endif

TEST_CASE("the battery: provider_down, tail_latency, rate_limited, capacity_drop under open load, overloaded_fifo at twice capacity") {
  const auto& battery = scorecard_battery();
  REQUIRE(battery.size() == 5);
  CHECK(battery[0].name == "provider_down");
  CHECK(battery[3].name == "capacity_drop");
  CHECK(battery[3].trigger_end_s == 2.5);
  CHECK(battery[3].load.goodput.fallback_max_age_s == 0);  // recovery is of live quotes
  CHECK(*battery[4].load.rate_per_s == 80);  // overloaded_fifo serves 4 calls of about 100 ms at once: 40 a second
}

TEST_CASE("legacy and resilient on the battery: every figure a student reads beside their own") {
  const SimulationSetup lab{policies(), catalog()};
  const auto started = std::chrono::steady_clock::now();
  const Scorecard legacy = score_policy("legacy", lab);
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (kTimed) CHECK(took_s < 2.0);
  const Scorecard resilient = score_policy("resilient", lab);
  REQUIRE(legacy.rows.size() == 5);
  // provider_down: legacy's 4 attempts answer nothing; resilient's breaker and fallback answer all.
  CHECK(legacy.rows[0].goodput_ratio == 0);
  CHECK(legacy.rows[0].calls_per_quote == doctest::Approx(4.0));
  CHECK(resilient.rows[0].goodput_ratio == 1);
  CHECK(resilient.rows[0].live_ratio == 0);
  // capacity_drop: legacy's retries keep the carrier down; resilient's breaker stays open 30 s.
  CHECK_FALSE(legacy.rows[3].recovered_after_s);
  CHECK_FALSE(resilient.rows[3].recovered_after_s);
  // Legacy's calls cost more than its answers bring: its card stops at 0.
  CHECK(legacy.score == 0);
  CHECK(resilient.score == doctest::Approx(41.8));
  CHECK(ranks_before(resilient, legacy));
  CHECK(to_json(resilient, &legacy, &resilient)["runs"][0]["legacy"]["calls_per_quote"] == 4.0);
}

TEST_CASE("the overload policies beat resilient on the battery: throttled recovers from the capacity drop") {
  const SimulationSetup lab{policies(), catalog()};
  const Scorecard throttled = score_policy("throttled", lab);
  CHECK(throttled.rows[3].recovered_after_s.has_value());
  CHECK(ranks_before(throttled, score_policy("resilient", lab)));
}

TEST_CASE("a run's score: half its goodput and half its live share less 0.1 for each carrier call per quote") {
  // A breaker and a fallback against a dead carrier: every answer useful, none live, almost no call.
  CHECK(run_score(ScoreRow{.run = "provider_down", .goodput_ratio = 1, .live_ratio = 0, .calls_per_quote = 0.02}) ==
        doctest::Approx(0.498));
  // Calling the dead carrier once per quote first costs a tenth of the run.
  CHECK(run_score(ScoreRow{.run = "provider_down", .goodput_ratio = 1, .live_ratio = 0, .calls_per_quote = 1}) ==
        doctest::Approx(0.4));
  // Every answer live, each with one call: the most a run gives.
  CHECK(run_score(ScoreRow{.run = "tail_latency", .goodput_ratio = 1, .live_ratio = 1, .calls_per_quote = 1}) ==
        doctest::Approx(0.9));
  // A retry storm that answers everything still pays for its calls; one that answers nothing
  // pays for them too, below 0 (only the card's score stops at 0).
  CHECK(run_score(ScoreRow{.run = "tail_latency", .goodput_ratio = 1, .live_ratio = 1, .calls_per_quote = 4}) ==
        doctest::Approx(0.6));
  CHECK(run_score(ScoreRow{.run = "provider_down", .goodput_ratio = 0, .live_ratio = 0, .calls_per_quote = 4}) ==
        doctest::Approx(-0.4));
}

TEST_CASE("a retry storm does not win the battery: ten immediate attempts with a hedge on every call score below resilient") {
  const std::string greedy = R"({"greedy": {"pipeline": [{"strategy": "fallback"},
    {"strategy": "retry", "max_attempts": 10, "backoff_base_ms": 0, "backoff_max_ms": 0, "jitter": "none"},
    {"strategy": "hedging", "delay": {"mode": "fixed", "fixed_delay_ms": 0}, "budget": {"share": 1, "min_per_s": 1000}},
    {"strategy": "timeout", "timeout_ms": 10000}]}})";
  const Policies with = policies_from_json(nlohmann::ordered_json::parse(greedy), policies());
  const Scorecard card = score_policy("greedy", SimulationSetup{with, catalog()});
  CHECK(card.calls_per_quote > 10);
  CHECK(ranks_before(score_policy("resilient", SimulationSetup{policies(), catalog()}), card));
}

TEST_CASE("a tie on the score ranks the design with fewer carrier calls per quote first, then the lower p99") {
  Scorecard a{.policy = "a", .rows = {}, .score = 50, .calls_per_quote = 1.2, .p99_ms = 300};
  Scorecard b = a;
  b.policy = "b";
  b.calls_per_quote = 1.1;
  CHECK(ranks_before(b, a));
  b.calls_per_quote = 1.2;
  b.p99_ms = 200;
  CHECK(ranks_before(b, a));
  CHECK_FALSE(ranks_before(a, b));
}

TEST_CASE("a policy the lab does not serve has no scorecard") {
  const SimulationSetup lab{policies(), catalog()};
  CHECK_THROWS_AS(score_policy("nobody", lab), std::invalid_argument);
}

}  // namespace test_scorecard
