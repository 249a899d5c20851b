#pragma once
// When an open-loop storm's requests arrive (`quote-lab storm --rate R`): a schedule of
// absolute due times drawn from the injected random source, so the dispatcher keeps the
// rate whatever the lab does (it sleeps until each due time, never "send, then wait a gap").
// Open versus closed: Schroeder, Wierman and Harchol-Balter, "Open Versus Closed: A
// Cautionary Tale", NSDI '06 — arrivals of an open system do not wait for answers.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lab/base/random.hpp"

namespace quote_lab {

/// How arrivals are spread in time.
enum class ArrivalProcess {
  poisson,  ///< exponential gaps of mean 1/R: independent users (the default)
  uniform,  ///< every gap exactly 1/R: a metronome, for a run without arrival noise
};

/// "poisson" / "uniform".
std::string_view to_string(ArrivalProcess p);
/// The process named `text`; nullopt for any other name.
std::optional<ArrivalProcess> parse_arrival_process(std::string_view text);
/// Every name, in order ("poisson", "uniform"), for errors that list them.
std::vector<std::string> arrival_process_names();

/// Seconds between one arrival and the next at `rate_per_s` (> 0), given the uniform draw
/// `u` in [0, 1). Poisson: −ln(1 − u) / R, the inverse of the exponential distribution's
/// CDF (so u = 0 gives 0 and the mean over draws is 1/R); uniform: 1/R whatever `u`. Pure.
double arrival_gap_s(double rate_per_s, ArrivalProcess process, double u);

/// Due times of successive arrivals, in seconds since the storm started. Poisson: the first
/// one gap after 0, each next one a gap later (arrival_gap_s, one draw of `random` each);
/// uniform: a metronome at 0, 1/R, 2/R, ..., so D seconds hold exactly R·D arrivals.
/// Absolute times, so a dispatcher that falls behind catches up instead of drifting.
/// Not thread-safe: one dispatcher owns it.
class ArrivalSchedule {
 public:
  /// `random` must outlive the schedule.
  ArrivalSchedule(double rate_per_s, ArrivalProcess process, RandomSource& random);
  /// The next arrival's due time (s since the start): (k − 1)/R exactly for the k-th uniform
  /// arrival; non-decreasing for poisson (two arrivals may fall on the same instant).
  double next_due_s();

 private:
  double rate_per_s_;
  ArrivalProcess process_;
  RandomSource& random_;
  double due_s_ = 0;   // poisson: the gaps summed so far
  long count_ = 0;     // uniform: arrivals so far (the next is due count_/R, computed, never summed)
};

}  // namespace quote_lab
