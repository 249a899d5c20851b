#include "lab/resilience/overload/latency_percentile.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>

namespace quote_lab {

double nearest_rank_percentile(std::vector<double> samples_ms, double percentile) {
  if (samples_ms.empty()) throw std::invalid_argument("nearest_rank_percentile: no samples");
  if (!(percentile >= 0.0 && percentile <= 100.0))
    throw std::invalid_argument("nearest_rank_percentile: percentile outside [0, 100]");
  const double n = static_cast<double>(samples_ms.size());
  // A tiny epsilon so that 95 % of 20 samples is the 19th, not the 20th after rounding error.
  const double rank = std::ceil(percentile / 100.0 * n - 1e-9);
  const std::size_t index = rank < 1.0 ? 0 : static_cast<std::size_t>(rank) - 1;
  std::nth_element(samples_ms.begin(), samples_ms.begin() + static_cast<std::ptrdiff_t>(index), samples_ms.end());
  return samples_ms[index];
}

}  // namespace quote_lab
