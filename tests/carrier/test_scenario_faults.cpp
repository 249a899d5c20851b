// The fault kinds of a scenario file (scenario.hpp's header): parsing, the seeded draws,
// and the start-up errors a teacher sees for a bad file.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "lab/carrier/scenario.hpp"

namespace test_scenario_faults {

using namespace quote_lab;
using Kind = AttemptBehaviour::Kind;

namespace {

Scenario with_then(const std::string& then, const std::string& extra = "") {
  const auto j = nlohmann::ordered_json::parse(R"({"name": "x", "description": {"es": "a", "en": "b"}, "then": )" + then +
                                               (extra.empty() ? "" : ", " + extra) + "}");
  return scenario_from_json(j, "faults.json");
}

std::string error_of(const std::string& then, const std::string& extra = "") {
  try {
    with_then(then, extra);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("each fault kind parses from its name, Toxiproxy's names and the old 'hang' included") {
  struct Row {
    const char* then;
    Kind kind;
    int status;
  };
  for (const Row& r : {
           Row{R"({"latency_ms": [1, 2], "response": "ok"})", Kind::answer, 200},
           Row{R"({"latency_ms": [1, 2], "response": 503})", Kind::answer, 503},
           Row{R"({"latency_ms": [1, 2], "response": 100})", Kind::answer, 100},
           Row{R"({"response": "timeout"})", Kind::timeout, 504},
           Row{R"({"response": "hang"})", Kind::timeout, 504},
           Row{R"({"latency_ms": [1, 2], "response": "reset_peer"})", Kind::reset_peer, 200},
           Row{R"({"response": "refused"})", Kind::refused, 200},
           Row{R"({"latency_ms": [1, 2], "response": "slicer"})", Kind::slicer, 200},
           Row{R"({"latency_ms": [1, 2], "response": "bandwidth"})", Kind::slicer, 200},
           Row{R"({"latency_ms": [1, 2], "response": "malformed"})", Kind::malformed, 200},
           Row{R"({"latency_ms": [1, 2], "response": "truncated"})", Kind::truncated, 200},
       }) {
    CAPTURE(r.then);
    const auto b = with_then(r.then).then;
    CHECK(b.kind == r.kind);
    CHECK(b.status == r.status);
  }
}

TEST_CASE("a status carries its body and a 429 or 5xx its Retry-After, in seconds or as an HTTP date") {
  const auto limited = with_then(R"({"latency_ms": [5, 5], "response": 429, "retry_after": 2, "body": "{\"e\": 1}"})").then;
  CHECK(limited.status == 429);
  CHECK(limited.retry_after == "2");
  CHECK(limited.body == std::optional<std::string>("{\"e\": 1}"));
  const auto dated = with_then(R"({"latency_ms": [5, 5], "response": 503, "retry_after": "Wed, 21 Oct 2026 07:28:00 GMT"})").then;
  CHECK(dated.retry_after == "Wed, 21 Oct 2026 07:28:00 GMT");
  const auto sliced = with_then(R"({"latency_ms": [5, 5], "response": "slicer", "slice_bytes": 4, "slice_delay_ms": 30})").then;
  CHECK(sliced.slice_bytes == 4);
  CHECK(sliced.slice_delay_ms == 30);
}

TEST_CASE("a percentile table is interpolated from the draw: p50 at 0.5, halfway between points, max at the top") {
  const auto b = with_then(R"({"latency_ms": {"p50": 120, "p90": 300, "p99": 900, "max": 1500}, "response": "ok"})").then;
  REQUIRE(b.latency_table.size() == 5);  // min 0 added
  CHECK(draw_latency_ms(b, 0.0) == 0);
  CHECK(draw_latency_ms(b, 0.25) == 60);
  CHECK(draw_latency_ms(b, 0.5) == 120);
  CHECK(draw_latency_ms(b, 0.7) == 210);
  CHECK(draw_latency_ms(b, 0.9) == 300);
  CHECK(draw_latency_ms(b, 0.945) == 600);
  CHECK(draw_latency_ms(b, 0.99) == 900);
  CHECK(draw_latency_ms(b, 0.995) == 1200);
  CHECK(draw_latency_ms(b, 0.999999) == 1500);
  const auto floor = with_then(R"({"latency_ms": {"min": 100, "p99.9": 200, "max": 200}, "response": "ok"})").then;
  CHECK(draw_latency_ms(floor, 0.0) == 100);
  CHECK(draw_latency_ms(floor, 0.4995) == 150);
  // Invariant: never below the first point nor above max, and never decreasing.
  int last = 0;
  for (int i = 0; i < 1000; ++i) {
    const int ms = draw_latency_ms(b, i / 1000.0);
    REQUIRE(ms >= last);
    REQUIRE(ms <= 1500);
    last = ms;
  }
}

TEST_CASE("faults with a probability: one draw picks the first whose running sum exceeds it, else the behaviour") {
  const auto b = with_then(R"({"latency_ms": [100, 100], "response": "ok", "faults": [
      {"probability": 0.3, "response": 503},
      {"probability": 0.2, "latency_ms": [7, 7], "response": "reset_peer"}]})").then;
  REQUIRE(b.faults.size() == 2);
  CHECK(pick_fault(b, 0.0).status == 503);
  CHECK(pick_fault(b, 0.0).latency_min_ms == 100);  // a fault without latency keeps the behaviour's
  CHECK(pick_fault(b, 0.29).status == 503);
  CHECK(pick_fault(b, 0.3).kind == Kind::reset_peer);
  CHECK(pick_fault(b, 0.3).latency_max_ms == 7);
  CHECK(pick_fault(b, 0.49).kind == Kind::reset_peer);
  CHECK(&pick_fault(b, 0.5) == &b);
  CHECK(&pick_fault(b, 0.99) == &b);
}

TEST_CASE("a bad fault stops start-up naming the file, the field and the allowed values") {
  struct Row {
    const char* then;
    const char* extra;
    const char* says;
  };
  for (const Row& r : {
           Row{R"({"latency_ms": [1, 2], "response": "explode"})", "",
               R"(then.response must be "ok", "timeout", "hang", "reset_peer", "refused", "slicer", "bandwidth", "malformed", "truncated" or an HTTP status 100-599 (got "explode"))"},
           Row{R"({"latency_ms": [1, 2], "response": 600})", "", "or an HTTP status 100-599 (got 600)"},
           Row{R"({"latency_ms": [1, 2], "response": 99})", "", "or an HTTP status 100-599 (got 99)"},
           Row{R"({"latency_ms": [1, 2], "response": 429, "retry_after": -1})", "",
               "then.retry_after must be whole seconds 0-86400 or an HTTP-date"},
           Row{R"({"latency_ms": [1, 2], "response": 429, "retry_after": "tomorrow"})", "",
               "then.retry_after must be whole seconds 0-86400 or an HTTP-date"},
           Row{R"({"latency_ms": [1, 2], "response": 404, "retry_after": 1})", "", "retry_after goes with a 429 or a 5xx"},
           Row{R"({"latency_ms": [1, 2], "response": "ok", "faults": [{"probability": 1.5, "response": 503}]})", "",
               "then.faults[0].probability must be a number between 0 and 1 (got 1.5)"},
           Row{R"({"latency_ms": [1, 2], "response": "ok", "faults": [{"probability": -0.1, "response": 503}]})", "",
               "then.faults[0].probability must be a number between 0 and 1"},
           Row{R"({"latency_ms": [1, 2], "response": "ok", "faults": [{"response": 503}]})", "",
               "then.faults[0].probability must be a number between 0 and 1 (missing)"},
           Row{R"({"latency_ms": [1, 2], "response": "ok", "faults": [{"probability": 0.6, "response": 503},
                                                                      {"probability": 0.6, "response": 500}]})", "",
               "then.faults: the probabilities add up to more than 1"},
           Row{R"({"latency_ms": [1, 2], "response": "ok", "faults": [{"probability": 0.5, "response": "refused"}]})", "",
               "\"refused\" cannot be a fault with a probability"},
           Row{R"({"latency_ms": [1, 2], "response": "ok", "faults": [{"probability": 0.5, "response": "boom"}]})", "",
               "then.faults[0].response must be \"ok\""},
           Row{R"({"latency_ms": [1, 2], "response": "ok", "probability": 0.5})", "", "then: unknown key 'probability'"},
           Row{R"({"latency_ms": {"p50": 10, "p90": 5, "max": 20}, "response": "ok"})", "",
               "values must not decrease as the percentile grows"},
           Row{R"({"latency_ms": {"p50": 10}, "response": "ok"})", "", "then.latency_ms needs \"max\""},
           Row{R"({"latency_ms": {"p100": 10, "max": 20}, "response": "ok"})", "", "then.latency_ms: unknown key 'p100'"},
           Row{R"({"latency_ms": [1, 2], "response": "ok", "body": "x"})", "", "then.body goes with an HTTP status other than 200"},
           Row{R"({"latency_ms": [1, 2], "response": "ok", "slice_bytes": 3})", "", "then.slice_bytes goes with \"slicer\""},
           Row{R"({"latency_ms": [1, 2], "response": "slicer", "slice_bytes": 0})", "",
               "then.slice_bytes must be an integer between 1 and 65536 (got 0)"},
           Row{R"({"latency_ms": [1, 2], "response": "ok"})", R"("metastable": {"down_ms": 10, "capacity": 0})",
               "metastable.capacity must be an integer between 1 and 10000 (got 0)"},
           Row{R"({"latency_ms": [1, 2], "response": "ok"})", R"("metastable": {"down_ms": 10, "capacity": 1, "down": {"response": "refused"}, "overload": {"response": 503, "latency_ms": [1, 1]}})",
               "metastable.down cannot be \"refused\""},
       }) {
    CAPTURE(r.then);
    const std::string msg = error_of(r.then, r.extra);
    CHECK(msg.find("faults.json") == 0);
    CHECK_MESSAGE(msg.find(r.says) != std::string::npos, msg);
  }
}

TEST_CASE("the course scenarios render in / exactly as before, new fields appear only when a file uses them") {
  const auto s = with_then(R"({"latency_ms": [115, 150], "response": "ok"})");
  CHECK(to_json(s).dump() ==
        R"({"name":"x","aliases":[],"description":{"es":"a","en":"b"},"attempts":[],"then":{"latency_ms":[115,150],"response":"ok"}})");
  const auto hang = with_then(R"({"response": "hang"})");
  CHECK(to_json(hang)["then"].dump() == R"({"response":"hang","hang_ms":5000})");
  const auto limited = with_then(R"({"latency_ms": {"p50": 1, "max": 2}, "response": 429, "retry_after": 3})");
  CHECK(to_json(limited)["then"].dump() ==
        R"({"latency_ms":{"min":0,"p50":1,"max":2},"response":429,"retry_after":"3"})");
}

}  // namespace test_scenario_faults
