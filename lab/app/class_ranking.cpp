#include "lab/app/class_ranking.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace quote_lab {
namespace {
std::optional<double> per_request(const ClassTotals& t) {
  if (t.requests == 0) return std::nullopt;
  return static_cast<double>(t.carrier_calls) / static_cast<double>(t.requests);
}

// Leaderboard order and places: kMinRankedRequests requests or more first, fewest carrier
// calls per request first (then more requests, then name); the rest after, busiest first.
template <class Row>
void rank(std::vector<Row>& rows) {
  const auto ranked = [](const Row& r) { return r.totals.requests >= kMinRankedRequests; };
  std::sort(rows.begin(), rows.end(), [&ranked](const Row& a, const Row& b) {
    if (ranked(a) != ranked(b)) return ranked(a);
    if (ranked(a)) {
      const double ca = *a.calls_per_request(), cb = *b.calls_per_request();
      if (ca != cb) return ca < cb;
    }
    return std::tie(b.totals.requests, a.name) < std::tie(a.totals.requests, b.name);
  });
  int place = 0;
  for (Row& r : rows) r.place = ranked(r) ? std::optional<int>(++place) : std::nullopt;
}
}  // namespace

std::optional<double> ClassRow::calls_per_request() const { return per_request(totals); }
std::optional<double> StudentRow::calls_per_request() const { return per_request(totals); }

void rank_labs(std::vector<ClassRow>& rows) { rank(rows); }

std::vector<StudentRow> rank_students(const std::vector<ClassRow>& rows,
                                      const std::function<std::string(const std::string&)>& owner_of) {
  std::map<std::string, StudentRow> by_name;
  for (const ClassRow& r : rows) {
    const std::string name = owner_of(r.name);
    StudentRow& s = by_name[name];
    s.name = name;
    ++s.labs;
    s.totals.requests += r.totals.requests;
    s.totals.carrier_calls += r.totals.carrier_calls;
    s.last_active = std::max(s.last_active, r.last_active);
  }
  std::vector<StudentRow> students;
  for (auto& [_, s] : by_name) students.push_back(std::move(s));
  rank(students);
  return students;
}

void rank_designs(std::vector<DesignRow>& rows) {
  std::sort(rows.begin(), rows.end(), [](const DesignRow& a, const DesignRow& b) {
    if (ranks_before(a.design.card, b.design.card)) return true;
    if (ranks_before(b.design.card, a.design.card)) return false;
    if (a.design.submitted_at != b.design.submitted_at) return a.design.submitted_at < b.design.submitted_at;
    return a.lab < b.lab;
  });
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].place = static_cast<int>(i) + 1;
}

}  // namespace quote_lab
