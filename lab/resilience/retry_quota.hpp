#pragma once
// The retry quota of the AWS SDKs' standard and adaptive retry modes (botocore
// retries/quota.py RetryQuota and retries/standard.py RetryQuotaChecker; the SDKs' "retry
// behavior" reference): a bucket of capacity that every retry pays from and that only
// successes fill again. A carrier that fails everything costs a client at most
// capacity / retry_cost retries in all — 100 with botocore's numbers — however many requests
// it sends, until answers come back; a healthy carrier keeps the bucket full.
//
//   a retry after a timeout costs timeout_retry_cost (botocore: 10), after any other
//   failure retry_cost (5); without that much capacity left the retry is not made
//   a 2xx answer on the first attempt gives back no_retry_increment (1); a 2xx after
//   retries gives back what the last retry paid; a flow that fails gives back nothing
//   the capacity never exceeds its initial amount (500)
//
// These are botocore's default ("v1") numbers; its opt-in 2026 retry behaviour
// (AWS_NEW_RETRIES_2026) charges 14 per retry and 5 after throttling instead. Unlike the
// retry budget (retry_budget.hpp) it has no window: nothing refills it but successes, so it
// forgets nothing by itself. No clock: it counts, it never waits.

#include <mutex>
#include <optional>

#include "lab/resilience/carrier_call.hpp"

namespace quote_lab {

/// The quota's numbers; the policies file's `retry_quota` settings (strategy_settings.hpp).
struct RetryQuotaSettings {
  int capacity = 500;           ///< the initial and largest capacity (botocore INITIAL_CAPACITY)
  int retry_cost = 5;           ///< what a retry costs (botocore _RETRY_COST)
  int timeout_retry_cost = 10;  ///< what a retry after a timeout costs (botocore _TIMEOUT_RETRY_REQUEST)
  int no_retry_increment = 1;   ///< what a first-try success gives back (botocore _NO_RETRY_INCREMENT)
};

/// One client's quota (one per lab and policy). Thread-safe.
class RetryQuota {
 public:
  /// Throws std::invalid_argument for a negative capacity, cost or increment (a capacity of 0
  /// allows only retries that cost 0).
  explicit RetryQuota(RetryQuotaSettings settings);

  /// What a retry after `failure` costs: timeout_retry_cost after CallError::timeout (a
  /// connect or read timeout, botocore's _TIMEOUT_EXCEPTIONS), retry_cost otherwise.
  int retry_cost(CallError failure) const;
  /// Takes `amount` if that much is left (true); false leaves the quota unchanged.
  bool acquire(int amount);
  /// Gives back `amount`, never above the capacity.
  void release(int amount);
  /// A flow answered with a 2xx: gives back what its last retry paid (`last_acquired`), or
  /// no_retry_increment when it made no retry (empty).
  void on_success(std::optional<int> last_acquired);

  int available() const;
  int capacity() const { return settings_.capacity; }
  /// Back to full (the lab's reset).
  void reset();

 private:
  const RetryQuotaSettings settings_;
  mutable std::mutex mutex_;  // guards available_
  int available_;
};

}  // namespace quote_lab
