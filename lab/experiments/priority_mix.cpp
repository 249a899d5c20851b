#include "lab/experiments/priority_mix.hpp"

#include <cmath>

namespace quote_lab {

bool sheddable_request(long k, double share) {
  return std::floor(static_cast<double>(k + 1) * share) > std::floor(static_cast<double>(k) * share);
}

}  // namespace quote_lab
