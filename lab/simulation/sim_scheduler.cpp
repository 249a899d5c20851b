#include "lab/simulation/sim_scheduler.hpp"

#include <stdexcept>
#include <string>

namespace quote_lab {

namespace {
// Thrown into a fiber still waiting when its scheduler goes: it unwinds the fiber's stack, so
// everything on it is destroyed, and ends it. Not an error anyone handles.
struct FiberAborted {};
}  // namespace

SimScheduler::~SimScheduler() { unwind(); }

void SimScheduler::unwind() {
  if (current_) throw std::logic_error("simulation: unwind() from inside a fiber");
  aborting_ = true;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    Slot& s = slots_[i];
    if (s.free || !s.fiber->started() || s.fiber->ended()) continue;
    current_ = i;
    try {
      s.fiber->resume();
    } catch (...) {  // its FiberAborted, come back out: the fiber has ended
    }
    current_.reset();
    Slot& after = slots_[i];
    after.free = true;
    ++after.wait;  // its queued events are stale
    free_slots_.push_back(i);
    --live_;
  }
  aborting_ = false;
}

void SimScheduler::push(SteadyTime at, std::size_t slot, std::uint64_t wait, bool woken) {
  events_.push(Event{at, next_order_++, slot, wait, woken});
}

SimScheduler::Slot& SimScheduler::current_slot() {
  if (!current_) throw std::logic_error("simulation: a wait outside the scheduler's fibers");
  return slots_[*current_];
}

void SimScheduler::spawn(std::function<void()> body) {
  std::size_t slot = 0;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[slot].fiber->reset(std::move(body));
  } else {
    slot = slots_.size();
    slots_.push_back(Slot{std::make_unique<Fiber>(std::move(body))});
  }
  slots_[slot].free = false;
  ++live_;
  push(now_, slot, slots_[slot].wait, false);
}

SimScheduler::Waker SimScheduler::waker() const {
  if (!current_) throw std::logic_error("simulation: a wait outside the scheduler's fibers");
  return {*current_, slots_[*current_].wait};
}

bool SimScheduler::park_until(std::optional<SteadyTime> deadline) {
  Slot& s = current_slot();
  if (deadline) push(std::max(*deadline, now_), *current_, s.wait, false);
  Fiber& fiber = *s.fiber;
  fiber.suspend();
  if (aborting_) throw FiberAborted{};
  return current_slot().woken;
}

bool SimScheduler::wake(const Waker& w) {
  if (w.slot >= slots_.size() || slots_[w.slot].free || slots_[w.slot].wait != w.wait) return false;
  push(now_, w.slot, w.wait, true);
  return true;
}

void SimScheduler::run() {
  if (current_) throw std::logic_error("simulation: run() from inside a fiber");
  while (!events_.empty()) {
    const Event e = events_.top();
    events_.pop();
    Slot& s = slots_[e.slot];
    if (s.free || s.wait != e.wait) continue;  // that wait ended another way
    ++s.wait;
    s.woken = e.woken;
    now_ = e.at;
    current_ = e.slot;
    try {
      s.fiber->resume();
    } catch (...) {
      current_.reset();
      --live_;
      slots_[e.slot].free = true;
      throw;
    }
    current_.reset();
    Slot& after = slots_[e.slot];  // spawn() may have grown the vector
    if (after.fiber->ended()) {
      after.free = true;
      ++after.wait;  // events still queued for it are stale
      free_slots_.push_back(e.slot);
      --live_;
    }
  }
  if (live_ > 0)
    throw std::logic_error("simulation: " + std::to_string(live_) + " fibers wait with nothing to wake them");
}

}  // namespace quote_lab
