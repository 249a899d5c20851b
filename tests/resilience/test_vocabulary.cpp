// The lesson's words: each enum has one name table, the names are the contract's JSON
// strings, and parsing accepts exactly those names.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "lab/resilience/carrier_call.hpp"
#include "lab/resilience/circuit_breaker.hpp"
#include "lab/resilience/vocabulary.hpp"

namespace test_vocabulary {

using namespace quote_lab;

namespace {

// Every value 0..N-1 of E renders to the n-th name and parses back to itself.
template <class E, class Parse>
void check_round_trip(const std::vector<std::string>& names, Parse parse) {
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());  // no name twice
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto value = static_cast<E>(i);
    CAPTURE(names[i]);
    CHECK(to_string(value) == names[i]);
    const auto parsed = parse(names[i]);
    REQUIRE(parsed.has_value());
    CHECK(*parsed == value);
  }
}

}  // namespace

TEST_CASE("modes: legacy and resilient, nothing else") {
  CHECK(mode_names() == std::vector<std::string>{"legacy", "resilient"});
  check_round_trip<Mode>(mode_names(), parse_mode);
  // "any mode that is not legacy" is not resilient: it is no mode at all.
  for (const char* bad : {"", "Legacy", "resilient ", "chaos", "legacy\n"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_mode(bad).has_value());
  }
}

TEST_CASE("steps: the event names of SPEC, in one table") {
  CHECK(step_names() == std::vector<std::string>{"attempt_success", "attempt_failed", "backoff", "circuit_opened",
                                                  "short_circuit", "half_open_probe", "fallback_used", "retry_skipped",
                                                  "retry_after", "rejected", "hedge", "hedge_won", "hedge_skipped",
                                                  "token_wait", "cancelled"});
  check_round_trip<Step>(step_names(), parse_step);
  CHECK_FALSE(parse_step("attempt-success").has_value());
  CHECK_FALSE(parse_step("").has_value());
}

TEST_CASE("reasons: failure, skip and fallback reasons, in one table") {
  CHECK(reason_names() == std::vector<std::string>{"timeout", "connect_error", "http_5xx", "http_429", "bad_response",
                                                    "circuit_open", "probe_in_flight", "not_retryable", "shutting_down",
                                                    "retry_budget", "retry_quota", "deadline", "throttled", "concurrency_limit",
                                                    "bulkhead_full", "client_rate_limited", "hedge_budget",
                                                    "half_open_probe", "seed_quote", "cached_quote"});
  check_round_trip<Reason>(reason_names(), parse_reason);
  CHECK_FALSE(parse_reason("http_4xx").has_value());  // SPEC shows a 4xx as bad_response
  CHECK_FALSE(parse_reason("TIMEOUT").has_value());
}

TEST_CASE("priorities: critical and sheddable, nothing else") {
  CHECK(priority_names() == std::vector<std::string>{"critical", "sheddable"});
  check_round_trip<Priority>(priority_names(), parse_priority);
  for (const char* bad : {"", "Critical", "low", "sheddable "}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_priority(bad).has_value());
  }
}

TEST_CASE("call errors take their names from the reason table") {
  CHECK(to_string(CallError::none) == "success");
  CHECK(to_string(CallError::timeout) == "timeout");
  CHECK(to_string(CallError::connect_error) == "connect_error");
  CHECK(to_string(CallError::http_5xx) == "http_5xx");
  CHECK(to_string(CallError::http_429) == "http_429");
  CHECK(to_string(CallError::http_4xx) == "bad_response");
  CHECK(to_string(CallError::bad_response) == "bad_response");
}

TEST_CASE("breaker states round trip through their table") {
  for (auto s : {BreakerState::closed, BreakerState::open, BreakerState::half_open}) {
    BreakerState parsed = BreakerState::closed;
    REQUIRE(parse_breaker_state(to_string(s), parsed));
    CHECK(parsed == s);
  }
  BreakerState untouched = BreakerState::open;
  CHECK_FALSE(parse_breaker_state("Closed", untouched));
  CHECK(untouched == BreakerState::open);
}

}  // namespace test_vocabulary
