#include "lab/resilience/retry_quota.hpp"

#include <algorithm>
#include <stdexcept>

namespace quote_lab {

RetryQuota::RetryQuota(RetryQuotaSettings settings) : settings_(settings), available_(settings.capacity) {
  if (settings.capacity < 0) throw std::invalid_argument("retry quota: capacity must not be negative");
  if (settings.retry_cost < 0 || settings.timeout_retry_cost < 0 || settings.no_retry_increment < 0)
    throw std::invalid_argument("retry quota: costs and increments must not be negative");
}

int RetryQuota::retry_cost(CallError failure) const {
  return failure == CallError::timeout ? settings_.timeout_retry_cost : settings_.retry_cost;
}

bool RetryQuota::acquire(int amount) {
  std::lock_guard lock(mutex_);
  if (amount > available_) return false;
  available_ -= amount;
  return true;
}

void RetryQuota::release(int amount) {
  std::lock_guard lock(mutex_);
  available_ = std::min(settings_.capacity, available_ + std::max(amount, 0));
}

void RetryQuota::on_success(std::optional<int> last_acquired) {
  release(last_acquired.value_or(settings_.no_retry_increment));
}

int RetryQuota::available() const {
  std::lock_guard lock(mutex_);
  return available_;
}

void RetryQuota::reset() {
  std::lock_guard lock(mutex_);
  available_ = settings_.capacity;
}

}  // namespace quote_lab
