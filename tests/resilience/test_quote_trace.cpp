// QuoteTrace (lab/resilience/quote_trace.hpp): every count the answer, incidents and metrics
// show is read from the one ordered list of steps. Each case is a flow the course shows.
#include <doctest/doctest.h>

#include "lab/resilience/quote_trace.hpp"

namespace test_quote_trace {

using namespace quote_lab;

namespace {
TraceEvent failed(int attempt, Reason why) { return {Step::attempt_failed, attempt, 220.0, why}; }
TraceEvent success(int attempt) { return {Step::attempt_success, attempt, 160.0}; }
TraceEvent backoff(int attempt, long long ms) { return {Step::backoff, attempt, std::nullopt, std::nullopt, ms}; }
TraceEvent step(Step s, int attempt, std::optional<Reason> why = std::nullopt, bool refused = false) {
  return {s, attempt, std::nullopt, why, std::nullopt, refused};
}
QuoteTrace trace(std::vector<TraceEvent> events) {
  QuoteTrace t;
  t.events = std::move(events);
  return t;
}
using O = AttemptOutcome;
}  // namespace

TEST_CASE("legacy provider_down: 4 timeouts are 4 attempts, 3 retries, 4 timeouts, no short circuit") {
  const auto t = trace({failed(1, Reason::timeout), failed(2, Reason::timeout), failed(3, Reason::timeout),
                        failed(4, Reason::timeout)});
  CHECK(t.attempts() == 4);
  CHECK(t.retries() == 3);
  CHECK(t.timeouts() == 4);
  CHECK(t.outcomes() == std::vector<O>{O::timeout, O::timeout, O::timeout, O::timeout});
  CHECK(t.slots() == 4);
  CHECK(t.short_circuits() == 0);
  CHECK_FALSE(t.short_circuited());
  CHECK_FALSE(t.circuit_opened());
  CHECK_FALSE(t.fallback_used());
  CHECK_FALSE(t.probed());
}

TEST_CASE("resilient flaky_provider: a timeout, a backoff and a success, the backoff is not an attempt") {
  const auto t = trace({failed(1, Reason::timeout), backoff(1, 110), success(2)});
  CHECK(t.attempts() == 2);
  CHECK(t.retries() == 1);
  CHECK(t.timeouts() == 1);
  CHECK(t.outcomes() == std::vector<O>{O::timeout, O::success});
  CHECK(t.slots() == 2);
}

TEST_CASE("only timeouts count as timeouts: 5xx, 429, connection errors and bad answers are errors") {
  const auto t = trace({failed(1, Reason::http_5xx), failed(2, Reason::http_429), failed(3, Reason::connect_error),
                        failed(4, Reason::bad_response)});
  CHECK(t.attempts() == 4);
  CHECK(t.timeouts() == 0);
  CHECK(t.outcomes() == std::vector<O>{O::error, O::error, O::error, O::error});
}

TEST_CASE("an open breaker refuses the first slot: no call, no retry, one short circuit, the fallback") {
  const auto t = trace({step(Step::short_circuit, 1, Reason::circuit_open, /*refused=*/true),
                        step(Step::fallback_used, 1, Reason::cached_quote)});
  CHECK(t.attempts() == 0);
  CHECK(t.retries() == 0);  // never -1
  CHECK(t.timeouts() == 0);
  CHECK(t.outcomes() == std::vector<O>{O::short_circuit});
  CHECK(t.slots() == 1);
  CHECK(t.short_circuits() == 1);
  CHECK(t.short_circuited());
  CHECK(t.fallback_used());
}

TEST_CASE("a retry the breaker refused is a short circuit of the flow, but the carrier was called first") {
  const auto t = trace({failed(1, Reason::http_5xx), backoff(1, 110),
                        step(Step::retry_skipped, 2, Reason::probe_in_flight, /*refused=*/true),
                        step(Step::fallback_used, 2, Reason::seed_quote)});
  CHECK(t.attempts() == 1);
  CHECK(t.retries() == 0);
  CHECK(t.outcomes() == std::vector<O>{O::error, O::short_circuit});
  CHECK(t.slots() == 2);
  CHECK(t.short_circuits() == 1);
  CHECK_FALSE(t.short_circuited());
}

TEST_CASE("a retry skipped because this flow's own failures opened the breaker is not a short circuit") {
  const auto t = trace({failed(1, Reason::timeout), backoff(1, 110), failed(2, Reason::timeout),
                        step(Step::circuit_opened, 2), step(Step::fallback_used, 2, Reason::cached_quote)});
  CHECK(t.attempts() == 2);
  CHECK(t.short_circuits() == 0);
  CHECK(t.slots() == 2);
  CHECK(t.circuit_opened());
  CHECK(t.fallback_used());
  const auto skipped = trace({failed(1, Reason::timeout), step(Step::circuit_opened, 1),
                              step(Step::retry_skipped, 2, Reason::circuit_open, /*refused=*/false)});
  CHECK(skipped.short_circuits() == 0);
  CHECK(skipped.outcomes() == std::vector<O>{O::timeout});
}

TEST_CASE("a half-open probe that succeeds is one attempt and a probe") {
  const auto t = trace({step(Step::half_open_probe, 1), success(1)});
  CHECK(t.probed());
  CHECK(t.attempts() == 1);
  CHECK(t.retries() == 0);
  CHECK(t.outcomes() == std::vector<O>{O::success});
}

TEST_CASE("an empty trace counts nothing") {
  const QuoteTrace t;
  CHECK(t.attempts() == 0);
  CHECK(t.retries() == 0);
  CHECK(t.slots() == 0);
  CHECK(t.outcomes().empty());
  CHECK_FALSE(t.short_circuited());
}

TEST_CASE("status and outcome names are the public strings") {
  CHECK(to_string(QuoteStatus::completed) == "completed");
  CHECK(to_string(QuoteStatus::degraded) == "degraded");
  CHECK(to_string(QuoteStatus::failed) == "failed");
  CHECK(to_string(AttemptOutcome::success) == "success");
  CHECK(to_string(AttemptOutcome::timeout) == "timeout");
  CHECK(to_string(AttemptOutcome::error) == "error");
  CHECK(to_string(AttemptOutcome::short_circuit) == "short_circuit");
}

}  // namespace test_quote_trace
