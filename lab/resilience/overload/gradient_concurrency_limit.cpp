#include "lab/resilience/overload/gradient_concurrency_limit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "lab/resilience/overload/latency_percentile.hpp"

namespace quote_lab {

namespace {

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("gradient concurrency limit: ") + what);
}

GradientLimitSettings validated(GradientLimitSettings s) {
  require(s.min_concurrency >= 1, "min_concurrency must be ≥ 1");
  require(s.max_limit >= s.min_concurrency, "max_limit must be ≥ min_concurrency");
  require(s.initial_limit >= s.min_concurrency && s.initial_limit <= s.max_limit,
          "initial_limit must be within [min_concurrency, max_limit]");
  require(s.update_interval_ms >= 1, "update_interval_ms must be ≥ 1");
  require(s.min_rtt_interval_ms >= 1, "min_rtt_interval_ms must be ≥ 1");
  require(s.min_rtt_request_count >= 1, "min_rtt_request_count must be ≥ 1");
  require(s.jitter_pct >= 0.0 && s.jitter_pct <= 100.0, "jitter_pct must be 0–100");
  require(s.buffer_pct >= 0.0, "buffer_pct must be ≥ 0");
  require(s.sample_percentile >= 0.0 && s.sample_percentile <= 100.0, "sample_percentile must be 0–100");
  return s;
}

}  // namespace

int gradient_next_limit(int limit, double min_rtt_ms, double sample_rtt_ms, const GradientLimitSettings& s) {
  const double buffered_min_rtt_ms = min_rtt_ms * (1.0 + s.buffer_pct / 100.0);
  const double gradient = std::clamp(buffered_min_rtt_ms / sample_rtt_ms, 0.5, 2.0);
  const double scaled = gradient * limit;
  const double headroom =
      std::sqrt(s.headroom == GradientHeadroom::sqrt_previous_limit ? static_cast<double>(limit) : scaled);
  const double next = std::floor(scaled + headroom);
  return static_cast<int>(std::clamp(next, static_cast<double>(s.min_concurrency), static_cast<double>(s.max_limit)));
}

ConcurrencyPermit::ConcurrencyPermit(ConcurrencyPermit&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)), started_(other.started_) {}

ConcurrencyPermit& ConcurrencyPermit::operator=(ConcurrencyPermit&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::exchange(other.owner_, nullptr);
    started_ = other.started_;
  }
  return *this;
}

void ConcurrencyPermit::release() {
  if (owner_ != nullptr) std::exchange(owner_, nullptr)->finish(started_, true);
}

void ConcurrencyPermit::cancel() {
  if (owner_ != nullptr) std::exchange(owner_, nullptr)->finish(started_, false);
}

GradientConcurrencyLimit::GradientConcurrencyLimit(const Clock& clock, RandomSource& random,
                                                   GradientLimitSettings settings)
    : clock_(clock), random_(random), settings_(validated(settings)) {
  const SteadyTime now = clock_.now();
  std::lock_guard lock(mutex_);
  stats_.limit = settings_.initial_limit;
  enter_min_rtt_window_locked(now);
}

std::optional<ConcurrencyPermit> GradientConcurrencyLimit::try_acquire() {
  const SteadyTime now = clock_.now();
  std::lock_guard lock(mutex_);
  advance_locked(now);
  if (stats_.in_flight >= stats_.limit) {
    ++stats_.rejected;
    return std::nullopt;
  }
  ++stats_.in_flight;
  return ConcurrencyPermit(this, now);
}

void GradientConcurrencyLimit::reset() {
  const SteadyTime now = clock_.now();
  std::lock_guard lock(mutex_);
  const int in_flight = stats_.in_flight;
  stats_ = GradientLimitStats{};
  stats_.in_flight = in_flight;
  stats_.limit = settings_.initial_limit;
  enter_min_rtt_window_locked(now);
}

GradientLimitStats GradientConcurrencyLimit::stats() {
  const SteadyTime now = clock_.now();
  std::lock_guard lock(mutex_);
  advance_locked(now);
  return stats_;
}

void GradientConcurrencyLimit::finish(SteadyTime started, bool record) {
  const SteadyTime now = clock_.now();
  std::lock_guard lock(mutex_);
  --stats_.in_flight;
  advance_locked(now);
  // A call admitted before the minRTT window started ran under the old limit: not a sample.
  if (!record || started < min_rtt_epoch_) return;
  if (samples_ms_.size() < GradientLimitSettings::kMaxSamples) samples_ms_.push_back(elapsed_ms(started, now));
  if (stats_.measuring_min_rtt && samples_ms_.size() >= static_cast<std::size_t>(settings_.min_rtt_request_count))
    end_min_rtt_window_locked(now);
}

void GradientConcurrencyLimit::advance_locked(SteadyTime now) {
  if (stats_.measuring_min_rtt) return;  // the window ends on samples, not on time
  if (now >= next_min_rtt_at_) {
    enter_min_rtt_window_locked(now);
    return;
  }
  if (now < next_update_at_) return;
  next_update_at_ = now + Millis(settings_.update_interval_ms);
  if (samples_ms_.empty()) return;
  stats_.sample_rtt_ms = nearest_rank_percentile(std::move(samples_ms_), settings_.sample_percentile);
  samples_ms_.clear();
  stats_.gradient = std::clamp(stats_.min_rtt_ms * (1.0 + settings_.buffer_pct / 100.0) / stats_.sample_rtt_ms, 0.5, 2.0);
  set_limit_locked(gradient_next_limit(stats_.limit, stats_.min_rtt_ms, stats_.sample_rtt_ms, settings_), now);
}

void GradientConcurrencyLimit::enter_min_rtt_window_locked(SteadyTime now) {
  stats_.measuring_min_rtt = true;
  deferred_limit_ = stats_.limit;
  stats_.limit = settings_.min_concurrency;
  consecutive_at_min_ = 0;
  samples_ms_.clear();
  min_rtt_epoch_ = now;
}

void GradientConcurrencyLimit::end_min_rtt_window_locked(SteadyTime now) {
  stats_.min_rtt_ms = nearest_rank_percentile(std::move(samples_ms_), settings_.sample_percentile);
  samples_ms_.clear();
  stats_.measuring_min_rtt = false;
  stats_.limit = deferred_limit_;
  // Envoy: interval + (random % ⌈interval × jitter⌉) ms.
  const auto range_ms = static_cast<std::int64_t>(std::ceil(settings_.min_rtt_interval_ms * settings_.jitter_pct / 100.0));
  const auto jitter_ms =
      range_ms == 0 ? 0 : static_cast<std::int64_t>(std::floor(random_.uniform() * static_cast<double>(range_ms)));
  next_min_rtt_at_ = now + Millis(settings_.min_rtt_interval_ms + jitter_ms);
  next_update_at_ = now + Millis(settings_.update_interval_ms);
}

void GradientConcurrencyLimit::set_limit_locked(int limit, SteadyTime now) {
  const bool stuck_at_min = stats_.limit == settings_.min_concurrency && limit == settings_.min_concurrency;
  consecutive_at_min_ = stuck_at_min ? consecutive_at_min_ + 1 : 0;
  stats_.limit = limit;
  if (consecutive_at_min_ >= 5) next_min_rtt_at_ = now;  // remeasure on the next call
}

}  // namespace quote_lab
