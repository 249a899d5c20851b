// A storm in simulated time: the lab's own executor and strategies against the scenarios'
// carrier rules, deterministic per seed, reported as a storm.

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>

#include "lab/carrier/scenario.hpp"
#include "lab/experiments/storm_report.hpp"
#include "lab/simulation/simulated_storm.hpp"
#include "support/simulated_lab.hpp"

namespace test_simulated_storm {

using namespace quote_lab;

const ScenarioCatalog& catalog() { return quote_lab::testing::shipped_scenario_catalog(); }

const Policies& policies() {
  static const Policies p = default_policies();
  return p;
}

// The lab as `serve` starts it by default: 16 quotes at once, 354 carrier threads.
SimulationSetup lab() { return SimulationSetup{policies(), catalog()}; }

StormOptions storm(std::string policy, std::string scenario, int clients, long requests, std::uint64_t seed) {
  StormOptions o;
  o.mode = std::move(policy);
  o.scenario = std::move(scenario);
  o.clients = clients;
  o.requests = requests;
  o.seed = seed;
  return o;
}

std::string json_of(const StormResult& r) { return to_json(r).dump(2); }

// The bound is for the lab's own build; a sanitizer's instrumentation makes every
// fiber switch and memory access many times slower (TSan: 1.9 s), which measures the sanitizer.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kTimed = false;
#else
constexpr bool kTimed = true;
#endif

TEST_CASE("ten thousand quotes of resilient on provider_down with 50 clients, simulated in under a second") {
  const auto started = std::chrono::steady_clock::now();
  const StormResult r = simulate_storm(storm("resilient", "provider_down", 50, 10'000, 7), lab());
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (kTimed) CHECK(took_s < 1.0);
  CHECK(r.requests == 10'000);
  CHECK(r.status_counts.at("degraded") == 10'000);  // the fallback answers every one
  // Only the 16 quotes in the lab's workers at once call before the breaker opens.
  CHECK(r.carrier_calls == 16u);
  CHECK(r.goodput == 10'000);
}

TEST_CASE("the same seed gives the same report, byte for byte, and another seed another run with the same verdicts") {
  const StormOptions o = storm("legacy", "flaky_provider", 20, 2'000, 11);
  const std::string first = json_of(simulate_storm(o, lab()));
  CHECK(json_of(simulate_storm(o, lab())) == first);
  StormOptions other = o;
  other.seed = 12;
  const StormResult r12 = simulate_storm(other, lab());
  const StormResult r11 = simulate_storm(o, lab());
  CHECK(json_of(r12) != first);
  CHECK(to_json(r12)["timeline"] != to_json(r11)["timeline"]);
  CHECK(to_json(r12)["latency_ms"] != to_json(r11)["latency_ms"]);
  // flaky_provider fails each quote's first attempt and answers its retry, whatever the draws:
  // both seeds make two calls a quote and get every quote live, at latencies of their own.
  CHECK(r11.amplification == doctest::Approx(2.0));
  CHECK(r12.amplification == doctest::Approx(2.0));
  CHECK(r11.verdicts == r12.verdicts);
  CHECK(r11.verdicts.at("useful") == 2'000);
}

TEST_CASE("the course's amplification figures: legacy 4, resilient without its breaker 2, with a 10 % budget 1.1, with its breaker 0.01") {
  CHECK(*simulate_storm(storm("legacy", "provider_down", 10, 100, 1), lab()).amplification == doctest::Approx(4.0));
  StormOptions no_breaker = storm("resilient", "provider_down", 10, 100, 1);
  no_breaker.params = {{"circuit_breaker", "false"}};
  CHECK(*simulate_storm(no_breaker, lab()).amplification == doctest::Approx(2.0));
  StormOptions budget = no_breaker;
  budget.params.push_back({"retry_budget_ratio", "0.1"});
  budget.params.push_back({"retry_budget_min_per_s", "0"});
  CHECK(*simulate_storm(budget, lab()).amplification == doctest::Approx(1.1));
  const StormResult breaker = simulate_storm(storm("resilient", "provider_down", 10, 1'000, 1), lab());
  CHECK(breaker.carrier_calls == 10u);  // the 10 clients' first attempts open it
  CHECK(*breaker.amplification == doctest::Approx(0.01));
}

TEST_CASE("legacy's storm holds the lab's 16 workers: 4 attempts of 360 ms each, and 50 clients wait their turn") {
  const StormResult r = simulate_storm(storm("legacy", "provider_down", 50, 160, 3), lab());
  CHECK(r.status_counts.at("failed") == 160);
  CHECK(*r.amplification == doctest::Approx(4.0));
  CHECK(*r.latency.max_ms > 1440);  // a quote's own 4 × 360 ms, plus its wait for a worker
  CHECK(r.elapsed_s == doctest::Approx(160.0 / 16 * 1.44).epsilon(0.01));
  CHECK(r.wasted_carrier_calls == 640u);  // every hung call outlives its caller's deadline
}

TEST_CASE("hedged on tail_latency: hedges race on fibers, and the hedge budget bounds them") {
  const StormResult r = simulate_storm(storm("hedged", "tail_latency", 10, 1'000, 5), lab());
  CHECK(r.requests == 1'000);
  CHECK(*r.amplification > 1.0);    // some hedges went
  CHECK(*r.amplification <= 1.16);  // at most 15 % of requests + 1 a second
  CHECK(r.verdicts.at("useful") == 1'000);
}

TEST_CASE("an open loop at a rate: arrivals on schedule, the ones beyond max_in_flight counted as not sent") {
  StormOptions o = storm("legacy", "provider_down", 1, 0, 9);
  o.requests.reset();
  o.rate_per_s = 50;
  o.arrivals = ArrivalProcess::uniform;
  o.duration_s = 4;
  o.max_in_flight = 20;
  const StormResult r = simulate_storm(o, lab());
  CHECK(r.arrivals == 200);
  // 16 in the workers and 4 waiting hold the bound; each legacy quote lasts 1.44 s.
  CHECK(r.arrivals_not_sent > 0);
  CHECK(r.requests + r.arrivals_not_sent == 200);
  CHECK(r.timeline.size() == 4);
}

TEST_CASE("a report names the scenario by its canonical name, whichever alias was asked") {
  const StormResult r = simulate_storm(storm("legacy", "down", 2, 4, 1), lab());
  CHECK(r.options.scenario == "provider_down");
}

TEST_CASE("the lab's own work shares the machine's 2 cores: a breaker-open lab answers at most 2 / 0.35 ms quotes a second") {
  const StormResult r = simulate_storm(storm("resilient", "provider_down", 100, 20'000, 2), lab());
  CHECK(r.throughput_rps < 2 / 0.00035 * 1.01);
  CHECK(r.throughput_rps > 2 / 0.00035 * 0.5);  // the first 0.3 s wait for the breaker to open
}

TEST_CASE("an open loop's arrivals not sent keep their priority: a sheddable share counts them too") {
  StormOptions o = storm("legacy", "provider_down", 1, 500, 11);
  o.rate_per_s = 60;
  o.max_in_flight = 20;
  o.sheddable_share = 0.3;
  const StormResult r = simulate_storm(o, lab());
  REQUIRE(r.arrivals_not_sent > 100);
  const long sheddable = r.by_priority.at("sheddable").arrivals;
  CHECK(sheddable == doctest::Approx(150).epsilon(0.1));
  CHECK(r.by_priority.at("critical").arrivals + sheddable == 500);
}

TEST_CASE("a shedding scenario plays its stations in simulated time: overloaded_fifo at twice its capacity sheds") {
  StormOptions o = storm("legacy", "overloaded_fifo", 1, 0, 4);
  o.requests.reset();
  o.rate_per_s = 40;
  o.duration_s = 10;
  const StormResult r = simulate_storm(o, lab());
  CHECK(r.requests > 0);
  CHECK(json_of(r) == json_of(simulate_storm(o, lab())));
}

TEST_CASE("a simulation refuses what it cannot run, naming it: an unknown policy, scenario or override, no seed") {
  StormOptions o = storm("resilent", "provider_dwn", 10, 100, 1);
  o.seed.reset();
  const auto errors = validate_simulation(o, lab());
  REQUIRE(errors.size() == 3);
  CHECK(errors[0] == "--policy: no policy named 'resilent' (legacy, resilient, a shipped one or one of "
                     "--policies-file); did you mean 'resilient'?");
  CHECK(errors[1] == "--scenario: no scenario named 'provider_dwn'; did you mean 'provider_down'?");
  CHECK(errors[2] == "--seed is required: the same seed gives the same run");
  CHECK_THROWS_AS(simulate_storm(o, lab()), std::invalid_argument);

  StormOptions overridden = storm("resilient", "provider_down", 10, 100, 1);
  overridden.params = {{"bogus", "1"}};
  CHECK(validate_simulation(overridden, lab()) ==
        std::vector<std::string>{"--param bogus: not a policy override (a quote's: timeout_ms, max_attempts, ...; docs/reference.md lists them)"});
  overridden.params = {{"timeout_ms", "100"}, {"timeout_ms", "1000"}};
  CHECK(validate_simulation(overridden, lab()) ==
        std::vector<std::string>{"--param timeout_ms is given twice: give each override once"});
  overridden.params = {{"max_attempts", "99"}};
  CHECK(validate_simulation(overridden, lab()) ==
        std::vector<std::string>{"--param: max_attempts must be an integer between 1 and 10 (got '99')"});
}

}  // namespace test_simulated_storm
