#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "lab/experiments/herd.hpp"

namespace test_herd {

using namespace quote_lab;

namespace {
HerdOptions course() {
  HerdOptions o;
  o.policy = default_policies().resilient;  // base 80 ms, cap 2000 ms
  return o;
}
const HerdResult& find(const std::vector<HerdResult>& rs, const char* name) {
  for (const auto& r : rs)
    if (r.strategy == name) return r;
  FAIL("no such strategy");
  return rs.front();
}
}  // namespace

TEST_CASE("the herd simulation is reproducible: same seed, same table") {
  const auto a = simulate_all_strategies(course());
  const auto b = simulate_all_strategies(course());
  REQUIRE(a.size() == 5);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(to_json(a[i]) == to_json(b[i]));
  HerdOptions other = course();
  other.seed = 7;
  CHECK(to_json(simulate_herd(other, Jitter::full)) != to_json(a[2]));
}

TEST_CASE("every client gets through once the carrier recovers, and never before") {
  for (const auto& r : simulate_all_strategies(course())) {
    CAPTURE(r.strategy);
    CHECK(r.gave_up == 0);
    // Nobody is served before T = 2 s, and the recovered carrier serves 10 at once for 130 ms
    // each: 100 clients need at least 10 such rounds after T.
    CHECK(r.all_succeeded_s >= 2.0 + 10 * 0.130);
    CHECK(r.carrier_calls >= 200);                    // at least two calls each: one failed, one served
  }
}

TEST_CASE("jitter breaks up the herd: full jitter spreads retries and needs fewer calls than none") {
  const auto rs = simulate_all_strategies(course());
  const auto& none = find(rs, "none");
  const auto& full = find(rs, "full");
  const auto& decorrelated = find(rs, "decorrelated");
  CHECK(none.max_arrivals_per_10ms == 100);           // all 100 retry in the same instant
  CHECK(full.max_arrivals_per_10ms < none.max_arrivals_per_10ms / 2);
  CHECK(decorrelated.max_arrivals_per_10ms < none.max_arrivals_per_10ms / 2);
  CHECK(full.carrier_calls < none.carrier_calls);
  CHECK(full.all_succeeded_s < none.all_succeeded_s);
}

TEST_CASE("a client that never gets through gives up after max_attempts") {
  HerdOptions o = course();
  o.recover_after_s = 3600;
  o.max_attempts = 5;
  o.clients = 3;
  const auto r = simulate_herd(o, Jitter::full);
  CHECK(r.gave_up == 3);
  CHECK(r.carrier_calls == 15);
}

}  // namespace test_herd
