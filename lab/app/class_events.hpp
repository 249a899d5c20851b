#pragma once
// What one replica tells the others about a lab (through the class log,
// shared_state/class_log.hpp): the entry's JSON form, so that every replica applies the
// same event to its copy of the lab. One entry per event a lab's page sees:
//   quote        a finished flow: the page's line, the telemetry's record, the breaker it left
//   reset        /reset-lab: the lab back to its seeds
//   carrier_mode the lab's carrier mode changed (`mode`)
//   storm_*      a storm's progress and result (the page's line only)
// Breaker transitions are not sent: each replica's breaker follows the shared one, and its
// own listener tells its pages.

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "lab/observability/telemetry.hpp"
#include "lab/resilience/breaker.hpp"

namespace quote_lab {

struct ClassEvent {
  std::string lab{};   ///< normalised lab name; "" for the teacher's
  std::string type{};  ///< the page's event type
  std::string line{};  ///< the page's event data (one line of JSON)
  std::optional<FlowRecord> flow{};       ///< quote: what the telemetry records
  std::optional<BreakerState> breaker{};  ///< quote: the breaker as the flow left it
  std::string mode{};                     ///< carrier_mode: the canonical scenario name
};

/// One line of JSON.
std::string encode_class_event(const ClassEvent& e);
/// Throws std::invalid_argument naming what is wrong (not JSON, a field missing or of the
/// wrong type, an unknown status or breaker state).
ClassEvent decode_class_event(const std::string& text);

/// A flow record's JSON form (in a class event and in a lab snapshot), and back: throws
/// std::invalid_argument (or nlohmann::json::exception) for a field missing or of the wrong type.
nlohmann::json flow_to_json(const FlowRecord& f);
FlowRecord flow_from_json(const nlohmann::json& j);

}  // namespace quote_lab
