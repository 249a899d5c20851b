#pragma once
// What a strategy keeps between flows for one policy in one lab: a bulkhead's places, a
// quota's tokens, a throttle's window. Each stateful strategy makes its own from the policy's
// settings (its row in strategies/strategy_table.cpp), lends it to every flow through the
// flow guards, shows its live figures as gauges and goes back to its start on the lab's
// reset, so the lab that owns the states names none of them. Standard library only.

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "lab/base/clock.hpp"
#include "lab/base/prose.hpp"
#include "lab/base/random.hpp"
#include "lab/resilience/flow_guards.hpp"
#include "lab/resilience/overload/hedged_call.hpp"

namespace quote_lab {

/// How a page shows a gauge's value: a count, a ratio 0–1 as a percentage, a time in
/// seconds as milliseconds, or a rate per second.
enum class GaugeShows { count, percent, milliseconds, per_second };
/// "count", "percent", "milliseconds" or "per_second" (GET /'s `strategies[].gauges[].shows`).
constexpr std::string_view to_string(GaugeShows s) {
  switch (s) {
    case GaugeShows::count: return "count";
    case GaugeShows::percent: return "percent";
    case GaugeShows::milliseconds: return "milliseconds";
    case GaugeShows::per_second: return "per_second";
  }
  return "count";
}

/// One gauge family a strategy's state shows (Prometheus naming: base unit in the name),
/// labelled by the policy's name: its help in English and Spanish, and how the overload
/// panel shows it (GET /'s `strategies[].gauges`), so a strategy's live figures need no
/// page code of their own.
struct GaugeFamily {
  std::string_view name;
  std::string_view help_en;
  std::string_view help_es;
  Prose label{};                 ///< the panel's caption for the value
  GaugeShows shows = GaugeShows::count;
  std::string_view out_of{};     ///< a setting of the strategy's entry the value is shown against ("3 / 4")
  bool settles = false;          ///< goes back to 0 with nothing coming in: the panel reads on until it has
  Prose before_first{};          ///< the caption while there is no value yet (empty: none is missing)
};

/// One value of a gauge family now, for one policy.
struct GaugeReading {
  const GaugeFamily* family;
  double value;
};

/// The state of one strategy for one policy in one lab. Made once, shared by every flow of
/// the policy; thread-safe (each state guards its own).
class StrategyState {
 public:
  virtual ~StrategyState() = default;
  /// Lends what the flows use to this strategy's slot of `guards` (FlowGuards::lend).
  virtual void lend(FlowGuards& guards) = 0;
  /// Appends its live figures; none when it has nothing to show yet (adaptive retry before a
  /// 429). Not const: a reading may first bring the state up to date (a due limit update).
  virtual void read(std::vector<GaugeReading>& out) = 0;
  /// Back to its start, as a new lab (the lab's reset).
  virtual void reset() = 0;
};

/// What a state may need from the lab: the clock and randomness it reads, and the threads
/// hedged calls run on (resilience/ starts none itself).
struct StateDeps {
  Clock& clock;
  RandomSource& random;
  std::function<std::unique_ptr<HedgedCaller>()> make_hedger;
};

}  // namespace quote_lab
