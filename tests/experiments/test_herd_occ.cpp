#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "lab/experiments/herd_occ.hpp"

namespace test_herd_occ {

using namespace quote_lab;

namespace {
const OccHerdResult& find(const std::vector<OccHerdResult>& rs, const char* name) {
  for (const auto& r : rs)
    if (r.strategy == name) return r;
  FAIL("no such strategy");
  return rs.front();
}
// |actual − expected| / expected. (doctest's Approx adds a scale of 1 to its tolerance: far
// too loose for ratios near 0.4.)
double relative_error(double actual, double expected) { return std::abs(actual - expected) / expected; }
double wait(OccStrategy s, int retry, double u, double previous = 5) { return occ_backoff_ms(s, retry, u, previous, 5, 2000); }
}  // namespace

TEST_CASE("the article's waits, base 5 ms and cap 2 s, with the exponent at 1 for the first retry") {
  CHECK(wait(OccStrategy::none, 1, 0.7) == 0);                     // straight back to the row
  CHECK(wait(OccStrategy::exponential, 1, 0.7) == 10);             // 5 × 2^1
  CHECK(wait(OccStrategy::exponential, 3, 0.7) == 40);             // 5 × 2^3
  CHECK(wait(OccStrategy::exponential, 9, 0.7) == 2000);           // 2560 capped
  CHECK(wait(OccStrategy::full, 2, 0.25) == 5);                    // uniform(0, 20)
  CHECK(wait(OccStrategy::equal, 2, 0.0) == 10);                   // 10 + uniform(0, 10)
  CHECK(wait(OccStrategy::equal, 2, 0.5) == 15);
  CHECK(wait(OccStrategy::decorrelated, 1, 0.5) == 10);            // uniform(5, 5 × 3)
  CHECK(wait(OccStrategy::decorrelated, 4, 0.5, 100) == 152.5);    // uniform(5, 300)
  CHECK(wait(OccStrategy::decorrelated, 4, 0.99, 1900) == 2000);   // uniform(5, 5700) capped
}

TEST_CASE("no wait is ever negative or above the cap") {
  for (OccStrategy s : {OccStrategy::none, OccStrategy::exponential, OccStrategy::full, OccStrategy::equal,
                        OccStrategy::decorrelated})
    for (int retry = 1; retry <= 60; ++retry)
      for (double u : {0.0, 0.3, 0.999999}) {
        const double w = wait(s, retry, u, 2000);
        CHECK(w >= 0);
        CHECK(w <= 2000);
      }
}

TEST_CASE("a run is reproducible from its seed, and another seed gives another run") {
  const OccHerdOptions o;
  const OccRun a = simulate_occ_run(o, OccStrategy::full, 42);
  const OccRun b = simulate_occ_run(o, OccStrategy::full, 42);
  CHECK(a.calls == b.calls);
  CHECK(a.completion_s == b.completion_s);
  const OccRun c = simulate_occ_run(o, OccStrategy::full, 43);
  CHECK((c.calls != a.calls || c.completion_s != a.completion_s));
}

TEST_CASE("a lone client writes once, after four network delays of about 10 ms") {
  OccHerdOptions o;
  o.clients = 1;
  for (OccStrategy s : {OccStrategy::none, OccStrategy::exponential, OccStrategy::full}) {
    const OccRun r = simulate_occ_run(o, s, 7);
    CHECK(r.calls == 1);
    CHECK(r.completion_s > 0.020);  // |N(10, 2)| four times: 40 ms give or take a few
    CHECK(r.completion_s < 0.060);
  }
}

TEST_CASE("every client gets its write in: at least one write each, and one more per version the others made meanwhile") {
  OccHerdOptions o;
  o.clients = 20;
  o.runs = 3;
  for (const auto& r : simulate_occ_herd(o)) {
    CAPTURE(r.strategy);
    CHECK(r.calls >= 20);
    CHECK(r.completion_s > 0);
  }
}

// The article's findings at 100 clients, within 10 % of our 100-run re-run
// (../shared/NOTES-herd-occ.md). 20 runs here keep the test fast under the sanitizers
// (about 1.5 s of CPU in a Debug ASan build, 0.1 s optimised); over 60 seeds the 20-run
// means stayed within ±6 % of those figures (calls ratios 0.42–0.44, 0.43–0.44,
// 0.53–0.55; exponential/full completion 12.4–13.9), so 10 % is not a loose bound that hides a
// broken model. The full 100 runs are checked through the command line
// (herd_occ_reproduces_the_article in tests/CMakeLists.txt).
TEST_CASE("occ herd: at 100 clients jitter cuts the writes by about half and the time by about 13x") {
  OccHerdOptions o;
  o.runs = 20;
  const auto rs = simulate_occ_herd(o);
  REQUIRE(rs.size() == 5);
  const auto& exponential = find(rs, "exponential");
  const auto& full = find(rs, "full");
  CHECK(exponential.calls_vs_exponential == 1);
  CHECK(relative_error(find(rs, "full").calls_vs_exponential, 0.43) <= 0.10);
  CHECK(relative_error(find(rs, "equal").calls_vs_exponential, 0.44) <= 0.10);
  CHECK(relative_error(find(rs, "decorrelated").calls_vs_exponential, 0.54) <= 0.10);
  CHECK(relative_error(find(rs, "none").calls_vs_exponential, 1.31) <= 0.10);
  CHECK(relative_error(exponential.completion_s / full.completion_s, 13.1) <= 0.10);
  // Absolute figures of the re-run, same tolerance: ~797 writes in 4.85 s with full jitter.
  CHECK(relative_error(full.calls, 797) <= 0.10);
  CHECK(relative_error(full.completion_s, 4.85) <= 0.10);
}

TEST_CASE("occ herd options out of range are refused, each with its own sentence") {
  OccHerdOptions o;
  CHECK(validate(o).empty());
  o.clients = kOccMaxClients + 1;
  o.runs = 0;
  o.backoff_base_ms = 3000;
  o.delay_stddev_ms = -1;
  CHECK(validate(o).size() == 4);
  o = OccHerdOptions{};
  o.clients = kOccMaxClients;
  o.runs = 100;
  CHECK(validate(o).empty());  // 1,000 × 100: the bound itself
  o.runs = 101;
  CHECK(validate(o) == std::vector<std::string>{"clients × runs must be at most 100000 (got 101000): fewer runs for many clients"});
}

}  // namespace test_herd_occ
