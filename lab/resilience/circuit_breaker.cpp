#include "lab/resilience/circuit_breaker.hpp"

#include <algorithm>

#include "lab/base/name_table.hpp"

namespace quote_lab {
namespace {

constexpr NameTable<BreakerState, 3> kStateNames{{{
    {BreakerState::closed, "closed"},
    {BreakerState::open, "open"},
    {BreakerState::half_open, "half_open"},
}}};

// The legal transitions, in one place (as resilience4j lists them).
bool legal(BreakerState from, BreakerState to) {
  using S = BreakerState;
  return (from == S::closed && to == S::open) || (from == S::open && to == S::half_open) ||
         (from == S::half_open && to == S::closed) || (from == S::half_open && to == S::open);
}

}  // namespace

std::string_view to_string(BreakerState s) { return kStateNames.name(s); }

bool parse_breaker_state(std::string_view text, BreakerState& out) {
  const auto parsed = kStateNames.parse(text);
  if (parsed) out = *parsed;
  return parsed.has_value();
}

CircuitBreaker::CircuitBreaker(std::string name, BreakerPolicy policy, const Clock& clock)
    : name_(std::move(name)), policy_(policy), clock_(clock) {}

void CircuitBreaker::set_listener(Listener listener) {
  std::lock_guard lock(mutex_);
  listener_ = std::move(listener);
}

void CircuitBreaker::transition_locked(BreakerState to, SteadyTime now) {
  if (!legal(state_, to)) return;
  // The time-driven open → half_open change is noticed on the next read; date it to the
  // moment the cooldown ended, not to that read.
  const SteadyTime happened = (state_ == BreakerState::open && to == BreakerState::half_open) ? open_until_ : now;
  const WallTime at = clock_.wall_now() - std::chrono::duration_cast<WallTime::duration>(clock_.now() - happened);
  const BreakerState from = state_;
  state_ = to;
  ++generation_;
  pending_.push_back({name_, from, to, consecutive_failures_, at, generation_});
  probe_in_flight_ = false;
  if (to == BreakerState::open) {
    ++open_events_;
    const auto cooldown = std::chrono::duration_cast<SteadyTime::duration>(
        std::chrono::duration<double>(policy_.open_duration_s));
    open_until_ = now + cooldown;
    open_until_wall_ = at + std::chrono::duration_cast<WallTime::duration>(cooldown);
  } else if (to == BreakerState::closed) {
    consecutive_failures_ = 0;
  }
}

void CircuitBreaker::refresh_locked(SteadyTime now) {
  if (state_ == BreakerState::open && now >= open_until_)
    transition_locked(BreakerState::half_open, now);
  // A probe that never reports back (its caller died) must not wedge half-open forever:
  // after one cooldown the next caller may probe instead.
  if (state_ == BreakerState::half_open && probe_in_flight_ &&
      now - probe_started_ >= std::chrono::duration<double>(policy_.open_duration_s)) {
    probe_in_flight_ = false;
    ++generation_;
  }
}

std::uint64_t CircuitBreaker::follow(const SharedBreakerState& decided) {
  using S = BreakerState;
  std::uint64_t generation = 0;
  {
    std::lock_guard lock(mutex_);
    const SteadyTime now = clock_.now();
    consecutive_failures_ = decided.consecutive_failures;  // what the listener's log line reports
    if (state_ != decided.state) {
      // Two states apart: go through the middle one, so the listener sees legal steps only.
      if (state_ == S::closed && decided.state == S::half_open) transition_locked(S::open, now);
      if (state_ == S::open && decided.state == S::closed) transition_locked(S::half_open, now);
      transition_locked(decided.state, now);
    }
    // The store's counters and cooldown win over what the local steps computed.
    consecutive_failures_ = decided.consecutive_failures;
    open_events_ = decided.open_events;
    open_until_ = now + std::chrono::milliseconds(decided.cooldown_left_ms);
    open_until_wall_ = clock_.wall_now() + std::chrono::milliseconds(decided.cooldown_left_ms);
    generation = generation_;
  }
  notify();
  return generation;
}

std::uint64_t CircuitBreaker::generation() {
  std::lock_guard lock(mutex_);
  return generation_;
}

void CircuitBreaker::count_short_circuit() {
  std::lock_guard lock(mutex_);
  ++short_circuit_count_;
}

void CircuitBreaker::show_outcome(std::string_view outcome, double latency_ms) {
  std::lock_guard lock(mutex_);
  last_outcome_ = std::string(outcome);
  last_latency_ms_ = latency_ms;
}

BreakerState CircuitBreaker::state() {
  BreakerState now_state;
  {
    std::lock_guard lock(mutex_);
    refresh_locked(clock_.now());
    now_state = state_;
  }
  notify();
  return now_state;
}

void CircuitBreaker::notify() {
  std::unique_lock lock(mutex_);
  // Only one caller delivers at a time, and it delivers in the order the transitions were
  // queued under the lock; two callers each delivering their own batch could swap them.
  if (delivering_ || pending_.empty()) return;
  delivering_ = true;
  std::vector<BreakerTransition> batch;
  while (!pending_.empty()) {
    batch.clear();
    batch.swap(pending_);
    const Listener listener = listener_;
    lock.unlock();  // the listener logs, counts and persists: never under the state lock
    if (listener)
      for (const auto& t : batch) listener(t);
    lock.lock();
  }
  delivering_ = false;
}

Admission CircuitBreaker::try_acquire() {
  const SteadyTime now = clock_.now();
  Admission admission;
  {
    std::lock_guard lock(mutex_);
    refresh_locked(now);
    switch (state_) {
      case BreakerState::closed:
        admission.permit = BreakerPermit{generation_, false};
        break;
      case BreakerState::half_open:
        if (!probe_in_flight_) {
          probe_in_flight_ = true;
          probe_started_ = now;
          admission.permit = BreakerPermit{generation_, true};
        } else {
          admission.refusal = Reason::probe_in_flight;
        }
        break;
      case BreakerState::open:
        admission.refusal = Reason::circuit_open;
        break;
    }
    admission.refused = !admission.permit;
    if (admission.refused) ++short_circuit_count_;
  }
  notify();
  return admission;
}

BreakerRecord CircuitBreaker::record(const BreakerPermit& permit, bool failure,
                                    std::string_view outcome, double latency_ms) {
  BreakerRecord result{};
  const SteadyTime now = clock_.now();
  {
    std::lock_guard lock(mutex_);
    last_outcome_ = std::string(outcome);
    last_latency_ms_ = latency_ms;
    refresh_locked(now);
    // pending_ may still hold other callers' transitions, queued behind a delivery.
    const std::size_t queued_before = pending_.size();
    if (permit.generation == generation_) {
      if (state_ == BreakerState::half_open && permit.probe) {
        if (failure) {
          ++consecutive_failures_;
          transition_locked(BreakerState::open, now);
        } else {
          transition_locked(BreakerState::closed, now);
        }
      } else if (state_ == BreakerState::closed) {
        if (!failure) {
          consecutive_failures_ = 0;
        } else if (++consecutive_failures_ >= policy_.failure_threshold) {
          transition_locked(BreakerState::open, now);
        }
      }
    }
    result.state = state_;
    for (std::size_t i = queued_before; i < pending_.size(); ++i)
      result.opened_now |= pending_[i].to == BreakerState::open;
    result.snapshot = snapshot_locked(now);
  }
  notify();
  return result;
}

BreakerSnapshot CircuitBreaker::snapshot_locked(SteadyTime now) const {
  BreakerSnapshot s;
  s.name = name_;
  s.state = state_;
  s.consecutive_failures = consecutive_failures_;
  if (state_ != BreakerState::closed) {
    const auto left = std::max(SteadyTime::duration::zero(), open_until_ - now);
    s.opened_until = open_until_wall_;
    if (state_ == BreakerState::open) s.cooldown_left_ms = std::chrono::ceil<Millis>(left).count();
  }
  s.open_events = open_events_;
  s.short_circuit_count = short_circuit_count_;
  s.last_outcome = last_outcome_;
  s.last_latency_ms = last_latency_ms_;
  return s;
}

BreakerSnapshot CircuitBreaker::snapshot() {
  const SteadyTime now = clock_.now();
  BreakerSnapshot s;
  {
    std::lock_guard lock(mutex_);
    refresh_locked(now);
    s = snapshot_locked(now);
  }
  notify();
  return s;
}

void CircuitBreaker::reset() {
  std::lock_guard lock(mutex_);
  state_ = BreakerState::closed;
  ++generation_;
  consecutive_failures_ = 0;
  probe_in_flight_ = false;
  open_events_ = 0;
  short_circuit_count_ = 0;
  last_outcome_.clear();
  last_latency_ms_.reset();
}

void CircuitBreaker::restore(const BreakerRestore& saved) {
  const SteadyTime now = clock_.now();
  const WallTime wall = clock_.wall_now();
  std::lock_guard lock(mutex_);
  ++generation_;
  probe_in_flight_ = false;
  consecutive_failures_ = std::max(0, saved.consecutive_failures);
  open_events_ = saved.open_events;
  short_circuit_count_ = saved.short_circuit_count;
  last_outcome_ = saved.last_outcome;
  last_latency_ms_ = saved.last_latency_ms;
  state_ = saved.state;
  if (state_ == BreakerState::closed) return;
  // Never longer than the configured cooldown, whatever the file or the wall clock says.
  const auto cooldown = std::chrono::duration_cast<SteadyTime::duration>(
      std::chrono::duration<double>(policy_.open_duration_s));
  auto left = saved.opened_until
                  ? std::chrono::duration_cast<SteadyTime::duration>(*saved.opened_until - wall)
                  : SteadyTime::duration::zero();
  left = std::clamp(left, SteadyTime::duration::zero(), cooldown);
  // A half-open breaker had its probe cut short by the restart, and an open one whose
  // cooldown ran out while the lab was down has nothing left to wait for: both resume
  // half-open, ready for one probe.
  open_until_ = now + left;
  // The deadline the file holds, exactly, when it is the one kept: every answer before and
  // after the restart shows the same opened_until.
  const bool kept = saved.opened_until && left > SteadyTime::duration::zero() && left < cooldown;
  open_until_wall_ = kept ? *saved.opened_until : wall + std::chrono::duration_cast<WallTime::duration>(left);
  state_ = (saved.state == BreakerState::open && left > SteadyTime::duration::zero())
               ? BreakerState::open
               : BreakerState::half_open;
}

}  // namespace quote_lab
