// A lab's design on one replica: the newest in the class log's order holds on every replica,
// whatever order the entries reach it in; a design posted here holds until the log places it.

#include <doctest/doctest.h>

#include "lab/app/lab_design.hpp"

namespace test_lab_design {

using namespace quote_lab;

LabDesign design(const std::string& id, double score) {
  LabDesign d;
  d.id = id;
  d.pipeline = nlohmann::ordered_json::array({{{"strategy", "timeout"}, {"timeout_ms", 220}}});
  d.card.policy = "ana";
  d.card.score = score;
  d.card.rows.push_back(ScoreRow{.run = "provider_down", .goodput_ratio = 1, .live_ratio = 0.5, .p99_ms = 221.5,
                                 .calls_per_quote = 0.02, .recovered_after_s = std::nullopt});
  d.submitted_at = WallTime(std::chrono::seconds(1'800'000'000));
  return d;
}

TEST_CASE("two replicas that read two designs in opposite orders end with the newer one") {
  LabDesignSlot a, b;
  a.post(design("x", 40), "100-0");  // posted on replica a, placed at once
  b.post(design("y", 60), "");       // posted on replica b while Redis was slow
  CHECK_FALSE(b.offer(design("x", 40), "100-0"));  // b's own is not placed: a student posts to one lab at a time
  b.placed("y", "105-0");                          // read back: after a's in the log
  CHECK(a.offer(design("y", 60), "105-0"));
  CHECK_FALSE(b.offer(design("x", 40), "100-0"));  // older than b's: ignored
  CHECK(a.get()->id == "y");
  CHECK(b.get()->id == "y");
  CHECK(a.position() == "105-0");
}

TEST_CASE("a design from the state file gives way to any design the class log holds") {
  LabDesignSlot slot;
  slot.restore(design("old", 30), "0-0");
  CHECK(slot.offer(design("new", 50), "1-0"));
  CHECK(slot.get()->id == "new");
  slot.placed("other", "2-0");  // not the design held: nothing moves
  CHECK(slot.position() == "1-0");
  slot.restore(std::nullopt, "5-0");
  CHECK_FALSE(slot.get());
  CHECK(slot.position().empty());
}

TEST_CASE("a design reads back from its JSON and a broken one is refused naming the field") {
  const LabDesign d = design("abc", 61.1);
  const LabDesign back = design_from_json(nlohmann::json::parse(to_json(d).dump()));
  CHECK(back.id == "abc");
  CHECK(back.card.score == 61.1);
  CHECK(back.card.rows.at(0).p99_ms == 221.5);
  CHECK_FALSE(back.card.rows.at(0).recovered_after_s);
  CHECK(back.submitted_at == d.submitted_at);
  CHECK(to_json(back) == to_json(d));
  nlohmann::json broken = nlohmann::json::parse(to_json(d).dump());
  broken["scorecard"].erase("score");
  CHECK_THROWS_WITH_AS(design_from_json(broken), doctest::Contains("score"), std::invalid_argument);
  broken = nlohmann::json::parse(to_json(d).dump());
  broken["pipeline"] = "retry";
  CHECK_THROWS_WITH_AS(design_from_json(broken), doctest::Contains("pipeline"), std::invalid_argument);
}

}  // namespace test_lab_design
