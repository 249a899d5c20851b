// A storm second by second (lab/experiments/storm_timeline.hpp): each request in the second
// it arrived, whatever second its answer came; carrier calls from whole-second readings.
#include <doctest/doctest.h>

#include <optional>
#include <vector>

#include "lab/experiments/storm_timeline.hpp"

namespace test_storm_timeline {

using namespace quote_lab;
using V = AnswerVerdict;

TEST_CASE("records fall in the second they arrived: second i from i s up to i + 1 s") {
  const std::vector<RequestRecord> records = {
      {.arrival_s = 0.0, .sent = true, .verdict = V::useful},
      {.arrival_s = 0.999, .sent = true, .verdict = V::late},          // answered after 2 s: still second 0
      {.arrival_s = 1.0, .sent = true, .verdict = V::no_answer},
      {.arrival_s = 1.5, .sent = false},                               // the in-flight bound was full
      {.arrival_s = 1.7, .sent = true, .verdict = V::stale_fallback},
      {.arrival_s = 2.25, .sent = true, .verdict = V::not_a_quote},
  };
  const auto t = bucket_timeline(records, 4, {});
  REQUIRE(t.size() == 4);  // a span of 4 s: seconds 0..3, the last without arrivals
  CHECK(t[0].second == 0);
  CHECK(t[0].arrivals == 2);
  CHECK(t[0].sent == 2);
  CHECK(t[0].answered == 2);
  CHECK(t[0].useful == 1);
  CHECK(t[0].not_useful() == 1);
  CHECK(t[1].arrivals == 3);
  CHECK(t[1].not_sent == 1);
  CHECK(t[1].sent == 2);
  CHECK(t[1].answered == 1);  // no_answer is not an answer
  CHECK(t[1].useful == 0);
  CHECK(t[1].not_useful() == 2);
  CHECK(t[2].arrivals == 1);
  CHECK(t[2].answered == 1);
  CHECK(t[3].arrivals == 0);
  CHECK(t[3].second == 3);
  // Every second: arrivals = sent + not sent; the seconds add up to the records.
  long arrivals = 0;
  for (const auto& s : t) {
    CHECK(s.arrivals == s.sent + s.not_sent);
    arrivals += s.arrivals;
  }
  CHECK(arrivals == static_cast<long>(records.size()));
}

TEST_CASE("the span sets the seconds: a partial last one counts, a record beyond it extends them") {
  CHECK(bucket_timeline({}, 10, {}).size() == 10);
  CHECK(bucket_timeline({}, 10.2, {}).size() == 11);
  CHECK(bucket_timeline({}, 0, {}).empty());
  const auto t = bucket_timeline({{.arrival_s = 4.5}}, 2, {});
  REQUIRE(t.size() == 5);
  CHECK(t[4].arrivals == 1);
}

TEST_CASE("carrier calls per second are the differences of the whole-second readings") {
  const std::vector<std::optional<double>> at = {100, 130, std::nullopt, 200, 260};
  const auto t = bucket_timeline({}, 5, at);
  REQUIRE(t.size() == 5);
  CHECK(t[0].carrier_calls == 30);
  CHECK_FALSE(t[1].carrier_calls);  // reading 2 failed: neither second next to it is known
  CHECK_FALSE(t[2].carrier_calls);
  CHECK(t[3].carrier_calls == 60);
  CHECK_FALSE(t[4].carrier_calls);  // no reading at 5 s
}

TEST_CASE("counts by priority") {
  const std::vector<RequestRecord> records = {
      {.arrival_s = 0, .sent = true, .verdict = V::useful, .sheddable = false},
      {.arrival_s = 0, .sent = true, .verdict = V::useful, .sheddable = true},
      {.arrival_s = 0, .sent = true, .verdict = V::not_a_quote, .sheddable = true},
      {.arrival_s = 0, .sent = true, .verdict = V::no_answer, .sheddable = true},
      {.arrival_s = 0, .sent = false, .sheddable = true},
  };
  const auto by = count_by_priority(records);
  REQUIRE(by.size() == 2);
  const PriorityCounts& critical = by.at("critical");
  const PriorityCounts& sheddable = by.at("sheddable");
  CHECK(critical.arrivals == 1);
  CHECK(critical.useful == 1);
  CHECK(sheddable.arrivals == 4);
  CHECK(sheddable.sent == 3);
  CHECK(sheddable.answered == 2);
  CHECK(sheddable.useful == 1);
  CHECK(to_json(sheddable) == nlohmann::ordered_json{{"arrivals", 4}, {"sent", 3}, {"answered", 2}, {"useful", 1}});
}

TEST_CASE("a second as JSON") {
  const auto j = to_json(bucket_timeline({{.arrival_s = 0.5, .sent = true, .verdict = V::useful}}, 1, {10, 14}));
  REQUIRE(j.size() == 1);
  CHECK(j[0].dump() ==
        R"({"second":0,"arrivals":1,"not_sent":0,"sent":1,"answered":1,"useful":1,"not_useful":0,"carrier_calls":4})");
  CHECK(to_json(bucket_timeline({}, 1, {}))[0]["carrier_calls"].is_null());
}

}  // namespace test_storm_timeline
