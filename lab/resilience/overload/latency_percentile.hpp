#pragma once
// The percentile of a set of latency samples, shared by the adaptive concurrency limit (its
// sampleRTT and minRTT) and the hedging delay (the observed p95).
//
// Nearest rank: the p-th percentile of n samples is the ⌈p/100 × n⌉-th smallest (the first for
// p = 0). Exact and easy to check by hand, where Envoy's gradient controller reads an
// approximate quantile from a log-linear histogram (libcircllhist): for the lab's few
// hundred samples the difference is below a histogram bin.

#include <vector>

namespace quote_lab {

/// The nearest-rank `percentile` (0–100) of `samples_ms`, in the samples' unit. Takes the
/// samples by value and partially sorts them (O(n)). Throws std::invalid_argument when
/// `samples_ms` is empty or `percentile` is outside [0, 100].
double nearest_rank_percentile(std::vector<double> samples_ms, double percentile);

}  // namespace quote_lab
