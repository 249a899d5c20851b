#pragma once
// The rate at which a client is sending, as the AWS SDKs' adaptive retry mode measures it
// (botocore retries/adaptive.py, RateClocker): answers are counted in time buckets of 0.5 s;
// when an answer lands in a later bucket than the last one, the count over the buckets
// elapsed is a rate, folded into an exponential moving average with smoothing 0.8:
//
//     measured ← 0.8 × count / (bucket − last bucket) + 0.2 × measured
//
// (botocore starts its last bucket at the whole second it was created in; so does this.)
// Pure arithmetic on the times it is given: no clock, no lock (CubicRateLimiter owns one and
// guards it).

#include <cstdint>

#include "lab/base/clock.hpp"

namespace quote_lab {

class SendRateMeter {
 public:
  static constexpr double kSmoothing = 0.8;  ///< botocore's _DEFAULT_SMOOTHING
  static constexpr double kBucketS = 0.5;    ///< botocore's _TIME_BUCKET_RANGE, s

  explicit SendRateMeter(SteadyTime start);

  /// Counts one answer at `now` and returns the measured rate, req/s.
  double record(SteadyTime now);
  double measured_rate_per_s() const { return measured_rate_per_s_; }

 private:
  double measured_rate_per_s_ = 0.0;
  double last_bucket_s_;
  std::uint64_t count_ = 0;
};

}  // namespace quote_lab
