#pragma once
// The thundering-herd experiment: K clients fail together against a carrier that is down
// until T, then serves at most `capacity` calls at once (an overloaded one refuses the
// rest quickly). Each client retries with the lab's backoff_delay() until it succeeds.
// Run in virtual time (a discrete-event simulation, as in the AWS article's own
// experiment), so every strategy sees exactly the same situation and a seed reproduces a
// run. Compares the jitter strategies of Marc Brooker, "Exponential Backoff And Jitter",
// AWS Architecture Blog, 2015.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "lab/resilience/policy.hpp"

namespace quote_lab {

struct HerdOptions {
  int clients = 100;             ///< K, all failing at t = 0
  double recover_after_s = 2;    ///< T: the carrier answers nothing useful before this
  int capacity = 10;             ///< calls the recovered carrier serves at once
  int down_call_ms = 20;         ///< how long a failed call takes while the carrier is down
  int overload_call_ms = 5;      ///< how long a refused call takes when it is saturated
  int success_call_ms = 130;     ///< how long a served call takes
  int max_attempts = 100;        ///< a client gives up after this many calls
  RetryPolicy policy;            ///< base, cap and jitter range; `jitter` is set per strategy
  std::uint64_t seed = 42;
};

/// What one strategy did.
struct HerdResult {
  std::string strategy;
  std::uint64_t carrier_calls = 0;      ///< total calls, all clients
  double all_succeeded_s = 0;           ///< when the last client got its answer
  int gave_up = 0;                      ///< clients that hit max_attempts
  int max_arrivals_per_10ms = 0;        ///< the sharpest spike of retry arrivals
  double inter_arrival_stddev_ms = 0;   ///< spread of the gaps between retry arrivals
};

/// Simulates one strategy. Pure: the same options and jitter give the same result.
HerdResult simulate_herd(const HerdOptions& o, Jitter jitter);

/// Every strategy (none, additive, full, equal, decorrelated) under the same options.
std::vector<HerdResult> simulate_all_strategies(const HerdOptions& o);

nlohmann::ordered_json to_json(const HerdResult& r);
/// A Markdown table of the results.
std::string format_herd_table(const HerdOptions& o, const std::vector<HerdResult>& results);

}  // namespace quote_lab
