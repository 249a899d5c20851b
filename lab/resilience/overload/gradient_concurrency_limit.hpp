#pragma once
// An adaptive limit on calls in flight that follows the measured round-trip time: Envoy's
// adaptive concurrency filter, gradient controller (envoyproxy.io, "Adaptive Concurrency";
// its defaults from adaptive_concurrency.proto and gradient_controller.cc).
//
// Every `update_interval_ms` (Envoy's concurrency_update_interval, 100 ms in its example) the
// RTTs of the calls that finished are summarised as sampleRTT, their `sample_percentile`
// (p50), and
//
//     gradient = clamp((minRTT + buffer) / sampleRTT, 0.5, 2.0),  buffer = minRTT × buffer_pct
//     limit    ← clamp(⌊gradient × limit + headroom⌋, min_concurrency, max_limit)
//
// minRTT is measured at start and then every `min_rtt_interval_ms` (+ a random jitter of up
// to `jitter_pct` of it): the limit is pinned to `min_concurrency` until `min_rtt_request_count`
// calls that started inside that window have finished; their percentile is the new minRTT and
// the limit returns to what it was. Five updates in a row at `min_concurrency` start a new
// measurement at once (a minRTT measured under load is too high). Envoy's defaults: max 1000,
// min_concurrency 3, request_count 50, jitter 15 %, buffer 25 %, p50; the interval has no
// default (60 s in Envoy's example, the lab's).
//
// The headroom: Envoy's docs call it "the square-root of the concurrency limit" and write
// limit_new = gradient × limit_old + headroom, which Netflix's Gradient2Limit also does
// (queueSize = √estimatedLimit): √limit_old, the default here (limit 100, minRTT 100 ms,
// sampleRTT 200 ms, no buffer → 50 + 10 = 60). Envoy's gradient_controller.cc takes the root of
// the scaled limit, √(gradient × limit_old) (→ 50 + 7.07 = 57): `GradientHeadroom::sqrt_scaled_limit`.
//
// Time only through the injected Clock, read once per public call; nothing runs on a timer:
// each call first brings the controller up to date (a due update, a due minRTT window).
// Thread-safe: one mutex guards the state. The limit must outlive its permits.

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "lab/base/clock.hpp"
#include "lab/base/random.hpp"

namespace quote_lab {

/// Which limit the √ headroom is taken of (see above).
enum class GradientHeadroom { sqrt_previous_limit, sqrt_scaled_limit };

/// The controller's settings, Envoy's defaults.
struct GradientLimitSettings {
  static constexpr int kDefaultMaxLimit = 1000;
  static constexpr int kDefaultMinConcurrency = 3;
  static constexpr int kDefaultUpdateIntervalMs = 100;
  static constexpr int kDefaultMinRttIntervalMs = 60'000;
  static constexpr int kDefaultMinRttRequestCount = 50;
  static constexpr double kDefaultJitterPct = 15.0;
  static constexpr double kDefaultBufferPct = 25.0;
  static constexpr double kDefaultSamplePercentile = 50.0;
  static constexpr std::size_t kMaxSamples = 10'000;  ///< samples kept per window; later ones are not

