#pragma once
// The CUBIC send-rate curve of the AWS SDKs' adaptive retry mode (botocore
// retries/throttling.py, CubicCalculator; after RFC 8312's window growth, with a rate in
// requests per second in place of a congestion window). On a throttling answer the rate the
// client was sending at becomes W_max and the new rate is β × W_max; from then on, t seconds
// after that answer,
//
//     rate(t) = C × (t − K)³ + W_max,   K = ∛(W_max × (1 − β) / C)
//
// so the rate grows fast, flattens out back at W_max at t = K, and probes beyond it. botocore's
// constants: β = 0.7, C = 0.4. With W_max = 10 req/s: 7 after the throttle, K = ∛7.5 ≈ 1.957 s
// back at 10, and 13 at t = 2K ≈ 3.915 s (C × K³ = W_max × (1 − β) = 3).
//
// Pure arithmetic on the times it is given: no clock, no lock (CubicRateLimiter owns one and
// guards it).

#include "lab/base/clock.hpp"

namespace quote_lab {

class CubicCalculator {
 public:
  static constexpr double kBeta = 0.7;           ///< botocore's _BETA
  static constexpr double kScaleConstant = 0.4;  ///< botocore's _SCALE_CONSTANT, C

  /// `starting_max_rate_per_s` is W_max before any throttle (botocore: 0), `start` stands
  /// for the last throttle until one happens. Throws std::invalid_argument for a negative
  /// rate, `scale_constant` ≤ 0 or `beta` outside (0, 1).
  CubicCalculator(double starting_max_rate_per_s, SteadyTime start, double scale_constant = kScaleConstant,
                  double beta = kBeta);

  /// The rate a successful answer at `now` allows: C × (t − K)³ + W_max, t = now − last throttle, s.
  double rate_after_success_per_s(SteadyTime now) const;
  /// A throttling answer at `now` while sending at `current_rate_per_s`: W_max ← that rate,
  /// K recomputed, the clock of t restarted; returns β × the rate.
  double rate_after_throttle_per_s(double current_rate_per_s, SteadyTime now);

  double w_max_per_s() const { return w_max_per_s_; }
  double k_s() const { return k_s_; }
  SteadyTime last_throttle() const { return last_throttle_; }

 private:
  double zero_point_s() const;

  double scale_constant_;
  double beta_;
  double w_max_per_s_;
  double k_s_;
  SteadyTime last_throttle_;
};

}  // namespace quote_lab
