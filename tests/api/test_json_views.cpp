// The JSON renderings of lab/api/json_views.hpp that the HTTP tests cannot reach with the
// default policies.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "lab/api/json_views.hpp"

namespace test_json_views {

using namespace quote_lab;

TEST_CASE("policy_note says which protections a policy has, from its flags, never from its mode's name alone") {
  const Policies p = default_policies();
  CHECK(policy_note(p.legacy) ==
        "legacy has no circuit breaker and no fallback: `dependency` shows the carrier's circuit breaker that "
        "resilient requests share; this request neither asked it nor changed it");
  CHECK(policy_note(p.resilient) ==
        "resilient asks the carrier's circuit breaker (`dependency`) before every attempt and serves the last good "
        "quote when every attempt fails");
  RetryPolicy breaker_only = p.resilient;
  switch_strategy(breaker_only, Strategy::fallback, false);
  CHECK(policy_note(breaker_only) ==
        "resilient asks the carrier's circuit breaker (`dependency`) before every attempt and has no fallback: when "
        "every attempt fails the answer is a 503");
  RetryPolicy fallback_only = p.legacy;
  switch_strategy(fallback_only, Strategy::fallback, true);
  CHECK(policy_note(fallback_only).find("legacy has no circuit breaker but serves the last good quote") == 0);
  CHECK(policy_note(fallback_only).find("neither asked it nor changed it") != std::string::npos);
}

TEST_CASE("the dependency as a document (diagnostics, /state) holds what its text says, key for key and in order") {
  DependencyView d;
  d.breaker.name = "carrier";
  d.breaker.state = BreakerState::open;
  d.breaker.consecutive_failures = 2;
  d.breaker.opened_until = WallTime{} + std::chrono::seconds(1'800'000'000);
  d.breaker.cooldown_left_ms = 12'345;
  d.breaker.open_events = 3;
  d.breaker.last_outcome = "timeout";
  d.breaker.last_latency_ms = 220.456;
  d.fallback_quote.quote = {"q-1", 1234.5, "MXN", WallTime{} + std::chrono::seconds(1'799'999'000)};
  d.fallback_quote.cached_at = d.fallback_quote.quote.priced_at;
  d.now = d.fallback_quote.cached_at + std::chrono::milliseconds(2'550);
  d.state_file = "/tmp/state.json";
  d.state_file_error = "disk full";
  d.state_backend = {"redis", false, "connection refused"};
  const nlohmann::ordered_json from_text = nlohmann::ordered_json::parse(dependency_text(d, JsonLayout::one_line));
  const nlohmann::ordered_json document = dependency_json(d);
  CHECK(document.dump() == from_text.dump());
  CHECK(document["last_latency_ms"] == 220.46);
  CHECK(document["fallback_quote"]["age_s"] == 2.6);
  CHECK(document["state_file_set_aside"].is_null());
  CHECK(document["state_backend"]["error"] == "connection refused");
}

}  // namespace test_json_views
