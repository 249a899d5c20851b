#pragma once
// A storm second by second: what arrived, what was sent and what was useful, so a script can
// tell when goodput fell and whether (and after how many seconds) it came back. Each
// request is counted in the second it ARRIVED, whatever second its answer came in: second i
// holds the requests that arrived in [i, i + 1) s since the storm started (an open-loop
// arrival's scheduled time; a closed-loop request's send), so a request that waited 5 s
// for a worker and was late counts against the second the user came, not the second the
// lab got round to it. Sums over the seconds equal the storm's totals.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lab/experiments/goodput.hpp"

namespace quote_lab {

/// One request of a storm, as the timeline and the totals count it.
struct RequestRecord {
  double arrival_s = 0;      ///< since the storm started: scheduled arrival (open), send (closed)
  bool sent = true;          ///< false: the open loop's in-flight bound was full, it never left
  AnswerVerdict verdict = AnswerVerdict::no_answer;  ///< how its answer was judged (sent only)
  bool sheddable = false;    ///< it carried X-Priority: sheddable
  bool live = false;         ///< useful and a live quote (`source: live`): the carrier's own goodput
};

/// One second of a storm. not_useful = sent − useful: a non-200, no quote, no answer, a late
/// answer or a stale fallback. arrivals = sent + not_sent.
struct TimelineSecond {
  int second = 0;                              ///< covers arrivals in [second, second + 1) s
  long arrivals = 0;
  long not_sent = 0;                           ///< arrived while the in-flight bound was full
  long sent = 0;
  long answered = 0;                           ///< got an HTTP answer (any status), whenever it came
  long useful = 0;                             ///< goodput (goodput.hpp)
  std::optional<std::int64_t> carrier_calls;   ///< carrier calls the lab made during this second
                                               ///< (read from its /metrics on each whole second);
                                               ///< null when a reading is missing
  long not_useful() const { return sent - useful; }
};

/// The records bucketed by arrival second: seconds 0 .. n − 1 where n covers `span_s` (the
/// arrival window: the open loop's duration, the closed loop's time sending) and every
/// record's arrival, so a second with no arrival is still listed, with zeros.
/// `carrier_calls_at[i]`: the lab's cumulative carrier calls read at i s since the start
/// (nullopt: that reading failed); second i gets reading i + 1 minus reading i. Pure.
std::vector<TimelineSecond> bucket_timeline(const std::vector<RequestRecord>& records, double span_s,
                                            const std::vector<std::optional<double>>& carrier_calls_at);

/// Per priority, with a sheddable share above 0: how many of each arrived, were sent, were
/// answered and were useful.
struct PriorityCounts {
  long arrivals = 0;
  long sent = 0;
  long answered = 0;
  long useful = 0;
};
/// {"critical": ..., "sheddable": ...} from the records. Pure.
std::map<std::string, PriorityCounts> count_by_priority(const std::vector<RequestRecord>& records);

/// [{"second", "arrivals", "not_sent", "sent", "answered", "useful", "not_useful", "carrier_calls"}, ...]
nlohmann::ordered_json to_json(const std::vector<TimelineSecond>& timeline);
/// {"arrivals", "sent", "answered", "useful"}
nlohmann::ordered_json to_json(const PriorityCounts& counts);

}  // namespace quote_lab
