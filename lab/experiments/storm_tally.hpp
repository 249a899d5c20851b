#pragma once
// A storm's requests, as its senders logged them, into the report's figures: the totals and
// each target's (tally), the load, goodput and timeline (tally_load). A storm against a
// running lab (storm.cpp) and a storm in simulated time (simulation/simulated_storm.cpp) log
// their requests alike and are counted by these same two functions.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lab/experiments/storm.hpp"
#include "lab/experiments/storm_timeline.hpp"

namespace quote_lab {

/// What some of a storm's requests saw (one closed-loop client's, or one open-loop sender's
/// towards one target).
struct ClientLog {
  std::size_t target = 0;   ///< index into storm_targets()
  bool is_client = false;   ///< a closed-loop client (counted in its target's `clients`)
  std::vector<double> latency_ms, attempt_ms;
  std::map<std::string, long> statuses;  ///< as StormResult::status_counts
  std::vector<RequestRecord> records;
};

/// What an open loop counted of its arrivals besides their answers.
struct ArrivalTally {
  long arrivals = 0;             ///< arrivals due within the window (sent or not)
  long not_sent = 0;             ///< of them, found the in-flight bound full
  double window_s = 0;           ///< from the start until the dispatcher had handed out the last arrival
                                 ///< due (a storm by duration: at least the duration)
  std::vector<double> lag_ms;    ///< per arrival, how late the dispatcher handed it out
  int peak_in_flight = 0;        ///< most requests unanswered at once
};

/// The senders' logs into `result` (its elapsed_s set first): requests, throughput, status
/// counts, latency and attempt latency, totals and per target (each log says its target);
/// `health_ms`: /health latencies measured alongside.
void tally(StormResult& result, const std::vector<ClientLog>& logs, const std::vector<std::string>& targets,
           std::vector<double> health_ms);

/// Load, goodput, the timeline and the priorities from the requests' records; `open` is the
/// open loop's own tally (null: a closed loop, whose arrivals are its requests, all sent).
/// `carrier_calls_at[i]`: the lab's carrier calls so far at i s (storm_timeline.hpp).
void tally_load(StormResult& result, const std::vector<ClientLog>& logs, const ArrivalTally* open,
                const std::vector<std::optional<double>>& carrier_calls_at);

}  // namespace quote_lab
