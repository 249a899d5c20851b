#pragma once
// Chance, injected. Backoff jitter and the carrier's simulated latency draw from one
// seeded source, so a run with `--seed N` is reproducible and tests are exact.

#include <cstdint>
#include <mutex>
#include <random>

namespace quote_lab {

/// A thread-safe uniform random source seeded once (std::mt19937_64). `uniform()` is
/// virtual so a test can fix the draw and assert exact backoff waits through the whole app.
class RandomSource {
 public:
  explicit RandomSource(std::uint64_t seed) : engine_(seed) {}
  virtual ~RandomSource() = default;
  /// A uniform draw in [0, 1).
  virtual double uniform() {
    std::lock_guard lock(mutex_);
    return dist_(engine_);
  }
  /// 64 random bits, for ids.
  std::uint64_t bits() {
    std::lock_guard lock(mutex_);
    return engine_();
  }

 private:
  std::mutex mutex_;  // guards engine_ and dist_
  std::mt19937_64 engine_;
  std::uniform_real_distribution<double> dist_{0.0, 1.0};
};

}  // namespace quote_lab
