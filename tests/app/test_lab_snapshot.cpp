// A lab's snapshot (lab/app/lab_snapshot.hpp): a telemetry restored from it answers exactly
// as the one it was taken from (counts, percentiles, incidents), and a text that is not one
// is refused with the reason.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "lab/app/lab_snapshot.hpp"

namespace test_lab_snapshot {

using namespace quote_lab;

namespace {
FlowRecord flow(const std::string& id, const std::string& mode, const std::string& scenario, QuoteStatus status,
                double elapsed_ms, int attempts) {
  FlowRecord f;
  f.incident = Incident{id, mode, scenario, status, attempts, attempts - 1, 0, status == QuoteStatus::degraded,
                        false, elapsed_ms, WallTime(std::chrono::microseconds(1'764'000'000'000'000LL)), 0.5};
  f.circuit_opened = status == QuoteStatus::degraded;
  return f;
}
}  // namespace

TEST_CASE("lab snapshot: a telemetry restored from it answers exactly as the original") {
  Telemetry original;
  original.record(flow("a", "resilient", "ok", QuoteStatus::completed, 131.27, 1));
  original.record(flow("b", "resilient", "flaky_provider", QuoteStatus::degraded, 1.0 / 3.0, 3));
  original.record(flow("c", "legacy", "provider_down", QuoteStatus::failed, 2400.125, 4));
  const LabSnapshot taken{.lab = "ana", .through = "1764000000000-7", .last_entry = "1764000000000-5",
                          .carrier_mode = "slow_provider", .storm = {{"running", true}}, .telemetry = original.state()};
  const LabSnapshot got = decode_lab_snapshot(encode_lab_snapshot(taken));
  CHECK(got.lab == "ana");
  CHECK(got.through == "1764000000000-7");
  CHECK(got.last_entry == "1764000000000-5");
  CHECK(got.carrier_mode == "slow_provider");
  CHECK(got.storm == nlohmann::ordered_json{{"running", true}});
  Telemetry restored;
  restored.record(flow("stale", "resilient", "ok", QuoteStatus::completed, 9, 1));  // replaced, not added to
  restored.restore(got.telemetry);
  const std::vector<std::string> scenarios{"ok", "flaky_provider", "provider_down"};
  CHECK(restored.summary_json(scenarios) == original.summary_json(scenarios));
  CHECK(restored.class_totals().requests == 3);
  CHECK(restored.class_totals().carrier_calls == 8);
  const auto incidents = restored.incidents(10);
  REQUIRE(incidents.size() == 3);
  CHECK(incidents[0].request_id == "c");  // newest first, as before
  CHECK(incidents[2].request_id == "a");
  CHECK(incidents[1].elapsed_ms == 1.0 / 3.0);  // doubles come back exactly
}

TEST_CASE("lab snapshot: a text that is not one is refused with the reason") {
  CHECK_THROWS_WITH_AS(decode_lab_snapshot("not json"), doctest::Contains("not a lab snapshot"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(decode_lab_snapshot(R"({"v": 99})"), doctest::Contains("snapshot format 99"),
                       std::invalid_argument);
  LabSnapshot s{.lab = "ana", .through = "1-0"};
  s.telemetry.by_mode["legacy"] = FlowCounters{};
  std::string text = encode_lab_snapshot(s);
  const auto at = text.find("\"n\":[0,0,0,0,0,0,0,0,0,0]");
  REQUIRE(at != std::string::npos);
  text.replace(at, 25, "\"n\":[0,0]");
  CHECK_THROWS_WITH_AS(decode_lab_snapshot(text), doctest::Contains("counters need 10 numbers, got 2"),
                       std::invalid_argument);
}

}  // namespace test_lab_snapshot
