#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "lab/observability/metrics.hpp"

using namespace quote_lab;

namespace {

QuoteTrace resilient_down() {
  QuoteTrace t;
  t.request = {Mode::resilient, "provider_down", 42, 3, "id", "trace"};
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
  CHECK(has(text, R"(quote_lab_quote_duration_seconds_bucket{mode="resilient",scenario="provider_down",le="0.5"} 0)"));
  CHECK(has(text, R"(quote_lab_quote_duration_seconds_bucket{mode="resilient",scenario="provider_down",le="0.75"} 1)"));
  CHECK(has(text, R"(quote_lab_breaker_state{state="open",upstream="carrier"} 1)"));
  CHECK(has(text, R"(quote_lab_breaker_state{state="closed",upstream="carrier"} 0)"));
  CHECK(has(text, R"(quote_lab_breaker_transitions_total{from="closed",to="open",upstream="carrier"} 1)"));
  CHECK(has(text, R"(quote_lab_carrier_calls_total{scenario="provider_down"} 2)"));
  CHECK(has(text, R"(quote_lab_carrier_in_flight 1)"));
  CHECK(has(text, R"(quote_lab_http_requests_total{code="200",route="/quote-resilient"} 1)"));
}

TEST_CASE("labels stay bounded: unknown routes count as other") {
  Metrics m({"ok"}, {"/health"});
  m.record_http("/etc/passwd", 404);
  m.record_http("/health", 200);
  const std::string text = render(m);
  CHECK(has(text, R"(quote_lab_http_requests_total{code="404",route="other"} 1)"));
  CHECK_FALSE(has(text, "passwd"));
}

TEST_CASE("buckets resolve a 1 ms short circuit and a 1.5 s legacy storm") {
  const auto& b = quote_duration_buckets_s();
  CHECK(b.front() <= 0.001);
  CHECK(std::count_if(b.begin(), b.end(), [](double x) { return x > 1.0 && x <= 2.0; }) >= 3);
  CHECK(std::is_sorted(b.begin(), b.end()));
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
