#include "lab/resilience/overload/hedging_delay.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "lab/resilience/overload/latency_percentile.hpp"

namespace quote_lab {

namespace {

HedgingDelaySettings validated(HedgingDelaySettings s) {
  auto fail = [](const char* what) { throw std::invalid_argument(std::string("hedging delay: ") + what); };
  if (s.fixed_delay_ms < 0) fail("fixed_delay_ms must be ≥ 0");
  if (!(s.percentile >= 0.0 && s.percentile <= 100.0)) fail("percentile must be 0–100");
  if (s.window_samples < 1) fail("window_samples must be ≥ 1");
  if (s.min_samples < 1 || s.min_samples > s.window_samples) fail("min_samples must be 1–window_samples");
  return s;
}

}  // namespace

HedgingDelay::HedgingDelay(HedgingDelaySettings settings) : settings_(validated(settings)) {
  ring_.reserve(static_cast<std::size_t>(settings_.window_samples));
}

void HedgingDelay::record_latency_ms(double latency_ms) {
  if (!(latency_ms >= 0.0)) return;
  std::lock_guard lock(mutex_);
  if (ring_.size() < static_cast<std::size_t>(settings_.window_samples)) {
    ring_.push_back(latency_ms);
    return;
  }
  ring_[next_] = latency_ms;
  next_ = (next_ + 1) % ring_.size();
}

void HedgingDelay::reset() {
  std::lock_guard lock(mutex_);
  ring_.clear();
  next_ = 0;
}

HedgingDelayStats HedgingDelay::stats() const {
  std::vector<double> copy;
  {
    std::lock_guard lock(mutex_);
    copy = ring_;
  }
  const std::size_t n = copy.size();
  const bool observed = settings_.mode == HedgingDelayMode::observed_percentile &&
                        n >= static_cast<std::size_t>(settings_.min_samples);
  if (!observed) return {static_cast<double>(settings_.fixed_delay_ms), false, n};
  return {nearest_rank_percentile(std::move(copy), settings_.percentile), true, n};
}

}  // namespace quote_lab
