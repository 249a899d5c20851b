#include "lab/resilience/overload/cubic_calculator.hpp"

#include <chrono>
#include <cmath>
#include <stdexcept>

namespace quote_lab {

CubicCalculator::CubicCalculator(double starting_max_rate_per_s, SteadyTime start, double scale_constant,
                                 double beta)
    : scale_constant_(scale_constant), beta_(beta), w_max_per_s_(starting_max_rate_per_s), k_s_(0.0),
      last_throttle_(start) {
  if (!(starting_max_rate_per_s >= 0.0)) throw std::invalid_argument("cubic calculator: a negative starting rate");
  if (!(scale_constant > 0.0)) throw std::invalid_argument("cubic calculator: scale_constant must be > 0");
  if (!(beta > 0.0 && beta < 1.0)) throw std::invalid_argument("cubic calculator: beta must be in (0, 1)");
  k_s_ = zero_point_s();
}

double CubicCalculator::zero_point_s() const { return std::cbrt(w_max_per_s_ * (1.0 - beta_) / scale_constant_); }

double CubicCalculator::rate_after_success_per_s(SteadyTime now) const {
  const double t_s = std::chrono::duration<double>(now - last_throttle_).count();
  return scale_constant_ * std::pow(t_s - k_s_, 3) + w_max_per_s_;
}

double CubicCalculator::rate_after_throttle_per_s(double current_rate_per_s, SteadyTime now) {
  w_max_per_s_ = current_rate_per_s;
  k_s_ = zero_point_s();
  last_throttle_ = now;
  return current_rate_per_s * beta_;
}

}  // namespace quote_lab
