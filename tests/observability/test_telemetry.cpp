#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "lab/observability/telemetry.hpp"

namespace test_telemetry {

using namespace quote_lab;

namespace {
QuoteTrace flow(const std::string& id, Mode mode, QuoteStatus status, double ms, int attempts = 1) {
  QuoteTrace t;
  t.request = {std::string(to_string(mode)), "ok", 42, 3, id, "t"};
  t.status = status;
  t.elapsed_ms = ms;
  for (int n = 1; n <= attempts; ++n)
    t.events.push_back(n == attempts && status == QuoteStatus::completed
                           ? TraceEvent{Step::attempt_success, n, 130}
                           : TraceEvent{Step::attempt_failed, n, 360, Reason::timeout});
  return t;
}
}  // namespace

TEST_CASE("incidents: newest first, limited, bounded to the last 200") {
  Telemetry telemetry;
  for (int i = 0; i < 250; ++i) telemetry.record(flow("r" + std::to_string(i), Mode::legacy, QuoteStatus::completed, 120));
  const auto last2 = telemetry.incidents(2);
  REQUIRE(last2.size() == 2);
  CHECK(last2[0].request_id == "r249");
  CHECK(last2[1].request_id == "r248");
  const auto all = telemetry.incidents(1000);
  CHECK(all.size() == Telemetry::kMaxIncidents);
  CHECK(all.back().request_id == "r50");
}

TEST_CASE("latency percentiles are nearest-rank, and null over no data") {
  std::vector<double> samples;
  for (int i = 1; i <= 100; ++i) samples.push_back(i);
  const auto s = summarize_latency(samples);
  CHECK(*s.p50_ms == 50);
  CHECK(*s.p95_ms == 95);
  CHECK(*s.p99_ms == 99);
  CHECK(*s.max_ms == 100);
  const auto one = summarize_latency({7.5});
  CHECK(*one.p50_ms == 7.5);
  CHECK(*one.p99_ms == 7.5);
  const auto none = summarize_latency({});
  CHECK_FALSE(none.p50_ms);
  CHECK_FALSE(none.max_ms);
}

TEST_CASE("the summary counts per mode and per scenario, and empty modes show nulls") {
  Telemetry telemetry;
  telemetry.record(flow("a", Mode::legacy, QuoteStatus::failed, 1440, 4));
  telemetry.record(flow("b", Mode::legacy, QuoteStatus::completed, 130, 1));
  const auto j = telemetry.summary_json();
  CHECK(j["legacy"]["requests"] == 2);
  CHECK(j["legacy"]["failures"] == 1);
  CHECK(j["legacy"]["successes"] == 1);
  CHECK(j["legacy"]["attempts"] == 5);
  CHECK(j["legacy"]["retries"] == 3);
  CHECK(j["legacy"]["latency_ms"]["max"] == 1440.0);
  CHECK(j["legacy"]["scenarios"]["ok"]["requests"] == 2);
  CHECK(j["resilient"]["requests"] == 0);
  CHECK(j["resilient"]["latency_ms"]["p50"].is_null());
  telemetry.reset();
  CHECK(telemetry.incidents(10).empty());
  CHECK(telemetry.summary_json()["legacy"]["requests"] == 0);
}

TEST_CASE("the summary shows the scenarios it is given, asked or not, in their order") {
  Telemetry telemetry;
  telemetry.record(flow("a", Mode::legacy, QuoteStatus::failed, 1440, 4));  // scenario "ok"
  const auto j = telemetry.summary_json({"provider_down", "ok", "slow_provider"});
  for (const char* mode : {"legacy", "resilient"}) {
    CAPTURE(mode);
    std::vector<std::string> keys;
    for (const auto& [k, _] : j[mode]["scenarios"].items()) keys.push_back(k);
    CHECK(keys == std::vector<std::string>{"provider_down", "ok", "slow_provider"});
    CHECK(j[mode]["scenarios"]["provider_down"]["requests"] == 0);
    CHECK(j[mode]["scenarios"]["provider_down"]["latency_ms"]["p99"].is_null());
  }
  CHECK(j["legacy"]["scenarios"]["ok"]["requests"] == 1);
  CHECK(j["resilient"]["scenarios"]["ok"]["requests"] == 0);
  // A scenario the list does not name still shows once it ran.
  CHECK(telemetry.summary_json({"provider_down"})["legacy"]["scenarios"]["ok"]["requests"] == 1);
}

}  // namespace test_telemetry
