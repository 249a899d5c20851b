#pragma once
// A bulkhead (Polly's Bulkhead / ConcurrencyLimiter, resilience4j's SemaphoreBulkhead): at most
// `max_concurrent` calls inside at once and at most `max_queued` callers waiting for a slot;
// a caller beyond both is refused at once, so one policy's storm cannot take every worker of
// the lab. Refused, timed out and stopped callers all answer `rejected: bulkhead_full`
// (OverloadRejection::bulkhead_full; resilience4j's BulkheadFullException covers both the
// full queue and the wait that ran out, Polly's BulkheadRejectedException likewise); the
// refusal kind below says which, for the trace and the metrics.
//
// Waiting: a queued caller waits until a slot frees, `max_wait` has passed on the bulkhead's
// clock or `stop` is requested, on a condition that clock makes (Clock::make_condition): the
// machine's clock parks the thread on a condition variable, a test's or a simulation's
// passes the wait in its own time. A newcomer never overtakes a waiter: while anyone waits,
// it joins the queue (or is refused).
//
// Thread-safe: one mutex guards the counts. The bulkhead must outlive its permits.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>

#include "lab/base/clock.hpp"

namespace quote_lab {

/// The bulkhead's size.
struct BulkheadSettings {
  static constexpr int kDefaultMaxConcurrent = 10;  ///< Polly v7's maxParallelization has no default; the lab's
  static constexpr int kDefaultMaxQueued = 0;       ///< Polly v8 ConcurrencyLimiter's QueueLimit default

  int max_concurrent = kDefaultMaxConcurrent;  ///< calls inside at once, ≥ 1
  int max_queued = kDefaultMaxQueued;          ///< callers waiting for a slot, ≥ 0
};

/// Why a caller did not get in.
enum class BulkheadRefusal {
  none,            ///< it got in
  full,            ///< every slot busy and the queue full: refused at once
  wait_timed_out,  ///< it queued, and no slot freed within max_wait
  stopped,         ///< it queued, and the stop_token was requested first
};

/// Counts since start, and the occupancy now.
struct BulkheadStats {
  int active = 0;               ///< permits held now
  int queued = 0;               ///< callers waiting now
  std::uint64_t admitted = 0;   ///< permits handed out (at once or after a wait)
  std::uint64_t admitted_after_wait = 0;
  std::uint64_t refused_full = 0;
  std::uint64_t timed_out = 0;
  std::uint64_t stopped = 0;
};

class Bulkhead;

/// One slot inside. Move-only; `release()` or the destructor frees it (idempotent).
class BulkheadPermit {
 public:
  BulkheadPermit(BulkheadPermit&& other) noexcept;
  BulkheadPermit& operator=(BulkheadPermit&& other) noexcept;
  BulkheadPermit(const BulkheadPermit&) = delete;
  BulkheadPermit& operator=(const BulkheadPermit&) = delete;
  ~BulkheadPermit() { release(); }
  void release();

 private:
  friend class Bulkhead;
  explicit BulkheadPermit(Bulkhead* owner) : owner_(owner) {}
  Bulkhead* owner_;
};

/// The answer to one caller: a permit, or why not.
struct BulkheadEntry {
  std::optional<BulkheadPermit> permit;
  BulkheadRefusal refusal = BulkheadRefusal::none;
};

class Bulkhead {
 public:
  /// Throws std::invalid_argument when max_concurrent < 1 or max_queued < 0. `clock` (which
  /// must outlive the bulkhead) is the time queued callers wait in.
  Bulkhead(BulkheadSettings settings, Clock& clock);

  /// A slot now if one is free and nobody waits; else a place in the queue, waiting at most
  /// `max_wait` of the bulkhead's clock for a slot; else refused at once (`full`).
  BulkheadEntry enter(Millis max_wait, std::stop_token stop = {});
  BulkheadStats stats() const;
  const BulkheadSettings& settings() const { return settings_; }

 private:
  friend class BulkheadPermit;
  void leave();

  const BulkheadSettings settings_;
  Clock& clock_;
  mutable std::mutex mutex_;  // guards stats_
  const std::unique_ptr<ClockCondition> slot_freed_;
  BulkheadStats stats_;
};

}  // namespace quote_lab
