#pragma once
// A lab as one replica holds it, written to Redis so that a replica that joins the class
// after the class log dropped the lab's early entries (the stream keeps its last
// ClassLog::kMaxEntries, and a Redis restarted empty keeps none) starts from it instead of
// telling a shorter story. `through` is the class log position the snapshot stands at: it
// holds the effect of every entry up to and including it, and none after; a replica that
// installs it applies only the lab's entries after `through`.
//
// What it carries is what the class log replicates: the telemetry (incidents, counters,
// latency windows), the carrier mode, the storm's status and the lab's design. The breaker
// and the fallback quotes are not in it: they live in Redis already (redis_breaker_store,
// redis_fallback_store). Prometheus series stay per replica.

#include <nlohmann/json.hpp>
#include <string>

#include "lab/observability/telemetry.hpp"

namespace quote_lab {

struct LabSnapshot {
  std::string lab{};           ///< normalised name; "" for the teacher's
  std::string through{};       ///< class log stream id: every entry up to it is in the snapshot
  std::string last_entry{};    ///< the lab's own last entry's stream id ("" none): when it was last active
  std::string carrier_mode{};  ///< canonical scenario name
  nlohmann::ordered_json storm{};  ///< GET /experiments/storm's form; null when none since the reset
  TelemetryState telemetry{};
  nlohmann::ordered_json design{};  ///< the class challenge's design (lab_design.hpp's form); null none
  std::string design_at{};          ///< its stream id in the class log ("" none)
};

/// One line of JSON (a few KB for a lesson's lab; bounded by the telemetry's own bounds).
std::string encode_lab_snapshot(const LabSnapshot& s);
/// Throws std::invalid_argument naming what is wrong (not JSON, a field missing or of the
/// wrong type, another format version).
LabSnapshot decode_lab_snapshot(const std::string& text);

}  // namespace quote_lab
