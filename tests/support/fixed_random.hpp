#pragma once
// A random source whose draw is fixed, so backoff jitter through the whole app is exact:
// with the default resilient policy, u = 0.5 gives 15 + floor(0.5 × 31) = 30 ms of jitter,
// a first backoff of 80 + 30 = 110 ms. Ids still come from the seeded bits, so they differ.

#include "lab/base/random.hpp"

namespace quote_lab::testing {

class FixedRandom final : public RandomSource {
 public:
  explicit FixedRandom(double u) : RandomSource(1), u_(u) {}
  double uniform() override { return u_; }

 private:
  const double u_;
};

}  // namespace quote_lab::testing
