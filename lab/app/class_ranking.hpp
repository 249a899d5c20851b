#pragma once
// GET /class's ranking, per lab and per student: the same rule for both, and for the JSON
// and the page (which shows the JSON's order and places). Pure: exact tests on rows made by hand.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lab/app/lab_design.hpp"
#include "lab/base/clock.hpp"
#include "lab/observability/telemetry.hpp"
#include "lab/resilience/breaker.hpp"

namespace quote_lab {

/// A lab or a student gets a place in GET /class's ranking from this many requests on: one
/// lucky request (or one the breaker refused) is not a result.
inline constexpr std::uint64_t kMinRankedRequests = 5;

/// One row of GET /class.
struct ClassRow {
  std::string name;
  BreakerState breaker = BreakerState::closed;
  std::string carrier_mode;
  ClassTotals totals;
  WallTime last_active{};
  /// carrier_calls / requests; null with no requests.
  std::optional<double> calls_per_request() const;
  /// Its place in the ranking (1, 2, …); null below kMinRankedRequests requests.
  std::optional<int> place;
};

/// One student of GET /class: every lab their name owns, added up.
struct StudentRow {
  std::string name;        ///< the claimed name (or, unclaimed, the lab name up to its first '-')
  std::size_t labs = 0;
  ClassTotals totals;      ///< requests and carrier calls over their labs (p99 not added up)
  WallTime last_active{};
  std::optional<double> calls_per_request() const;
  std::optional<int> place;  ///< as ClassRow::place
};

/// Sorts `rows` into leaderboard order and gives their places: kMinRankedRequests requests
/// or more first, fewest carrier calls per request first (then more requests, then name),
/// each with its place; the others after, most requests first, without one.
void rank_labs(std::vector<ClassRow>& rows);
/// `rows` added up per student — `owner_of(lab name)` names the student a lab belongs to —
/// and ranked by the same rule.
std::vector<StudentRow> rank_students(const std::vector<ClassRow>& rows,
                                      const std::function<std::string(const std::string&)>& owner_of);

/// One design of the class challenge in GET /class: the lab that posted it and its owner.
struct DesignRow {
  std::string lab;
  std::string owner;
  LabDesign design;
  int place = 0;  ///< 1, 2, …
};

/// Sorts `rows` by the scorecard's rule (ranks_before: score, then fewer carrier calls per
/// quote, then a lower p99; then the earlier post, then the lab's name) and numbers them.
void rank_designs(std::vector<DesignRow>& rows);

}  // namespace quote_lab
