#pragma once
// One calling lab's place at a carrier that sheds load (a scenario's "shedding" block):
// which call is served, which waits and in what order, and which is shed and why. Pure
// logic on the times it is given, so every decision is tested exactly on a fake clock; the
// carrier server holds a real worker thread while a call waits (carrier_server.cpp).
//
// - At most capacity_at(now) calls are in service. A call that finds a place starts at once;
//   else it waits in the queue, if the queue has room; else it is shed at once (queue_full).
// - Service order when a place frees: fifo and codel the oldest waiting call, lifo the
//   newest, adaptive_lifo the newest while the queue is congested, else the oldest.
// - codel and adaptive_lifo (Facebook, "Fail at Scale", ACM Queue 2015, whose pseudo-code
//   sets each call's limit as it is queued): a call queued while the queue has not been
//   empty for more than interval_ms (congested) may wait target_ms, any other interval_ms;
//   a call that has waited its limit is dropped (codel). Adaptive LIFO is Facebook's
//   companion to it: newest first while congested, so the calls served are the ones most
//   likely still wanted. fifo and lifo never drop a waiting call, even one whose caller has
//   given up: serving it is the wasted work that makes a FIFO carrier collapse.
// - Priorities (Netflix's prioritised load shedding; Stripe's shedder keeps 20 % for
//   critical traffic): a sheddable call starts service only while fewer than
//   ceil(capacity_at(now) × (1 − critical_share)) calls are in service, so the rest is kept
//   for critical calls; a critical call that finds the queue full takes the place of the
//   oldest waiting sheddable call (shed: priority); a sheddable call that finds the queue
//   full while a place is free but kept for critical calls is shed for its priority.
// - The trigger (optional): from trigger.after_ms after the first call since the station
//   (re)started, for trigger.length_ms, capacity_at() is round(capacity × (1 −
//   capacity_drop)); calls already in service finish, and no call starts until the count
//   is below it.
// Events are settled in time order before each decision: a place that a trigger's end gives
// back at t goes to a call still waiting at t, and a call whose limit passed first is
// dropped first; a drop and an admission at the same instant drop first.
// Not thread-safe: CarrierSimulator holds it under its mutex.

#include <cstdint>
#include <deque>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lab/base/clock.hpp"
#include "lab/carrier/scenario_shedding.hpp"
#include "lab/resilience/vocabulary.hpp"

namespace quote_lab {

/// Why a call was shed.
enum class ShedReason {
  queue_full,   ///< no place and no room in the queue
  codel,        ///< it waited the longest CoDel allows it
  priority,     ///< a sheddable call gave way to critical ones
  workers_busy  ///< the carrier's queues hold every worker thread they may (SheddingStations)
};
inline constexpr ShedReason kShedReasons[] = {ShedReason::queue_full, ShedReason::codel, ShedReason::priority,
                                              ShedReason::workers_busy};
/// "queue_full", "codel", "priority" or "workers_busy" (the metric's `reason` label).
std::string_view to_string(ShedReason r);

/// What happens to one call now.
struct StationTurn {
  enum class Kind { serve, wait, shed };
  Kind kind = Kind::serve;
  std::uint64_t ticket = 0;
  ShedReason reason = ShedReason::queue_full;  ///< shed only
  /// wait: ask again by then at the latest (its limit, or the trigger's end); nullopt: only
  /// a finished call can change its turn.
  std::optional<SteadyTime> wake_at{};
  Millis waited{0};        ///< shed by codel: how long it waited
  Millis allowed_wait{0};  ///< shed by codel: its limit
  int queued = 0;          ///< shed: the calls waiting when it was decided
  int queue_max = 0;       ///< shed: the queue's room
  int held = 0;            ///< shed for workers_busy: the calls every station held
};

/// The station as GET /carrier shows it.
struct StationView {
  std::string scenario;
  std::string discipline;
  int capacity = 0;        ///< as declared
  int capacity_now = 0;    ///< lowered while the trigger runs
  int sheddable_limit = 0; ///< in service below which a sheddable call may start
  int in_service = 0;
  int queued = 0;
  int queue_max = 0;
  bool congested = false;  ///< the queue has not been empty for more than interval_ms
  bool trigger_running = false;
  std::uint64_t served = 0;  ///< calls that started service since the (re)start
  std::uint64_t wasted = 0;  ///< of those, finished after their caller's deadline
  std::map<std::string, std::uint64_t> shed;  ///< by reason, every reason listed
};

/// One lab's station for one scenario (see the file header).
class SheddingStation {
 public:
  SheddingStation(std::string scenario, const Shedding& config);

