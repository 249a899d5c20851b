// The retry decision as a table: each row is one attempt slot and what the lab does next.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "lab/resilience/retry_decision.hpp"

namespace test_retry_decision {

using namespace quote_lab;
using std::chrono::milliseconds;

namespace {

// "retry after 95 ms", "retry after 300 ms (Retry-After)", "stop",
// "stop: retry_skipped (not_retryable) at attempt 2".
std::string describe(const Stop& s) {
  if (!s.skipped) return "stop";
  return "stop: " + std::string(to_string(*s.skipped)) + " (" + std::string(s.reason ? to_string(*s.reason) : "?") +
         ") at attempt " + std::to_string(s.attempt);
}
std::string describe(const RetryDecision& d) {
  if (const auto* r = std::get_if<Retry>(&d))
    return "retry after " + std::to_string(r->delay.count()) + " ms" +
           (r->wait_step == Step::retry_after ? " (Retry-After)" : r->wait_step == Step::backoff ? "" : " (?)");
  return describe(std::get<Stop>(d));
}

RetryPolicy resilient() { return default_policies().resilient; }  // 2 attempts, 80 ms x 2^(n-1) + 15..45, cap 2000
RetryPolicy legacy() { return default_policies().legacy; }        // 4 attempts, no wait
RetryPolicy resilient_with(int max_attempts, int cap_ms) {
  RetryPolicy p = resilient();
  p.max_attempts = max_attempts;
  p.backoff_max_ms = cap_ms;
  return p;
}

constexpr auto kClosed = BreakerState::closed;
constexpr auto kOpen = BreakerState::open;
constexpr auto kNoDeadline = std::nullopt;
constexpr auto kNoRetryAfter = std::nullopt;

struct Row {
  const char* story;
  RetryPolicy policy;
  AttemptFacts facts;  // attempt, refused, error, breaker_after, shutting_down, time_left,
                       // retry_after, retry_after_room
  double u;
  int previous_ms;
  const char* expected;
};

}  // namespace

TEST_CASE("the retry decision, one attempt slot per row") {
  const Row rows[] = {
      // The call worked: nothing left to decide.
      {"success", resilient(), {1, {}, CallError::none, kClosed}, 0.5, 0, "stop"},
      {"success after a retry", resilient(), {2, {}, CallError::none, kClosed}, 0.5, 95, "stop"},
      // Carrier failures are retried after 80 ms x 2^(n-1) + jitter 15..45 (u picks the jitter).
      {"timeout, lowest jitter", resilient(), {1, {}, CallError::timeout, kClosed}, 0.0, 0, "retry after 95 ms"},
      {"5xx, highest jitter", resilient(), {1, {}, CallError::http_5xx, kClosed}, 0.999, 0, "retry after 125 ms"},
      {"429, middle jitter", resilient(), {1, {}, CallError::http_429, kClosed}, 0.5, 0, "retry after 110 ms"},
      {"connection refused", resilient(), {1, {}, CallError::connect_error, kClosed}, 0.0, 0, "retry after 95 ms"},
      // An unusable answer (malformed body, 204, redirect; SPEC reason bad_response) would come
      // back the same: not retried (the breaker still counts it as the carrier's failure).
      {"malformed answer", resilient(), {1, {}, CallError::bad_response, kClosed}, 0.0, 0,
       "stop: retry_skipped (not_retryable) at attempt 2"},
      {"malformed answer in legacy", legacy(), {1, {}, CallError::bad_response, kClosed}, 0.0, 0,
       "stop: retry_skipped (not_retryable) at attempt 2"},
      // A 4xx is our request's fault (shown as bad_response): the same request fails the same way.
      {"4xx", resilient(), {1, {}, CallError::http_4xx, kClosed}, 0.5, 0, "stop: retry_skipped (not_retryable) at attempt 2"},
      {"4xx in legacy", legacy(), {1, {}, CallError::http_4xx, kClosed}, 0.5, 0, "stop: retry_skipped (not_retryable) at attempt 2"},
      // The last attempt allowed: stop, whatever went wrong.
      {"last attempt timed out", resilient(), {2, {}, CallError::timeout, kClosed}, 0.5, 95, "stop"},
      {"last attempt got a 4xx", resilient(), {2, {}, CallError::http_4xx, kClosed}, 0.5, 95, "stop"},
      {"legacy's 4th attempt", legacy(), {4, {}, CallError::timeout, kClosed}, 0.5, 0, "stop"},
      // Legacy retries at once: no backoff at all.
      {"legacy timeout", legacy(), {1, {}, CallError::timeout, kClosed}, 0.999, 0, "retry after 0 ms"},
      {"legacy 3rd attempt", legacy(), {3, {}, CallError::timeout, kClosed}, 0.999, 0, "retry after 0 ms"},
      // This flow's failure opened the breaker: a retry would only be refused.
      {"breaker opened during the flow", resilient_with(4, 2000), {1, {}, CallError::timeout, kOpen}, 0.5, 0,
       "stop: retry_skipped (circuit_open) at attempt 2"},
      // The breaker refused the slot: a short circuit on the first, a skipped retry later.
      {"refused at once, open", resilient(), {1, Reason::circuit_open, CallError::none, kOpen}, 0.5, 0,
       "stop: short_circuit (circuit_open) at attempt 1"},
      {"refused at once, probe out", resilient(), {1, Reason::probe_in_flight, CallError::none, BreakerState::half_open},
       0.5, 0, "stop: short_circuit (probe_in_flight) at attempt 1"},
      {"retry refused, opened by others", resilient(), {2, Reason::circuit_open, CallError::none, kOpen}, 0.5, 95,
       "stop: retry_skipped (circuit_open) at attempt 2"},
      // The lab is stopping: a retry would only delay the stop; an answer is still an answer.
      {"stopping after a timeout", resilient(), {1, {}, CallError::timeout, kClosed, true}, 0.5, 0,
       "stop: retry_skipped (shutting_down) at attempt 2"},
      {"stopping, legacy", legacy(), {1, {}, CallError::http_5xx, kClosed, true}, 0.5, 0,
       "stop: retry_skipped (shutting_down) at attempt 2"},
      {"stopping after a success", resilient(), {1, {}, CallError::none, kClosed, true}, 0.5, 0, "stop"},
      // The delay doubles per attempt and is capped, jitter included.
      {"3rd attempt of 4", resilient_with(4, 2000), {3, {}, CallError::timeout, kClosed}, 0.0, 175, "retry after 335 ms"},
      {"capped", resilient_with(10, 500), {5, {}, CallError::timeout, kClosed}, 0.0, 500, "retry after 500 ms"},
      // deadline_ms: a wait that would use up the time left is not started (the next attempt
      // would have no time at all); a shorter one is.
      {"wait reaches the deadline", resilient(), {1, {}, CallError::timeout, kClosed, false, milliseconds(95)}, 0.0, 0,
       "stop: retry_skipped (deadline) at attempt 2"},
      {"wait fits before the deadline", resilient(), {1, {}, CallError::timeout, kClosed, false, milliseconds(96)}, 0.0,
       0, "retry after 95 ms"},
      {"legacy past its deadline", legacy(), {2, {}, CallError::timeout, kClosed, false, milliseconds(0)}, 0.5, 0,
       "stop: retry_skipped (deadline) at attempt 3"},
      {"legacy with time left", legacy(), {2, {}, CallError::timeout, kClosed, false, milliseconds(1)}, 0.5, 0,
       "retry after 0 ms"},
      {"stopping outranks the deadline", resilient(), {1, {}, CallError::timeout, kClosed, true, milliseconds(0)}, 0.5,
       0, "stop: retry_skipped (shutting_down) at attempt 2"},
      // The carrier's Retry-After lengthens the wait, up to the cap and the flow's room.
      {"Retry-After longer than the backoff", resilient(),
       {1, {}, CallError::http_429, kClosed, false, kNoDeadline, milliseconds(300)}, 0.0, 0,
       "retry after 300 ms (Retry-After)"},
      {"Retry-After shorter than the backoff", resilient(),
       {1, {}, CallError::http_429, kClosed, false, kNoDeadline, milliseconds(50)}, 0.0, 0, "retry after 95 ms"},
      {"Retry-After capped at backoff_max_ms", resilient_with(2, 500),
       {1, {}, CallError::http_5xx, kClosed, false, kNoDeadline, milliseconds(3000)}, 0.0, 0,
       "retry after 500 ms (Retry-After)"},
      {"Retry-After bounded by the flow's room", resilient(),
       {1, {}, CallError::http_429, kClosed, false, kNoDeadline, milliseconds(3000), milliseconds(1200)}, 0.0, 0,
       "retry after 1200 ms (Retry-After)"},
      {"no room left: the backoff stands", resilient(),
       {1, {}, CallError::http_429, kClosed, false, kNoDeadline, milliseconds(300), milliseconds(-100)}, 0.0, 0,
       "retry after 95 ms"},
      {"legacy ignores Retry-After (cap 0)", legacy(),
       {1, {}, CallError::http_429, kClosed, false, kNoDeadline, milliseconds(300)}, 0.0, 0, "retry after 0 ms"},
      {"Retry-After past the deadline", resilient(),
       {1, {}, CallError::http_429, kClosed, false, milliseconds(250), milliseconds(300)}, 0.0, 0,
       "stop: retry_skipped (deadline) at attempt 2"},
      {"a refused slot ignores the deadline's stop", resilient(),
       {2, Reason::circuit_open, CallError::none, kOpen, false, milliseconds(0), kNoRetryAfter}, 0.5, 95,
       "stop: retry_skipped (circuit_open) at attempt 2"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.story);
    CHECK(describe(next_step(row.policy, row.facts, row.u, milliseconds(row.previous_ms))) == row.expected);
  }
}

TEST_CASE("decorrelated jitter draws from [base, 3 x previous wait]: the previous wait is an input") {
  RetryPolicy p = resilient_with(4, 2000);
  p.jitter = Jitter::decorrelated;
  const AttemptFacts failed{2, {}, CallError::timeout, kClosed};
  CHECK(describe(next_step(p, failed, 0.0, milliseconds(200))) == "retry after 80 ms");
  CHECK(describe(next_step(p, failed, 0.9999, milliseconds(200))) == "retry after 600 ms");
  CHECK(describe(next_step(p, failed, 0.9999, milliseconds(400))) == "retry after 1200 ms");
}

TEST_CASE("invariant: a retry waits between 0 and the cap, and never past the last attempt") {
  for (int cap : {0, 100, 2000}) {
    for (int max_attempts : {1, 2, 10}) {
      const RetryPolicy p = resilient_with(max_attempts, cap);
      for (int attempt = 1; attempt <= max_attempts; ++attempt) {
        for (double u = 0; u < 1; u += 0.07) {
          const auto d = next_step(p, {attempt, {}, CallError::timeout, kClosed}, u, milliseconds(cap));
          CAPTURE(cap);
          CAPTURE(attempt);
          if (attempt == max_attempts) {
            CHECK(describe(d) == "stop");
          } else {
            REQUIRE(std::holds_alternative<Retry>(d));
            CHECK(std::get<Retry>(d).delay >= milliseconds(0));
            CHECK(std::get<Retry>(d).delay <= milliseconds(cap));
          }
        }
      }
    }
  }
}

TEST_CASE("after the wait, before the next attempt: a stop or an overshot deadline skips it") {
  struct Case {
    const char* story;
    int attempt;
    std::optional<milliseconds> time_left;
    bool shutting_down;
    const char* expected;
  };
  const Case cases[] = {
      {"no deadline", 2, kNoDeadline, false, "attempt"},
      {"time left", 3, milliseconds(10), false, "attempt"},
      {"the sleep overshot the deadline", 2, milliseconds(-5), false, "stop: retry_skipped (deadline) at attempt 2"},
      {"exactly at the deadline", 4, milliseconds(0), false, "stop: retry_skipped (deadline) at attempt 4"},
      {"stopped during the wait", 2, milliseconds(10), true, "stop: retry_skipped (shutting_down) at attempt 2"},
      {"stopped, and past the deadline", 2, milliseconds(-5), true, "stop: retry_skipped (shutting_down) at attempt 2"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.story);
    const auto stop = before_attempt(c.attempt, c.time_left, c.shutting_down);
    CHECK((stop ? describe(*stop) : std::string("attempt")) == c.expected);
  }
}

}  // namespace test_retry_decision
