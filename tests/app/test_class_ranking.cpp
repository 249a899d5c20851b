// GET /class's ranking rule, per lab and per student, on rows made by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "lab/app/class_ranking.hpp"

namespace test_class_ranking {

using namespace quote_lab;

namespace {
ClassRow lab(std::string name, std::uint64_t requests, std::uint64_t calls) {
  ClassRow r;
  r.name = std::move(name);
  r.totals.requests = requests;
  r.totals.carrier_calls = calls;
  return r;
}

template <class Row>
std::vector<std::pair<std::string, int>> places(const std::vector<Row>& rows) {
  std::vector<std::pair<std::string, int>> out;
  for (const Row& r : rows) out.emplace_back(r.name, r.place.value_or(0));
  return out;
}
}  // namespace

TEST_CASE("the class ranking: carrier calls per request among labs with enough requests, the rest last, without a place") {
  std::vector<ClassRow> rows{lab("lucky", 1, 0),  // one request the breaker refused: no place
                             lab("legacy-storm", 400, 1600), lab("ana", 12, 14), lab("ben", 8, 8), lab("idle", 0, 0),
                             lab("eva", kMinRankedRequests, 5)};
  rank_labs(rows);
  CHECK(places(rows) == std::vector<std::pair<std::string, int>>{
                            {"ben", 1}, {"eva", 2}, {"ana", 3}, {"legacy-storm", 4}, {"lucky", 0}, {"idle", 0}});
  CHECK(*rows[2].calls_per_request() == doctest::Approx(14.0 / 12));
  CHECK_FALSE(rows[5].calls_per_request());
  // A breaker that spared nearly every call ranks by its true ratio, not a rounded 0.
  std::vector<ClassRow> close{lab("shorts", 90000, 36), lab("zero", 10, 0)};
  rank_labs(close);
  CHECK(close[0].name == "zero");
}

TEST_CASE("per student: every lab a name owns added up, ranked by the same rule, a lesson's three-request labs counting together") {
  // A lesson lab has at most 3 requests: no lab of ana's or ben's gets a place alone.
  std::vector<ClassRow> rows{lab("ana-paso1", 2, 2),     lab("ana-paso2", 2, 8),  lab("ana-paso3", 3, 2),
                             lab("ana-maria-paso1", 2, 2), lab("ben-paso1", 2, 2), lab("ben-paso2", 2, 2),
                             lab("ben-paso3", 2, 0)};
  rank_labs(rows);
  CHECK(std::all_of(rows.begin(), rows.end(), [](const ClassRow& r) { return !r.place; }));
  // ana-maria claimed her own name; the others own their first part.
  const auto students = rank_students(rows, [](const std::string& name) {
    return name.starts_with("ana-maria") ? std::string("ana-maria") : name.substr(0, name.find('-'));
  });
  REQUIRE(students.size() == 3);
  CHECK(places(students) == std::vector<std::pair<std::string, int>>{{"ben", 1}, {"ana", 2}, {"ana-maria", 0}});
  CHECK(students[1].labs == 3);
  CHECK(students[1].totals.requests == 7);
  CHECK(students[1].totals.carrier_calls == 12);
  CHECK(*students[0].calls_per_request() == doctest::Approx(4.0 / 6));
}

}  // namespace test_class_ranking
