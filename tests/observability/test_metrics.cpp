#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <utility>

#include "lab/observability/metrics.hpp"
#include "lab/resilience/policy.hpp"

namespace test_metrics {

using namespace quote_lab;

namespace {

QuoteTrace resilient_down() {
  QuoteTrace t;
  t.request = {"resilient", "provider_down", 42, 3, "id", "trace"};
  t.status = QuoteStatus::degraded;
  t.events = {{Step::attempt_failed, 1, 220, Reason::timeout},
              {Step::backoff, 1, {}, {}, 105},
              {Step::attempt_failed, 2, 220, Reason::timeout},
              {Step::fallback_used, 2, {}, Reason::seed_quote}};
  t.elapsed_ms = 545;
  return t;
}

std::string render(Metrics& m, BreakerState state = BreakerState::closed) {
  BreakerSnapshot b;
  b.state = state;
  CarrierStats c;
  c.calls_by_scenario = {{"ok", 3}, {"provider_down", 2}};
  c.in_flight = 1;
  c.peak_in_flight = 4;
  return Metrics::to_text(m.collect(b, c));
}

bool has(const std::string& text, const std::string& line) { return text.find(line) != std::string::npos; }

}  // namespace

TEST_CASE("every metric SPEC names is exposed, with HELP and TYPE") {
  Metrics m({"ok", "provider_down"}, {"/health", "/quote-resilient"});
  const std::string text = render(m);
  for (const char* name : {"quote_lab_quote_requests_total", "quote_lab_quote_duration_seconds",
                           "quote_lab_carrier_attempts_total", "quote_lab_retries_total", "quote_lab_fallbacks_total",
                           "quote_lab_breaker_state", "quote_lab_breaker_transitions_total",
                           "quote_lab_carrier_calls_total", "quote_lab_carrier_in_flight",
                           "quote_lab_http_requests_total"}) {
    CAPTURE(name);
    // quote_lab_http_requests_total has no series before the first request
    if (std::string(name) == "quote_lab_http_requests_total") continue;
    CHECK(has(text, std::string("# HELP ") + name + " "));
    CHECK(has(text, std::string("# TYPE ") + name + " "));
  }
}

TEST_CASE("one quote flow is counted in every family it touches") {
  Metrics m({"ok", "provider_down"}, {"/quote-resilient"});
  m.record(resilient_down());
  m.record_http("/quote-resilient", 200);
  m.record_transition({"carrier", BreakerState::closed, BreakerState::open, 2});
  const std::string text = render(m, BreakerState::open);
  CHECK(has(text, R"(quote_lab_quote_requests_total{mode="resilient",scenario="provider_down",status="degraded"} 1)"));
  CHECK(has(text, R"(quote_lab_carrier_attempts_total{mode="resilient",outcome="timeout"} 2)"));
  CHECK(has(text, R"(quote_lab_retries_total{mode="resilient"} 1)"));
  CHECK(has(text, R"(quote_lab_fallbacks_total{mode="resilient"} 1)"));
  CHECK(has(text, R"(quote_lab_quote_duration_seconds_bucket{mode="resilient",scenario="provider_down",le="0.52"} 0)"));
  CHECK(has(text, R"(quote_lab_quote_duration_seconds_bucket{mode="resilient",scenario="provider_down",le="0.6"} 1)"));
  CHECK(has(text, R"(quote_lab_breaker_state{state="open",upstream="carrier"} 1)"));
  CHECK(has(text, R"(quote_lab_breaker_state{state="closed",upstream="carrier"} 0)"));
  CHECK(has(text, R"(quote_lab_breaker_transitions_total{from="closed",to="open",upstream="carrier"} 1)"));
  CHECK(has(text, R"(quote_lab_carrier_calls_total{scenario="provider_down"} 2)"));
  CHECK(has(text, R"(quote_lab_carrier_in_flight 1)"));
  CHECK(has(text, R"(quote_lab_http_requests_total{code="200",route="/quote-resilient"} 1)"));
}

TEST_CASE("the steps of overload strategies and skipped retries count by policy and reason or outcome, each apart") {
  Metrics m({"carrier_offline"}, {"/quote/{policy}"}, {"throttled", "hedged", "resilient"});
  QuoteTrace dropped;
  dropped.request = {"throttled", "carrier_offline", 42, 3, "id", "trace"};
  dropped.status = QuoteStatus::degraded;
  dropped.events = {{Step::rejected, 1, {}, Reason::throttled}, {Step::fallback_used, 1, {}, Reason::cached_quote}};
  m.record(dropped);
  m.record(dropped);
  QuoteTrace hedged;
  hedged.request = {"hedged", "carrier_offline", 42, 3, "id", "trace"};
  hedged.status = QuoteStatus::completed;
  hedged.events = {{Step::hedge, 1, {}, {}, 300}, {Step::hedge_won, 1}, {Step::attempt_success, 1, 420}};
  m.record(hedged);
  hedged.events = {{Step::hedge_skipped, 1, {}, Reason::hedge_budget}, {Step::attempt_success, 1, 400}};
  m.record(hedged);
  QuoteTrace budget = resilient_down();
  budget.events = {{Step::attempt_failed, 1, 220, Reason::timeout}, {Step::retry_skipped, 2, {}, Reason::retry_budget}};
  m.record(budget);
  const std::string text = render(m);
  CHECK(has(text, R"(quote_lab_overload_rejections_total{mode="throttled",reason="throttled"} 2)"));
  CHECK(has(text, R"(quote_lab_hedges_total{mode="hedged",outcome="sent"} 1)"));
  CHECK(has(text, R"(quote_lab_hedges_total{mode="hedged",outcome="won"} 1)"));
  CHECK(has(text, R"(quote_lab_hedges_total{mode="hedged",outcome="skipped"} 1)"));
  CHECK(has(text, R"(quote_lab_retries_skipped_total{mode="resilient",reason="retry_budget"} 1)"));
  // A refusal is not a skipped retry, nor a skipped retry a refusal.
  CHECK_FALSE(has(text, R"(quote_lab_retries_skipped_total{mode="throttled")"));
  CHECK_FALSE(has(text, R"(quote_lab_overload_rejections_total{mode="resilient")"));
}

TEST_CASE("each policy's own refusals, skipped retries and hedges read 0 from start and after a reset, not nothing") {
  const Policies shipped = default_policies();
  Metrics::Pipelines pipelines;
  for (const NamedPolicy& p : shipped.named) pipelines[p.retry.mode] = p.retry.pipeline;
  pipelines["resilient"] = shipped.resilient.pipeline;
  pipelines["unknown"] = {Strategy::bulkhead};  // no such mode: no series
  Metrics m({"ok"}, {}, shipped.names(), pipelines);
  const auto expect_zeros = [](const std::string& text) {
    CHECK(has(text, R"(quote_lab_overload_rejections_total{mode="throttled",reason="throttled"} 0)"));
    CHECK(has(text, R"(quote_lab_overload_rejections_total{mode="adaptive_limit",reason="concurrency_limit"} 0)"));
    CHECK(has(text, R"(quote_lab_overload_rejections_total{mode="bulkhead",reason="bulkhead_full"} 0)"));
    CHECK(has(text, R"(quote_lab_overload_rejections_total{mode="aws_adaptive",reason="client_rate_limited"} 0)"));
    CHECK(has(text, R"(quote_lab_retries_skipped_total{mode="aws_adaptive",reason="retry_quota"} 0)"));
    for (const char* outcome : {"sent", "won", "skipped"})
      CHECK(has(text, std::string(R"(quote_lab_hedges_total{mode="hedged",outcome=")") + outcome + "\"} 0"));
    // Only a policy's own strategies: resilient refuses and hedges nothing, throttled hedges nothing.
    CHECK_FALSE(has(text, R"(quote_lab_overload_rejections_total{mode="resilient")"));
    CHECK_FALSE(has(text, R"(quote_lab_hedges_total{mode="throttled")"));
    CHECK_FALSE(has(text, R"(mode="unknown")"));
  };
  expect_zeros(render(m));
  QuoteTrace dropped;
  dropped.request = {"throttled", "ok", 42, 3, "id", "trace"};
  dropped.status = QuoteStatus::degraded;
  dropped.events = {{Step::rejected, 1, {}, Reason::throttled}, {Step::fallback_used, 1, {}, Reason::cached_quote}};
  m.record(dropped);
  CHECK(has(render(m), R"(quote_lab_overload_rejections_total{mode="throttled",reason="throttled"} 1)"));
  m.reset();
  expect_zeros(render(m));
}

TEST_CASE("labels stay bounded: unknown routes count as other") {
  Metrics m({"ok"}, {"/health"});
  m.record_http("/etc/passwd", 404);
  m.record_http("/health", 200);
  const std::string text = render(m);
  CHECK(has(text, R"(quote_lab_http_requests_total{code="404",route="other"} 1)"));
  CHECK_FALSE(has(text, "passwd"));
}

namespace {

// The bucket (lower, upper] that holds `t` seconds; lower is 0 below the first bound.
std::pair<double, double> bucket_of(double t) {
  const auto& b = quote_duration_buckets_s();
  const auto upper = std::lower_bound(b.begin(), b.end(), t);
  REQUIRE(upper != b.end());
  return {upper == b.begin() ? 0.0 : *(upper - 1), *upper};
}

}  // namespace

TEST_CASE("buckets resolve the default policies' own times to a few percent") {
  const Policies p = default_policies();
  REQUIRE(p.resilient.max_attempts == 2);  // one backoff in the resilient total below
  const double probe_s = p.resilient.timeout_ms / 1000.0;
  const double legacy_attempt_s = p.legacy.timeout_ms / 1000.0;
  const double resilient_all_s =
      (2 * p.resilient.timeout_ms + p.resilient.backoff_base_ms + (p.resilient.jitter_min_ms + p.resilient.jitter_max_ms) / 2.0) /
      1000.0;
  const double legacy_all_s = p.legacy.max_attempts * p.legacy.timeout_ms / 1000.0;
  CHECK(resilient_all_s == doctest::Approx(0.55));
  CHECK(legacy_all_s == doctest::Approx(1.44));
  // Each time, and the same time 4 % late (a busy machine), lands in a bucket at most 20 % of
  // it wide: histogram_quantile then reads it back within a few percent.
  for (const double nominal_s : {probe_s, legacy_attempt_s, resilient_all_s, legacy_all_s})
    for (const double t : {nominal_s, nominal_s * 1.04}) {
      CAPTURE(t);
      const auto [lower, upper] = bucket_of(t);
      CHECK(lower < t);
      CHECK(upper - lower <= 0.2 * t);
    }
}

TEST_CASE("buckets resolve a ~5 µs short circuit: sub-millisecond steps of at most 2.5×") {
  for (double t = 0.0000012; t <= 0.001; t *= 1.1) {  // a short circuit: fast, loaded or sanitized
    CAPTURE(t);
    const auto [lower, upper] = bucket_of(t);
    CHECK(lower > 0);
    CHECK(upper / lower <= doctest::Approx(2.5));
  }
}

TEST_CASE("buckets stay few, ascending and distinct (each is a series per mode and scenario)") {
  const auto& b = quote_duration_buckets_s();
  CHECK(b.size() <= 30);
  CHECK(std::adjacent_find(b.begin(), b.end(), std::greater_equal<>()) == b.end());
  CHECK(b.back() >= 10.0);  // a request the lab held for seconds still lands below +Inf
}

TEST_CASE("JSON view carries the same samples, reset zeroes the counters") {
  Metrics m({"ok", "provider_down"}, {});
  m.record(resilient_down());
  BreakerSnapshot b;
  auto json = Metrics::to_json(m.collect(b, std::nullopt));
  auto find = [&](const std::string& name) {
    for (const auto& f : json)
      if (f["name"] == name) return f;
    return nlohmann::ordered_json();
  };
  const auto fallbacks = find("quote_lab_fallbacks_total");
  REQUIRE(fallbacks.is_object());
  CHECK(fallbacks["type"] == "counter");
  bool found = false;
  for (const auto& s : fallbacks["samples"])
    if (s["labels"]["mode"] == "resilient") found = s["value"] == 1.0;
  CHECK(found);
  CHECK(find("quote_lab_carrier_calls_total").is_null());     // external carrier: not ours to count
  m.reset();
  CHECK_FALSE(has(Metrics::to_text(m.collect(b, std::nullopt)), R"(quote_lab_fallbacks_total{mode="resilient"} 1)"));
}

}  // namespace test_metrics
