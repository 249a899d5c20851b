#pragma once
// A live goodput sweep: open-loop storms one after another, one per arrival rate, so the
// dashboard draws goodput against offered load while it is measured — the curve that
// bench/goodput.py draws for docs/goodput.md, here on the student's own lab at its own
// settings. Where goodput stops following the offered load is the knee; past it a policy
// holds its goodput or collapses (Schroeder, Wierman and Harchol-Balter, "Open versus
// closed", NSDI '06; Huang et al., "Metastable Failures in the Wild", OSDI '22, Fig. 5).
// The steps run on one lab, in the order given: a breaker a step opened is still open at
// the next, as it would be in production when the load keeps rising.

#include <nlohmann/json.hpp>

#include "lab/experiments/storm.hpp"

namespace quote_lab {

/// Two rates at least: one is a storm, not a curve.
inline constexpr int kSweepMinRates = 2;
/// Twelve at most: each step lasts at least a second and the whole sweep a minute.
inline constexpr int kSweepMaxRates = 12;
/// Between two steps, up to 3 s for the carrier calls the last step left in flight to end,
/// so that its backlog is not counted as the next step's load. A queue of the course's
/// shedding scenarios (16 calls of about 100 ms, 4 at a time) drains in 0.4 s; a dead
/// carrier's calls end at legacy's 2 s timeout.
inline constexpr double kSweepSettleS = 3;

/// The storm of step `step` (0-based) of a sweep of `steps`: `base` at `rate_per_s`
/// arrivals a second (open loop), waiting up to kSweepSettleS for the carrier after every
/// step but the last (which reports at once, as a lone storm started from the lab does).
StormOptions sweep_step_options(const StormOptions& base, double rate_per_s, int step, int steps);

/// The whole sweep's progress (0..1) while step `step` (0-based) of `steps` is at
/// `step_fraction` (0..1) of its own. Pure.
double sweep_fraction(int step, int steps, double step_fraction);

/// After a step's last arrival, about how long its last answers take: legacy's slowest
/// quote is 4 attempts of 360 ms (1.44 s), rounded up.
inline constexpr double kSweepAnswersS = 2;

/// About how long a sweep of `steps` steps of `step_duration_s` each lasts: each step's
/// sending and its last answers, and the waits between steps. What a class's storm lease
/// covers, in whole seconds rounded up.
int sweep_duration_s(int steps, double step_duration_s);

/// How many sweeps a lab keeps to draw side by side: the last of each policy, scenario and
/// overrides, six at most (the oldest goes first) — a class compares two or three policies
/// on two or three carrier disciplines.
inline constexpr std::size_t kKeptSweeps = 6;

/// The sweeps of `a` and `b` (JSON arrays of status()'s sweep objects; null counts as
/// empty) as one list: per mode, scenario and params the one started last (`started_at_ms`;
/// on a tie, the one with more points: the same sweep, further along), ordered by start,
/// the newest last, at most kKeptSweeps. Replicas that each ran some of a lab's sweeps
/// tell the same list this way. Pure.
nlohmann::ordered_json merge_sweeps(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b);

/// One point of the curve, from the storm of one step: {rate_per_s (asked), offered_rps,
/// goodput_rps, goodput_live_rps (live quotes alone: what the carrier itself served in
/// time), goodput_ratio, arrivals_not_sent, amplification (carrier calls per request; null
/// with an external carrier), latency_p99_ms}. Rounded as a storm's report is.
nlohmann::ordered_json sweep_point(const StormResult& r);

}  // namespace quote_lab
