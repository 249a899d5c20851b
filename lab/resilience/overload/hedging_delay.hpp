#pragma once
// How long a hedged request waits for its first attempt before sending a second one: a fixed
// delay, or the observed p95 of recent latencies ("The Tail at Scale", Dean and Barroso, CACM
// 2013: "defer sending a secondary request until the first request has been outstanding for
// more than the 95th-percentile expected latency for this class of requests"; Polly's hedging
// strategy takes a fixed HedgingDelay or a generator; gRPC's hedgingDelay is fixed).
//
// The observed delay is the nearest-rank percentile (latency_percentile.hpp) of the last
// `window_samples` latencies recorded; until `min_samples` have been recorded there is no
// percentile worth the name and the fixed delay is used. Counted in samples, not time, so no
// clock. Thread-safe: one mutex guards the ring of samples.

#include <cstddef>
#include <mutex>
#include <vector>

namespace quote_lab {

/// Where the delay comes from.
enum class HedgingDelayMode { fixed, observed_percentile };

/// The lab's defaults.
struct HedgingDelaySettings {
  static constexpr int kDefaultFixedDelayMs = 300;        ///< the tail_latency carrier's p90
  static constexpr double kDefaultPercentile = 95.0;      ///< The Tail at Scale
  static constexpr int kDefaultWindowSamples = 200;
  static constexpr int kDefaultMinSamples = 20;           ///< one sample beyond the p95 of 20

  HedgingDelayMode mode = HedgingDelayMode::observed_percentile;
  int fixed_delay_ms = kDefaultFixedDelayMs;    ///< the delay in `fixed` mode, and before min_samples; ≥ 0
  double percentile = kDefaultPercentile;       ///< 0–100
  int window_samples = kDefaultWindowSamples;   ///< latencies kept, the most recent; ≥ 1
  int min_samples = kDefaultMinSamples;         ///< latencies needed before the percentile is used; 1–window_samples
};

/// The delay now and where it came from.
struct HedgingDelayStats {
  double delay_ms = 0.0;
  bool observed = false;    ///< true: the percentile of the samples; false: the fixed delay
  std::size_t samples = 0;  ///< latencies in the window
};

class HedgingDelay {
 public:
  /// Throws std::invalid_argument naming the first setting out of range.
  explicit HedgingDelay(HedgingDelaySettings settings = {});

  /// One attempt's latency (ms, ≥ 0; a negative one is ignored). The oldest leaves beyond
  /// `window_samples`.
  void record_latency_ms(double latency_ms);
  /// The delay to wait before hedging, ms.
  double delay_ms() const { return stats().delay_ms; }
  HedgingDelayStats stats() const;
  const HedgingDelaySettings& settings() const { return settings_; }
  /// Forgets the latencies: the fixed delay again until min_samples (the lab's reset).
  void reset();

 private:
  const HedgingDelaySettings settings_;
  mutable std::mutex mutex_;        // guards ring_ and next_
  std::vector<double> ring_;        // up to window_samples latencies
  std::size_t next_ = 0;            // where the next one goes once the ring is full
};

}  // namespace quote_lab
