#pragma once
// The Spanish of every metric family's HELP text, for the /metrics JSON a Spanish page reads
// (Prometheus's own text keeps the English HELP, declared with each family in metrics.cpp).
// One line per family name, in the course glossary's terms; a strategy's gauges carry their
// Spanish with them (strategy_state.hpp).

#include <optional>
#include <string_view>

namespace quote_lab {

/// The Spanish HELP of the family called `name`; nullopt for a name this table lacks
/// (the walk of every route, tests/api/test_spanish_surfaces.cpp, finds it).
std::optional<std::string_view> metric_help_es(std::string_view name);

}  // namespace quote_lab