  /// A call arrives with `ticket` (unique, chosen by the caller): served now, queued
  /// (wait), or shed. The first arrival since the (re)start starts the trigger's clock.
  StationTurn arrive(std::uint64_t ticket, Priority priority, SteadyTime now);
  /// A waiting call asks again: serve once a place was given to it, shed when it was
  /// dropped, else wait. An unknown ticket (the station was never told) is served.
  StationTurn poll(std::uint64_t ticket, SteadyTime now);
  /// A served call ends; its place goes to the next waiting call. `wasted`: its caller's
  /// deadline had passed.
  void finish(std::uint64_t ticket, bool wasted, SteadyTime now);
  /// A call leaves without being served, or leaves its place unused (the server stops).
  void leave(std::uint64_t ticket, SteadyTime now);
  /// Counts a call shed before it reached the station (workers_busy).
  void count_shed(ShedReason reason) { ++shed_[static_cast<int>(reason)]; }

  /// The trigger's clock starts again with the next call and the counts restart; calls in
  /// service or waiting stay.
  void restart();
  /// Calls in service or waiting: the carrier worker threads this station holds.
  int held() const { return static_cast<int>(serving_.size() + waiting_.size()); }
  /// Calls waiting now.
  int queued() const { return static_cast<int>(waiting_.size()); }
  /// The capacity at `t` (lowered while the trigger runs).
  int capacity_at(SteadyTime t) const;
  StationView view(SteadyTime now) const;

 private:
  struct Waiter {
    std::uint64_t ticket = 0;
    Priority priority = Priority::critical;
    SteadyTime since{};
    std::optional<SteadyTime> expires{};  // codel's limit
  };
  SteadyTime settle(SteadyTime now);
  void admit(SteadyTime t);
  void drop_expired(SteadyTime t);
  bool startable(Priority p, SteadyTime t) const;
  std::optional<std::size_t> next_to_serve(SteadyTime t) const;
  bool congested(SteadyTime t) const;
  std::optional<SteadyTime> trigger_end() const;
  std::optional<SteadyTime> wake_at(const Waiter& w, SteadyTime now) const;
  StationTurn shed(std::uint64_t ticket, ShedReason reason);
  void queue_changed(SteadyTime t);

  std::string scenario_;
  Shedding config_;
  std::optional<SteadyTime> since_;     // the first call since the (re)start: the trigger's clock
  SteadyTime settled_{};                // events are settled up to here
  std::deque<Waiter> waiting_;          // in arrival order
  std::optional<SteadyTime> nonempty_since_;  // when the queue last stopped being empty
  std::set<std::uint64_t> serving_;     // in service, admitted waiters not yet told included
  std::map<std::uint64_t, StationTurn> decided_;  // waiters served or shed, not yet told
  std::uint64_t served_ = 0;
  std::uint64_t wasted_ = 0;
  std::uint64_t shed_[4] = {};
};

/// {"scenario", "discipline", "capacity", "capacity_now", "sheddable_limit", "in_service",
/// "queued", "queue_max", "congested", "trigger_running", "served", "wasted", "shed": {reason: n}}
nlohmann::ordered_json to_json(const StationView& v);

}  // namespace quote_lab
