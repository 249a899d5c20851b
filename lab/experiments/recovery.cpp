#include "lab/experiments/recovery.hpp"

#include <cmath>

namespace quote_lab {

std::optional<int> recovered_after_s(const std::vector<TimelineSecond>& timeline, double trigger_end_s,
                                     const RecoveryRule& rule) {
  const auto healthy = [&](std::size_t s) {
    return static_cast<double>(timeline[s].useful) >= rule.share * static_cast<double>(timeline[s].arrivals);
  };
  const auto start = static_cast<std::size_t>(std::ceil(trigger_end_s));
  const auto run = static_cast<std::size_t>(rule.run_s);
  for (std::size_t s = start; s + run <= timeline.size(); ++s) {
    bool all = true;
    for (std::size_t k = s; k < s + run && all; ++k) all = healthy(k);
    if (all) return static_cast<int>(s - start);
  }
  return std::nullopt;
}

}  // namespace quote_lab
