#pragma once
// A storm in simulated time (`quote-lab simulate`): the storm's load (closed loop: N clients
// back to back; open loop: R arrivals a second, Poisson or uniform) against one policy of the
// lab, run by the lab's own QuoteExecutor and strategies (the breaker, budgets, limits and
// queues one policy keeps in one lab, shared by every quote as live) on the carrier's own
// scenario rules (sim_carrier.hpp), all on one thread in virtual time (sim_scheduler.hpp).
// Thousands of quotes a second of the machine's time, and the same seed gives the same run,
// byte for byte. Its report is the storm's (storm_report.hpp), from the same tallies.
//
// The lab around the executor is modelled, not run: its worker slots (`--workers` quotes at
// once, the rest wait in arrival order) and its own time per quote (lab_ms_per_quote); no
// HTTP, no /health.

#include <cstdint>
#include <optional>

#include "lab/carrier/scenario.hpp"
#include "lab/experiments/storm.hpp"
#include "lab/resilience/policy.hpp"

namespace quote_lab {

/// The lab a simulation plays: its policies (the one stormed is options.mode), its scenarios
/// and its bounds. Defaults are `serve`'s (app/options.hpp), given by the caller.
struct SimulationSetup {
  const Policies& policies;
  const ScenarioCatalog& catalog;
  int workers = 16;           ///< quotes served at once (serve --workers)
  int carrier_workers = 354;  ///< calls the carrier serves at once (serve --carrier-workers)
  /// The lab's own time per quote besides its policy's (the HTTP round trip on loopback, the
  /// JSON), spent on one of `cores` while the quote holds its worker: 0.35 ms, the median of a
  /// live storm's short-circuited quotes on the 2-core classroom machine (0.36 ms, resilient
  /// on provider_down, 10 clients). So a lab answers at most cores / 0.35 ms quotes a second
  /// (about 5,100 with the 16 workers; live, `quote-lab storm` as a separate process got 2,900,
  /// and the lab's own POST /experiments/storm about 17,000: the machine is not simulated), and
  /// a closed loop's clients never ask infinitely often in no time once a breaker is open.
  double lab_ms_per_quote = 0.35;
  int cores = 2;  ///< the machine's, which the lab's own work shares
  /// Quotes one run may start (at most kSimMaxQuotes): a closed loop by duration that reaches
  /// it stops with SimulationBoundReached.
  long max_quotes = 1'000'000;
};

/// Bounds of one simulation, so a run stays within seconds of the machine's time and a few
/// hundred MB: quotes in one run (a closed loop by duration stops with an error at it).
inline constexpr long kSimMaxQuotes = 1'000'000;
inline constexpr double kSimMaxDurationS = 3600;

/// A closed loop by duration started SimulationSetup::max_quotes quotes before its duration
/// ended; what() says so, with the flags to give instead.
class SimulationBoundReached : public std::runtime_error {
 public:
  explicit SimulationBoundReached(long max);
  long max() const { return max_; }

 private:
  long max_;
};

/// The policy `o.mode` names in `policies`, with `o.params` (a quote's overrides, as
/// `--param NAME=VALUE` gives them) applied as the quote route applies them; nullopt with the
/// problem in `errors` (an unknown policy adds none: validate_simulation names it).
std::optional<RetryPolicy> policy_with_params(const StormOptions& o, const Policies& policies,
                                              std::vector<std::string>& errors);

/// Problems with `o` for a simulation, each one sentence (empty: fine): the storm's own checks
/// where they apply, a policy `lab` does not serve, an unknown scenario, a duration or count
/// beyond the bounds.
std::vector<std::string> validate_simulation(const StormOptions& o, const SimulationSetup& lab);

/// Runs the storm `o` describes (target, layers, lab and settle are not used; `seed` must be
/// set) in simulated time and reports it as a storm: elapsed_s and every latency are simulated
/// seconds, health_latency is empty. Throws std::invalid_argument when validate_simulation
/// finds a problem.
StormResult simulate_storm(const StormOptions& o, const SimulationSetup& lab);

}  // namespace quote_lab
