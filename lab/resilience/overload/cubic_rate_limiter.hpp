#pragma once
// The AWS SDKs' adaptive retry mode on the client side (botocore retries/adaptive.py,
// ClientRateLimiter): a send rate steered by CUBIC (cubic_calculator.hpp) from the answers,
// a measured send rate (send_rate_meter.hpp) and a token bucket that paces the sends
// (rate_token_bucket.hpp).
//
// On every answer: measured ← the meter's rate; a throttling answer (the lab: HTTP 429; botocore:
// 429-like error codes, ThrottlingErrorDetector) sets the rate to β × the rate sent at (the
// measured rate the first time, then min(measured, bucket rate)) and turns the limiter on; any
// other answer sets it to the CUBIC curve. The bucket's fill rate ← min(that rate, 2 ×
// measured) (botocore's _MAX_RATE_ADJUST_SCALE). Until the first throttling answer the
// limiter lets every send through at once, as botocore does.
//
// A send asks for a token: it is told to wait (botocore blocks) or, when the wait would be
// longer than the caller accepts, refused: `rejected: client_rate_limited`
// (OverloadRejection::client_rate_limited; the name says the client limited itself, where
// http_429 says the carrier did).
//
// Time only through the injected Clock, read once per call. Thread-safe: one mutex guards the
// calculator, the meter and the bucket; acquire() sleeps outside it.

#include <cstdint>
#include <mutex>
#include <optional>
#include <stop_token>

#include "lab/base/clock.hpp"
#include "lab/resilience/overload/cubic_calculator.hpp"
#include "lab/resilience/overload/rate_token_bucket.hpp"
#include "lab/resilience/overload/send_rate_meter.hpp"

namespace quote_lab {

/// What the limiter holds now.
struct CubicRateLimiterStats {
  bool enabled = false;             ///< a throttling answer has been seen: sends are paced
  double send_rate_per_s = 0.0;     ///< the bucket's fill rate
  double measured_rate_per_s = 0.0; ///< the meter's rate at the last answer
  double w_max_per_s = 0.0;         ///< CUBIC's W_max
  double k_s = 0.0;                 ///< CUBIC's K
  std::uint64_t throttles = 0;      ///< throttling answers seen
  std::uint64_t rejected = 0;       ///< sends refused (client_rate_limited)
};

class CubicRateLimiter {
 public:
  static constexpr double kMaxRateAdjustScale = 2.0;  ///< botocore: rate ≤ 2 × measured
  static constexpr double kStartingFillRatePerS = 1.0;  ///< botocore: TokenBucket(max_rate=1)
  static constexpr double kRoundingSlackMs = 1e-6;      ///< a wait's float noise, dropped before rounding up

  explicit CubicRateLimiter(Clock& clock);

  /// Takes a token for one send: the wait before sending, ms (0 while not enabled or when a
  /// token is there); empty when it would be longer than `max_wait_ms` (nothing taken: the
  /// caller answers `rejected: client_rate_limited`).
  std::optional<double> reserve(double max_wait_ms);
  /// reserve(), then waits on the clock, rounded up to whole ms: the wait, ms (0: none; the
  /// quote's `token_wait` step). Empty when refused, or when `stop` cut the wait short (the
  /// token stays spent).
  std::optional<Millis> acquire(double max_wait_ms, std::stop_token stop = {});
  /// One answer arrived; `throttled`: the carrier said to slow down (429).
  void on_response(bool throttled);
  CubicRateLimiterStats stats() const;
  /// Back to a new limiter's state: off until the next throttling answer (the lab's reset).
  void reset();

 private:
  Clock& clock_;
  mutable std::mutex mutex_;  // guards everything below
  CubicCalculator cubic_;
  SendRateMeter meter_;
  RateTokenBucket bucket_;
  bool enabled_ = false;
  std::uint64_t throttles_ = 0;
  std::uint64_t rejected_ = 0;
};

}  // namespace quote_lab
