#include "lab/api/storm_params.hpp"

#include "lab/experiments/arrival_schedule.hpp"
#include "lab/http/params.hpp"

namespace quote_lab {

std::optional<ApiError> parse_storm_load(const ParamLookup& lookup, StormOptions& o, const StormLoadBounds& bounds) {
  if (lookup("rate") && lookup(bounds.clients.name))
    return api_error(400, "invalid_parameter", MessageId::storm_rate_and_clients, {});
  if (auto e = parse_int_param(bounds.clients, lookup(bounds.clients.name), o.clients)) return e;
  if (const auto* rate = lookup("rate")) {
    double r = 0;
    if (auto e = parse_number_param("rate", *rate, kStormMinRatePerS, bounds.max_rate_per_s, r)) return e;
    o.rate_per_s = r;
  }
  if (const auto* arrivals = lookup("arrivals")) {
    const auto process = parse_arrival_process(*arrivals);
    if (!process)
      return api_error(400, "invalid_parameter", MessageId::unknown_choice, {{"name", "arrivals"}, {"got", arrivals->substr(0, 40)}},
                       arrival_process_names());
    o.arrivals = *process;
  }
  if (auto e = parse_int_param(bounds.max_in_flight, lookup(bounds.max_in_flight.name), o.max_in_flight)) return e;
  if (const auto* share = lookup("sheddable_share"))
    if (auto e = parse_number_param("sheddable_share", *share, 0, 1, o.sheddable_share)) return e;
  return std::nullopt;
}

}  // namespace quote_lab
