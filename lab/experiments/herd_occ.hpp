#pragma once
// The AWS article's own herd: Marc Brooker, "Exponential Backoff And Jitter" (AWS
// Architecture Blog, 2015), re-run as its author set it up (model in detail:
// ../shared/NOTES-herd-occ.md). N clients each want one successful write to the same row
// under optimistic concurrency control: read the row's version, then send a write
// conditional on that version; the server accepts it only if the version is unchanged
// (and then bumps it). A client whose write failed waits its backoff and starts over with
// a read. Every message takes a network delay |N(mean, stddev)|.
//
// Discrete-event simulation in virtual time, seeded: the same options give the same
// numbers, and every strategy sees the same sequence of seeds (run r uses seed + r).
// `quote-lab herd --model occ` prints it; the carrier-down herd is herd.hpp.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace quote_lab {

/// The article's five strategies. `none` retries at once (no backoff at all);
/// `exponential` is un-jittered exponential backoff, the reference of every ratio.
enum class OccStrategy { none, exponential, full, equal, decorrelated };

std::string_view to_string(OccStrategy s);

/// Bounds that keep `quote-lab herd --model occ` within seconds on two cores. Work grows
/// faster than clients² (no backoff at all made 188,000 writes for 1,000 clients) times runs:
/// 1,000 clients take 0.15 s a run here, so clients × runs stops at 100,000 (~15 s); the
/// defaults (100 × 100) take 0.4 s.
inline constexpr int kOccMaxClients = 1000;
inline constexpr int kOccMaxRuns = 1000;
inline constexpr long kOccMaxClientRuns = 100'000;

/// The article's set-up; every default is its number.
struct OccHerdOptions {
  int clients = 100;              ///< N, all reading at t = 0
  double backoff_base_ms = 5;     ///< base
  double backoff_cap_ms = 2000;   ///< cap on every wait
  double delay_mean_ms = 10;      ///< network delay of one message: |N(mean, stddev)|
  double delay_stddev_ms = 2;
  int runs = 100;                 ///< results are averages over this many runs
  std::uint64_t seed = 42;        ///< run r draws from seed + r
};

/// Checks the options (clients 1..kOccMaxClients, runs 1..kOccMaxRuns, clients × runs at
/// most kOccMaxClientRuns, 0 < base ≤ cap, delays ≥ 0); every problem as one sentence
/// (empty = fine).
std::vector<std::string> validate(const OccHerdOptions& o);

/// The wait before retry `retry` (1 for the first retry), in ms, as in the article:
///   none          0
///   exponential   min(cap, base × 2^retry)
///   full          uniform(0, min(cap, base × 2^retry))
///   equal         t/2 + uniform(0, t/2), t = min(cap, base × 2^retry)
///   decorrelated  min(cap, uniform(base, previous × 3)), previous = the last wait (base at first)
/// `u` is a uniform draw in [0, 1). Pure; never negative, never above the cap.
/// (Continuous, unlike the lab's backoff_delay(), which waits whole milliseconds of a real
/// clock and counts its exponent from the attempt that failed.)
double occ_backoff_ms(OccStrategy s, int retry, double u, double previous_ms, double base_ms, double cap_ms);

/// One run of one strategy.
struct OccRun {
  std::uint64_t calls = 0;   ///< writes the server received, accepted or not
  double completion_s = 0;   ///< when the last client learnt its write was accepted
};

/// Simulates one run with `seed`. Pure: the same arguments, the same run.
OccRun simulate_occ_run(const OccHerdOptions& o, OccStrategy s, std::uint64_t seed);

/// One strategy averaged over `o.runs` runs, and relative to un-jittered exponential.
struct OccHerdResult {
  std::string strategy;
  double calls = 0;                      ///< mean writes per run
  double completion_s = 0;               ///< mean completion time
  double calls_vs_exponential = 0;       ///< calls / exponential's calls
  double completion_vs_exponential = 0;  ///< completion_s / exponential's completion_s
};

/// Every strategy (none, exponential, full, equal, decorrelated), averaged over `o.runs`.
/// Expects validate(o) to be empty.
std::vector<OccHerdResult> simulate_occ_herd(const OccHerdOptions& o);

/// {strategy, calls, completion_s, calls_vs_exponential, completion_vs_exponential}.
nlohmann::ordered_json to_json(const OccHerdResult& r);
/// A Markdown table of the results, with the set-up on its first line.
std::string format_occ_table(const OccHerdOptions& o, const std::vector<OccHerdResult>& results);

}  // namespace quote_lab
