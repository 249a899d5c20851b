#pragma once
// The token bucket that paces sends in the AWS SDKs' adaptive retry mode (botocore
// retries/bucket.py, TokenBucket): tokens accrue at the fill rate up to a capacity; one send
// takes one token. botocore's rules: the fill rate is never below 0.5 tokens/s (_MIN_RATE),
// the capacity is the fill rate (1 when the rate is below 1), the bucket starts empty, and a
// change of rate first credits the tokens earned at the old rate and then trims the tokens
// to the new capacity.
//
// One difference, for callers on many threads: botocore blocks a caller on a condition
// variable until a token is there; here a caller *reserves* its token and is told how long
// to wait for it — the tokens may go below zero, so the next caller waits behind it (first
// come, first served, as Guava's RateLimiter does) — or, when that wait would exceed what the
// caller accepts, is refused and takes nothing. The first wait is botocore's
// (1 − tokens) / fill_rate.
//
// Pure arithmetic on the times it is given: no clock, no lock (CubicRateLimiter owns one and
// guards it).

#include <optional>

#include "lab/base/clock.hpp"

namespace quote_lab {

class RateTokenBucket {
 public:
  static constexpr double kMinFillRatePerS = 0.5;  ///< botocore's _MIN_RATE

  /// An empty bucket filling at `fill_rate_per_s` (botocore starts at 1) from `now`.
  RateTokenBucket(double fill_rate_per_s, SteadyTime now);

  /// Credits the tokens earned until `now`, then fill rate ← max(rate, 0.5), capacity ←
  /// max(rate, 1), tokens ← min(tokens, capacity).
  void set_fill_rate(double rate_per_s, SteadyTime now);
  /// Takes one token at `now`: the wait before it may be used, ms (0 if one was there); empty
  /// (nothing taken) when that wait would be longer than `max_wait_ms`.
  std::optional<double> reserve(double max_wait_ms, SteadyTime now);

  double fill_rate_per_s() const { return fill_rate_per_s_; }
  double capacity() const { return capacity_; }
  /// Tokens at `now` (negative: reserved ahead of time).
  double tokens(SteadyTime now);

 private:
  void refill(SteadyTime now);

  double fill_rate_per_s_ = kMinFillRatePerS;
  double capacity_ = 1.0;
  double tokens_ = 0.0;
  SteadyTime last_refill_;
};

}  // namespace quote_lab
