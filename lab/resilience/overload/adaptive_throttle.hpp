#pragma once
// Client-side adaptive throttling (Google SRE book, ch. 21 "Handling Overload", section
// "Client-side throttling"; go-zero's core/breaker/googlebreaker.go): the client counts, over
// a sliding window, the requests it made and the ones the backend accepted, and drops a new
// request locally with probability
//
//     p = max(0, (requests − protection − K × accepts) / (requests + 1))
//
// K = 2 in the SRE book ("the backend accepts K times the requests it actually serves"),
// no protection. go-zero's defaults, the lab's: K 1.5, a window of 10 s in 40 buckets of
// 250 ms, protection 5 (a quiet client is never throttled for its first few failures).
// A request the client drops counts as a request (the SRE book: "rejected locally" requests
// still count, so p keeps rising while the backend refuses everything), never as an accept.
//
// go-zero's current breaker adds two refinements the book does not have (K lowered towards
// 1.1 after consecutive failing buckets, one request forced through per second); they are
// left out so the formula stays the book's and the numbers are checkable by hand.
//
// Time only through the injected Clock, chance only through the injected RandomSource.
// Thread-safe: one mutex guards the buckets.

#include <cstdint>
#include <mutex>
#include <vector>

#include "lab/base/clock.hpp"
#include "lab/base/random.hpp"

namespace quote_lab {

/// The throttle's settings, go-zero's defaults.
struct AdaptiveThrottleSettings {
  static constexpr double kDefaultK = 1.5;
  static constexpr int kDefaultWindowMs = 10'000;
  static constexpr int kDefaultBuckets = 40;
  static constexpr int kDefaultProtection = 5;

  double k = kDefaultK;                 ///< the multiplier K on accepts, ≥ 1 (SRE book: 2)
  int window_ms = kDefaultWindowMs;     ///< the sliding window, ms, a multiple of `buckets`
  int buckets = kDefaultBuckets;        ///< buckets in the window, 1–1000
  int protection = kDefaultProtection;  ///< requests subtracted before any drop, ≥ 0
};

/// What the window holds now.
struct AdaptiveThrottleStats {
  std::uint64_t requests = 0;     ///< recorded outcomes + local drops in the window
  std::uint64_t accepts = 0;      ///< outcomes the backend accepted in the window
  std::uint64_t dropped = 0;      ///< requests dropped locally in the window
  double drop_probability = 0.0;  ///< p above, from these counts
};

class AdaptiveThrottle {
 public:
  /// Throws std::invalid_argument naming the first setting out of range.
  AdaptiveThrottle(const Clock& clock, RandomSource& random, AdaptiveThrottleSettings settings = {});

  /// p from the current window, in [0, 1).
  double drop_probability() const;
  /// May this request go to the backend? Draws u from the RandomSource only when p > 0 and
  /// drops when u < p: a drop is counted (requests and dropped) and the caller answers
  /// `rejected: throttled` (OverloadRejection::throttled). An admitted request is counted
  /// when its outcome is recorded.
  bool admit();
  /// The outcome of an admitted request: `accepted` = the backend served it (go-zero's
  /// markSuccess); false = it refused or failed (markFailure).
  void record(bool accepted);
  AdaptiveThrottleStats stats() const;
  const AdaptiveThrottleSettings& settings() const { return settings_; }
  /// Forgets the window (the lab's reset).
  void reset();

 private:
  struct Bucket {
    std::int64_t index = -1;  ///< which bucket of steady time it counts; another index = stale
    std::uint64_t requests = 0;
    std::uint64_t accepts = 0;
    std::uint64_t dropped = 0;
  };
  std::int64_t bucket_index_now() const;
  Bucket& current_locked(std::int64_t index);
  AdaptiveThrottleStats sum_locked(std::int64_t index) const;

  const Clock& clock_;
  RandomSource& random_;
  const AdaptiveThrottleSettings settings_;
  const std::int64_t bucket_ms_;
  mutable std::mutex mutex_;     // guards buckets_
  std::vector<Bucket> buckets_;  // a ring: bucket i of steady time lives at i % buckets
};

/// p = max(0, (requests − protection − k × accepts) / (requests + 1)): the SRE book's formula
/// with go-zero's protection, pure.
double throttle_drop_probability(std::uint64_t requests, std::uint64_t accepts, double k, int protection);

}  // namespace quote_lab
