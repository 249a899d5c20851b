#pragma once
// One circuit breaker per upstream (SPEC.md, "Breaker semantics"): the local state machine
// behind the Breaker interface (breaker.hpp).
//
//   closed ──(failure_threshold consecutive failed attempts)──▶ open
//   open ──(open_duration_s passed; a function of time, no traffic needed)──▶ half_open
//   half_open ──(the one probe succeeds)──▶ closed
//   half_open ──(the probe fails)──▶ open (a fresh cooldown)
//
// "May I call?" (`try_acquire`) is separate from "how did it go?" (`record`), as in
// sony/gobreaker. Every state change goes through one transition function that bumps a
// generation; a permit from an older generation is stale and its result is ignored, so a
// slow call that started before the breaker opened cannot close it again.
// Time is read once per public call from the injected Clock.
// Standard library, clock and vocabulary only: no HTTP, no JSON, no threads.
//
// Replicas that share one breaker wrap this one (shared_state/replicated_breaker.hpp): a
// store decides and this breaker `follow`s it, so the listener (logs, metrics, events) and
// the state file see one breaker, shared or not.

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lab/base/clock.hpp"
#include "lab/resilience/breaker.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/vocabulary.hpp"

namespace quote_lab {

/// A breaker state decided elsewhere — by the store several replicas share — as `follow`
/// takes it.
struct SharedBreakerState {
  BreakerState state = BreakerState::closed;
  int consecutive_failures = 0;
  /// opened_until minus the store's now, in ms: > 0 while open; ≤ 0 once the cooldown has
  /// passed. Relative, so no replica ever compares its own wall clock with another's.
  std::int64_t cooldown_left_ms = 0;
  std::uint64_t open_events = 0;  ///< times the shared breaker has opened
  std::uint64_t generation = 0;   ///< the store's; grows with every shared change
};

/// The fields restored from the state file after a restart.
struct BreakerRestore {
  BreakerState state = BreakerState::closed;
  int consecutive_failures = 0;
  std::optional<WallTime> opened_until;
  std::uint64_t open_events = 0;
  std::uint64_t short_circuit_count = 0;
  std::string last_outcome;
  std::optional<double> last_latency_ms;
};

/// A thread-safe circuit breaker. One mutex guards all state; the transition listener is
/// called after the mutex is released, one transition at a time, in the order the
/// transitions happened (a caller whose transitions queue behind another caller's
/// delivery returns at once; that caller delivers them, as Polly's ScheduledTaskExecutor does).
class CircuitBreaker final : public Breaker {
 public:
  using Listener = std::function<void(const BreakerTransition&)>;

  CircuitBreaker(std::string name, BreakerPolicy policy, const Clock& clock);

  /// Set before traffic starts; called for every transition (logs, metrics, persistence).
  void set_listener(Listener listener);

  Admission try_acquire() override;
  BreakerRecord record(const BreakerPermit& permit, bool failure, std::string_view outcome,
                      double latency_ms) override;
  BreakerSnapshot snapshot() override;
  void reset() override;

  /// The state now (an open breaker whose cooldown has passed is half_open).
  BreakerState state();
  /// Moves to `decided` by legal steps only (closed → open → half_open → closed; the
  /// listener sees each), then takes its counters and cooldown. Returns the generation
  /// a permit given now carries. The caller orders concurrent answers (an older one must
  /// not move the breaker back).
  std::uint64_t follow(const SharedBreakerState& decided);
  /// The generation a permit given now carries (changes with every transition).
  std::uint64_t generation();
  /// Counts a call refused by the shared store, as try_acquire counts its own refusals.
  void count_short_circuit();
  /// Shows a call recorded by the shared store as the last outcome, as record does.
  void show_outcome(std::string_view outcome, double latency_ms);

  /// Resumes a persisted breaker: an open one keeps its remaining cooldown (capped at the
  /// configured one); one whose cooldown ran out while the lab was down comes back half-open.
  void restore(const BreakerRestore& saved);

  const BreakerPolicy& policy() const { return policy_; }

 private:
  void transition_locked(BreakerState to, SteadyTime now);
  void refresh_locked(SteadyTime now);  // open → half_open once the cooldown has passed
  BreakerSnapshot snapshot_locked(SteadyTime now) const;
  // Delivers pending_ to the listener in order, outside the lock, unless another caller
  // is already delivering (it then delivers ours too). Call without holding mutex_.
  void notify();

  const std::string name_;
  const BreakerPolicy policy_;
  const Clock& clock_;

  std::mutex mutex_;  // guards every field below
  Listener listener_;
  BreakerState state_ = BreakerState::closed;
  std::uint64_t generation_ = 0;
  int consecutive_failures_ = 0;
  SteadyTime open_until_{};
  // The same deadline on the wall clock, fixed when it is set: opened_until, as shown,
  // never moves with the gap between reading the two clocks.
  WallTime open_until_wall_{};
  bool probe_in_flight_ = false;
  SteadyTime probe_started_{};
  std::uint64_t open_events_ = 0;
  std::uint64_t short_circuit_count_ = 0;
  std::string last_outcome_;
  std::optional<double> last_latency_ms_;
  std::vector<BreakerTransition> pending_;  // filled under the lock in order, drained by notify()
  bool delivering_ = false;                 // a caller is running the listener on pending_
};

}  // namespace quote_lab
