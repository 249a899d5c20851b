#pragma once
// The open loop of `quote-lab storm --rate R`: a dispatcher hands each arrival, at its due
// time (arrival_schedule.hpp), to a sender thread and never waits for an answer; a pool of
// senders, grown on demand up to `max_in_flight`, sends them. An arrival that finds
// `max_in_flight` requests unanswered is not sent: it is recorded as such (arrivals_not_sent),
// so the report never hides load the generator could not offer. Arrivals go to the targets
// round robin (arrival k to target k mod n).

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "lab/base/random.hpp"
#include "lab/experiments/storm_client.hpp"

namespace quote_lab {

/// What an open loop did: its arrivals (storm_tally.hpp) and its requests' answers.
struct OpenLoopTally : ArrivalTally {
  std::vector<ClientLog> logs;   ///< per sender and target, and one of the arrivals not sent
};

/// Runs `run.o`'s arrivals (rate_per_s set) on `path` of `targets`, with `random` drawing the
/// gaps, until the duration or request count is reached or run.interrupted(); calls
/// `arrivals_over` then, and waits for every request in flight (each bounded by `timeout`).
/// Blocking; never throws for HTTP.
OpenLoopTally run_open_loop(StormRun& run, const std::vector<std::string>& targets, std::chrono::seconds timeout,
                            const std::string& path, RandomSource& random, const std::function<void()>& arrivals_over);

}  // namespace quote_lab
