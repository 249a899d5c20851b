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
// Shared by replicas (set_shared): the store (shared_breaker.hpp) decides and this
// breaker mirrors it — a sync layer under the same public contract, so the executor, the
// listener (logs, metrics, events) and the state file see one breaker, shared or not.
// Round trips happen outside the lock; an open mirror short-circuits locally until its
// cooldown ends; whenever the store cannot answer, this breaker decides alone.

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

class SharedBreakerStore;
struct SharedBreakerState;

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
  /// Set before traffic starts: decide through `shared` (not owned; outlives this breaker)
  /// and mirror its state (read from the store at once); null = local only. Transitions the
  /// mirror makes to follow the store reach the listener like local ones.
  void set_shared(SharedBreakerStore* shared);

  Admission try_acquire() override;
  BreakerRecord record(const BreakerPermit& permit, bool failure, std::string_view outcome,
                      double latency_ms) override;
  BreakerSnapshot snapshot() override;
  /// Also clears the shared state, when shared.
  void reset() override;

  /// Resumes a persisted breaker: an open one keeps its remaining cooldown (capped at the
  /// configured one); one whose cooldown ran out while the lab was down comes back half-open.
  void restore(const BreakerRestore& saved);

  const BreakerPolicy& policy() const { return policy_; }

 private:
  void transition_locked(BreakerState to, SteadyTime now);
  // Follows the store's state: legal steps only (closed → open → half_open, open →
  // half_open → closed), then its counters and cooldown.
  void adopt_locked(const SharedBreakerState& shared, SteadyTime now);
  // Seeds the store from this breaker after it (re)connected (epoch changed).
  void resync_shared();
  // The shared admission, or nullopt to decide locally (store unavailable).
  std::optional<Admission> try_acquire_shared();
  // Seeds the store if needed, then mirrors its state (a read only).
  void pull_shared();
  // True while the local mirror is open: no round trip needed.
  bool open_locally();
  void refresh_locked(SteadyTime now);  // open → half_open once the cooldown has passed
  // Delivers pending_ to the listener in order, outside the lock, unless another caller
  // is already delivering (it then delivers ours too). Call without holding mutex_.
  void notify();

  const std::string name_;
  const BreakerPolicy policy_;
  const Clock& clock_;
  SharedBreakerStore* shared_ = nullptr;  // set before traffic; null = local only

  std::mutex mutex_;  // guards every field below
  Listener listener_;
  BreakerState state_ = BreakerState::closed;
  std::uint64_t generation_ = 0;
  int consecutive_failures_ = 0;
  SteadyTime open_until_{};
  bool probe_in_flight_ = false;
  SteadyTime probe_started_{};
  std::uint64_t open_events_ = 0;
  std::uint64_t short_circuit_count_ = 0;
  std::string last_outcome_;
  std::optional<double> last_latency_ms_;
  std::vector<BreakerTransition> pending_;  // filled under the lock in order, drained by notify()
  bool delivering_ = false;                 // a caller is running the listener on pending_
  std::uint64_t synced_epoch_ = 0;          // the store's epoch this breaker last seeded
  std::uint64_t shared_generation_ = 0;     // the newest store generation adopted
};

}  // namespace quote_lab
