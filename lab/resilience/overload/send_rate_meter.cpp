#include "lab/resilience/overload/send_rate_meter.hpp"

#include <chrono>
#include <cmath>

namespace quote_lab {

namespace {

double seconds(SteadyTime t) { return std::chrono::duration<double>(t.time_since_epoch()).count(); }

}  // namespace

SendRateMeter::SendRateMeter(SteadyTime start) : last_bucket_s_(std::floor(seconds(start))) {}

double SendRateMeter::record(SteadyTime now) {
  const double bucket_s = std::floor(seconds(now) / kBucketS) * kBucketS;
  ++count_;
  if (bucket_s > last_bucket_s_) {
    const double current_rate = static_cast<double>(count_) / (bucket_s - last_bucket_s_);
    measured_rate_per_s_ = current_rate * kSmoothing + measured_rate_per_s_ * (1.0 - kSmoothing);
    count_ = 0;
    last_bucket_s_ = bucket_s;
  }
  return measured_rate_per_s_;
}

}  // namespace quote_lab
