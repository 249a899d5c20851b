#pragma once
// The breaker's state machine as one table of (state, event) → state rows (SPEC.md,
// "Breaker semantics"), run by `breaker_transition_table` against both implementations:
// the local CircuitBreaker (lab/resilience/circuit_breaker.cpp, on a fake clock) and the
// store replicas share (lab/shared_state/redis_breaker_store.cpp, its Lua on a real
// redis-server). A row changed in either one fails its run: the two cannot drift apart.
//
// A breaker under test is a driver (BreakerDriver): the runner brings a fresh breaker to
// the row's starting state through public calls only, applies the event, and compares
// what the caller sees — the admission's verdict, the state and the failure count after.

#include <doctest/doctest.h>

#include <memory>
#include <optional>
#include <string>

#include "lab/resilience/breaker.hpp"

namespace quote_lab::testing {

/// The failure threshold every row assumes.
inline constexpr int kTableThreshold = 3;

/// One breaker behind the calls the table needs. Verdicts: "call", "probe", "open",
/// "probe_busy". `record` uses the permit of the last admission.
class BreakerDriver {
 public:
  virtual ~BreakerDriver() = default;
  virtual std::string acquire() = 0;
  virtual void record(bool failure) = 0;
  /// The cooldown ends, as the implementation's own clock sees it.
  virtual void end_cooldown() = 0;
  /// The probe's holder died: its permit lapses, as after one cooldown.
  virtual void expire_probe() = 0;
  virtual void reset() = 0;
  /// Keeps the last admission's permit aside; record_held reports with it later.
  virtual void hold() = 0;
  virtual void record_held(bool failure) = 0;
  /// "closed", "open" or "half_open".
  virtual std::string state() = 0;
  virtual int failures() = 0;
};

/// A driver over the Breaker interface the lab's quote flow uses; only how time passes is
/// left to each implementation.
class BreakerInterfaceDriver : public BreakerDriver {
 public:
  std::string acquire() override {
    const Admission a = breaker().try_acquire();
    if (a.permit) {
      permit_ = a.permit;
      return a.permit->probe ? "probe" : "call";
    }
    return a.refusal == Reason::probe_in_flight ? "probe_busy" : "open";
  }
  void record(bool failure) override { report(permit_, failure); }
  void reset() override { breaker().reset(); }
  void hold() override { held_ = permit_; }
  void record_held(bool failure) override { report(held_, failure); }
  std::string state() override { return std::string(to_string(breaker().snapshot().state)); }
  int failures() override { return breaker().snapshot().consecutive_failures; }

 protected:
  virtual Breaker& breaker() = 0;
  /// The permit of the last admission.
  const std::optional<BreakerPermit>& permit() const { return permit_; }

 private:
  void report(const std::optional<BreakerPermit>& permit, bool failure) {
    REQUIRE(permit.has_value());
    breaker().record(*permit, failure, failure ? "timeout" : "success", 10);
  }
  std::optional<BreakerPermit> permit_, held_;
};

enum class From { closed, closed_2_failures, open, half_open, probing };
enum class Event {
  call_succeeds,   // admitted, then a success recorded
  call_fails,      // admitted, then a failure recorded
  caller_asks,     // an admission only
  cooldown_ends,   // time passes
  probe_succeeds,  // the held probe's success
  probe_fails,     // the held probe's failure
  probe_lapses,    // the probe's holder died; the next caller asks
  late_success,    // a call admitted before the breaker opened reports a success
  reset,           // the lab's reset
};

struct TransitionRow {
  const char* story;
  From from;
  Event event;
  const char* verdict;  // the admission's verdict for events that ask, "" otherwise
  const char* to;
  int failures_after;
};

// The table. Threshold 3 consecutive failures; one probe in half-open.
inline const TransitionRow kTransitionRows[] = {
    {"a success in closed keeps it closed", From::closed, Event::call_succeeds, "call", "closed", 0},
    {"a success clears the count", From::closed_2_failures, Event::call_succeeds, "call", "closed", 0},
    {"a failure below the threshold counts", From::closed, Event::call_fails, "call", "closed", 1},
    {"the threshold-th failure opens it", From::closed_2_failures, Event::call_fails, "call", "open", 3},
    {"open refuses a caller", From::open, Event::caller_asks, "open", "open", 3},
    {"open becomes half-open when the cooldown ends", From::open, Event::cooldown_ends, "", "half_open", 3},
    {"half-open gives the first caller the probe", From::half_open, Event::caller_asks, "probe", "half_open", 3},
    {"a second caller is refused while the probe is out", From::probing, Event::caller_asks, "probe_busy",
     "half_open", 3},
    {"the probe's success closes it", From::probing, Event::probe_succeeds, "", "closed", 0},
    {"the probe's failure reopens it", From::probing, Event::probe_fails, "", "open", 4},
    {"a lapsed probe lets the next caller probe", From::probing, Event::probe_lapses, "probe", "half_open", 3},
    {"a call admitted before it opened cannot close it", From::open, Event::late_success, "", "open", 3},
    {"reset closes an open breaker", From::open, Event::reset, "", "closed", 0},
    {"reset closes a probing breaker", From::probing, Event::reset, "", "closed", 0},
};

inline void fail_once(BreakerDriver& b) {
  REQUIRE(b.acquire() == "call");
  b.record(true);
}

// Brings a fresh breaker to `from` through public calls.
inline void bring_to(BreakerDriver& b, From from) {
  switch (from) {
    case From::closed: break;
    case From::closed_2_failures: fail_once(b); fail_once(b); break;
    case From::open: for (int i = 0; i < kTableThreshold; ++i) fail_once(b); break;
    case From::half_open: bring_to(b, From::open); b.end_cooldown(); break;
    case From::probing: bring_to(b, From::half_open); REQUIRE(b.acquire() == "probe"); break;
  }
}

/// Runs every row against breakers made by `make` (a fresh one per row).
template <class Make>
void run_transition_table(Make make) {
  for (const TransitionRow& row : kTransitionRows) {
    const std::string story = row.story;  // doctest shows a std::string, not a pointer
    CAPTURE(story);
    std::unique_ptr<BreakerDriver> b = make();
    std::string verdict;
    if (row.event == Event::late_success) {
      // Admitted while closed, reported after the breaker opened (row.from).
      REQUIRE(b->acquire() == "call");
      b->hold();
      bring_to(*b, row.from);
      b->record_held(false);
    } else {
      bring_to(*b, row.from);
      switch (row.event) {
        case Event::call_succeeds: verdict = b->acquire(); b->record(false); break;
        case Event::call_fails: verdict = b->acquire(); b->record(true); break;
        case Event::caller_asks: verdict = b->acquire(); break;
        case Event::cooldown_ends: b->end_cooldown(); break;
        case Event::probe_succeeds: b->record(false); break;
        case Event::probe_fails: b->record(true); break;
        case Event::probe_lapses: b->expire_probe(); verdict = b->acquire(); break;
        case Event::reset: b->reset(); break;
        case Event::late_success: break;
      }
    }
    CHECK(verdict == std::string(row.verdict));
    CHECK(b->state() == std::string(row.to));
    CHECK(b->failures() == row.failures_after);
  }
}

}  // namespace quote_lab::testing
