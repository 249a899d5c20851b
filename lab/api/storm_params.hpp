#pragma once
// A storm's load as a request asks for it (`clients`, or `rate` with `arrivals` and
// `max_in_flight`, and `sheddable_share`), for the storm the lab runs against itself (POST
// /experiments/storm, bounded for a 2-core classroom machine) and the storms it simulates (GET
// /experiments/simulate, bounded by what one simulation may cost).

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "lab/experiments/storm.hpp"
#include "lab/experiments/storm_experiment.hpp"
#include "lab/http/api_error.hpp"
#include "lab/resilience/domain.hpp"

namespace quote_lab {

/// A query parameter's (or a JSON body field's) raw value by name, or null.
using ParamLookup = std::function<const std::string*(std::string_view)>;

/// How much load one request may ask for.
struct StormLoadBounds {
  IntParam clients;         ///< its range and default
  double max_rate_per_s;    ///< `rate`, from kStormMinRatePerS
  IntParam max_in_flight;   ///< its range and default
};

/// The live storm's: what the lab's own threads can send on 2 cores.
inline constexpr StormLoadBounds kLiveStormLoad{{"clients", 1, kExperimentMaxClients, 10}, kExperimentMaxRatePerS,
                                                {"max_in_flight", 1, kExperimentMaxClients, kStormDefaultMaxInFlight}};
/// A simulated storm's: the storm command's own bounds (storm.hpp).
inline constexpr StormLoadBounds kSimulatedStormLoad{{"clients", 1, kStormMaxClients, 10}, kStormMaxRatePerS,
                                                     {"max_in_flight", 1, kStormMaxInFlight, kStormDefaultMaxInFlight}};

/// Reads the load into `o`; each bad value a 400 in the asker's language (`rate` with
/// `clients`, a value out of its range, an unknown `arrivals`).
std::optional<ApiError> parse_storm_load(const ParamLookup& lookup, StormOptions& o, const StormLoadBounds& bounds);

}  // namespace quote_lab