  int initial_limit = kDefaultMinConcurrency;  ///< the limit after the first minRTT window (Envoy: min_concurrency)
  int max_limit = kDefaultMaxLimit;            ///< upper bound of the limit, ≥ min_concurrency
  int min_concurrency = kDefaultMinConcurrency;            ///< lower bound, and the limit while measuring minRTT, ≥ 1
  int update_interval_ms = kDefaultUpdateIntervalMs;       ///< sample window, ms, ≥ 1
  int min_rtt_interval_ms = kDefaultMinRttIntervalMs;      ///< between minRTT measurements, ms, ≥ 1
  int min_rtt_request_count = kDefaultMinRttRequestCount;  ///< samples that make a minRTT, ≥ 1
  double jitter_pct = kDefaultJitterPct;                   ///< 0–100 % of the interval, drawn once per window
  double buffer_pct = kDefaultBufferPct;                   ///< ≥ 0 % of minRTT added before the division
  double sample_percentile = kDefaultSamplePercentile;     ///< 0–100, for sampleRTT and minRTT
  GradientHeadroom headroom = GradientHeadroom::sqrt_previous_limit;
};

/// What the controller holds now.
struct GradientLimitStats {
  int limit = 0;
  int in_flight = 0;
  double min_rtt_ms = 0.0;     ///< 0 until the first measurement ends
  double sample_rtt_ms = 0.0;  ///< 0 until the first update
  double gradient = 0.0;       ///< of the last update
  bool measuring_min_rtt = false;
  std::uint64_t rejected = 0;  ///< calls refused since start (Envoy's rq_blocked)
};

/// The formula above, pure: the next limit from the current one.
int gradient_next_limit(int limit, double min_rtt_ms, double sample_rtt_ms, const GradientLimitSettings& s);

class GradientConcurrencyLimit;

/// One call in flight. Move-only; `release()` (or the destructor) records its RTT, now − the
/// time it was admitted; `cancel()` frees the slot without a sample (a call that never
/// reached the carrier). Either is idempotent.
class ConcurrencyPermit {
 public:
  ConcurrencyPermit(ConcurrencyPermit&& other) noexcept;
  ConcurrencyPermit& operator=(ConcurrencyPermit&& other) noexcept;
  ConcurrencyPermit(const ConcurrencyPermit&) = delete;
  ConcurrencyPermit& operator=(const ConcurrencyPermit&) = delete;
  ~ConcurrencyPermit() { release(); }

  void release();
  void cancel();

 private:
  friend class GradientConcurrencyLimit;
  ConcurrencyPermit(GradientConcurrencyLimit* owner, SteadyTime started) : owner_(owner), started_(started) {}
  GradientConcurrencyLimit* owner_;
  SteadyTime started_;
};

class GradientConcurrencyLimit {
 public:
  /// Starts measuring minRTT at once, as Envoy does. Throws std::invalid_argument naming the
  /// first setting out of range. `random` draws the minRTT jitter.
  GradientConcurrencyLimit(const Clock& clock, RandomSource& random, GradientLimitSettings settings = {});

  /// A permit when calls in flight < limit; empty when not: the caller answers
  /// `rejected: concurrency_limit` (OverloadRejection::concurrency_limit) without waiting.
  /// A call is admitted only below the limit; calls already in flight when the limit drops
  /// (a minRTT window pins it to min_concurrency) finish, and admission waits until they have.
  std::optional<ConcurrencyPermit> try_acquire();
  /// The state now, after bringing the controller up to date (a due update or minRTT
  /// window), which is why it is not const.
  GradientLimitStats stats();
  const GradientLimitSettings& settings() const { return settings_; }
  /// Back to a new controller's state (the lab's reset): the initial limit, measuring minRTT
  /// again. Calls in flight stay counted until they finish, and give no sample.
  void reset();

 private:
  friend class ConcurrencyPermit;
  void finish(SteadyTime started, bool record);
  void advance_locked(SteadyTime now);
  void enter_min_rtt_window_locked(SteadyTime now);
  void end_min_rtt_window_locked(SteadyTime now);
  void set_limit_locked(int limit, SteadyTime now);

  const Clock& clock_;
  RandomSource& random_;
  const GradientLimitSettings settings_;
  mutable std::mutex mutex_;  // guards everything below
  GradientLimitStats stats_;
  std::vector<double> samples_ms_;
  int deferred_limit_ = 0;        // the limit to restore when the minRTT window ends
  int consecutive_at_min_ = 0;
  SteadyTime min_rtt_epoch_{};    // calls admitted before it give no sample
  SteadyTime next_update_at_{};
  SteadyTime next_min_rtt_at_{};
};

}  // namespace quote_lab
