#pragma once
// Whether, and how many seconds after a trigger ended, a storm's goodput came back: the
// metastability map's judgement (bench/recovery.py, where the map's documents apply it to a
// storm's JSON) for the lab's own code (the class challenge's scorecard). Pure.

#include <optional>
#include <vector>

#include "lab/experiments/storm_timeline.hpp"

namespace quote_lab {

/// A second is healthy when its goodput reached `share` of its arrivals (a second without
/// arrivals is healthy: nothing was asked); recovery is `run_s` healthy seconds in a row.
struct RecoveryRule {
  double share = 0.9;
  int run_s = 2;
};

/// Whole seconds from the trigger's end (`trigger_end_s` since the storm started, rounded up
/// to a second of the timeline) to the first of `rule.run_s` healthy seconds in a row; nullopt
/// when there is none within the timeline (it never recovered while observed).
std::optional<int> recovered_after_s(const std::vector<TimelineSecond>& timeline, double trigger_end_s,
                                     const RecoveryRule& rule = {});

}  // namespace quote_lab
