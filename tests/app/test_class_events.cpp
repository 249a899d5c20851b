// The class log's entries (lab/app/class_events.hpp): what one replica writes, another reads
// back exactly, and an entry that is not one is refused with the reason.
#include <doctest/doctest.h>

#include <stdexcept>

#include "lab/app/class_events.hpp"

namespace test_class_events {

using namespace quote_lab;

TEST_CASE("class event: a quote's flow, line and breaker come back exactly") {
  FlowRecord f;
  f.incident = Incident{"r-1", "resilient", "flaky_provider", QuoteStatus::degraded, 3, 2, 1, true, false, 123.456,
                        WallTime(std::chrono::microseconds(1'764'000'000'123'456LL)), 0.25};
  f.short_circuits = 1;
  f.circuit_opened = true;
  const ClassEvent sent{.lab = "ana", .type = "quote", .line = R"({"request_id":"r-1"})", .flow = f,
                        .breaker = BreakerState::open};
  const ClassEvent got = decode_class_event(encode_class_event(sent));
  CHECK(got.lab == "ana");
  CHECK(got.type == "quote");
  CHECK(got.line == sent.line);
  REQUIRE(got.flow);
  const Incident& i = got.flow->incident;
  CHECK(i.request_id == "r-1");
  CHECK(i.mode == "resilient");
  CHECK(i.scenario == "flaky_provider");
  CHECK(i.status == QuoteStatus::degraded);
  CHECK(i.attempts == 3);
  CHECK(i.retries == 2);
  CHECK(i.timeout_count == 1);
  CHECK(i.fallback_used);
  CHECK_FALSE(i.short_circuited);
  CHECK(i.elapsed_ms == 123.456);
  CHECK(i.queue_ms == 0.25);
  CHECK(i.timestamp == f.incident.timestamp);
  CHECK(got.flow->short_circuits == 1);
  CHECK(got.flow->circuit_opened);
  CHECK(got.breaker == BreakerState::open);
}

TEST_CASE("class event: a carrier mode carries its mode, a reset only its line") {
  const ClassEvent mode = decode_class_event(
      encode_class_event({.lab = "", .type = "carrier_mode", .line = R"({"mode":"slow_provider"})", .mode = "slow_provider"}));
  CHECK(mode.lab.empty());
  CHECK(mode.mode == "slow_provider");
  const ClassEvent reset = decode_class_event(encode_class_event({.lab = "eva", .type = "reset", .line = "{}"}));
  CHECK(reset.type == "reset");
  CHECK_FALSE(reset.flow);
  CHECK_FALSE(reset.breaker);
}

TEST_CASE("class event: what is not one is refused with the reason") {
  auto refusal = [](const std::string& text) {
    try {
      decode_class_event(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refusal("not json").find("not a class event") == 0);
  CHECK(refusal(R"({"lab":"ana","type":"quote","line":"{}"})") == "a quote event without its flow");
  CHECK(refusal(R"({"lab":"ana","type":"carrier_mode","line":"{}"})") == "a carrier_mode event without its mode");
  CHECK(refusal(R"({"lab":"ana","type":"reset","line":"{}","breaker":"ajar"})") == R"(unknown breaker state "ajar")");
  CHECK(refusal(R"({"type":"reset","line":"{}"})").find("not a class event") == 0);
}

}  // namespace test_class_events
