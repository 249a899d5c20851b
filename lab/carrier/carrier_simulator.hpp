#pragma once
// The simulated carrier's behaviour, apart from HTTP: which scenario plays, which attempt
// this is for a request id, how long it takes, how it is priced, and what it has seen.
// carrier_server.cpp puts it behind a real HTTP listener.

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "lab/base/clock.hpp"
#include "lab/base/random.hpp"
#include "lab/carrier/booking_ledger.hpp"
#include "lab/carrier/metastable_episode.hpp"
#include "lab/carrier/scenario.hpp"
#include "lab/carrier/shedding_stations.hpp"
#include "lab/resilience/quote.hpp"

namespace quote_lab {

/// What the carrier will do with one call.
struct CarrierCall {
  const Scenario* scenario = nullptr;
  int attempt = 1;           ///< how many times this logical quote has been seen, this call included
  AttemptBehaviour behaviour;  ///< the behaviour that plays: a drawn fault, a metastable phase, or the attempt's
  Millis delay{0};           ///< the latency drawn for an answer, or the hang time
  /// A call to a metastable scenario: the lab whose episode it belongs to (its calls in
  /// flight fill that episode's capacity); nullopt for any other scenario.
  std::optional<std::string> episode;
  /// A call to a shedding scenario: the lab whose station it goes through (enter_station);
  /// nullopt for any other scenario.
  std::optional<std::string> station_lab;
  std::string lab;         ///< the calling lab (CallerIds::lab): whose counters the call moves
  std::string station;     ///< set by enter_station: the station's key (empty: none)
  std::uint64_t ticket = 0;  ///< set by enter_station: the call's ticket at the station
};

/// Who is calling: the logical quote (trace id of `traceparent`) and its Idempotency-Key.
/// Attempts are counted per trace id, else per key, else every call is attempt 1, so a
/// scenario plays the same whatever key a policy sends. `lab`: the calling lab
/// (X-Quote-Lab; empty for the teacher's), whose metastable episode a call plays.
struct CallerIds {
  std::string_view trace_id;
  std::string_view idempotency_key;
  std::string_view lab = {};
};

/// Counters of calls the carrier received: from every lab (CarrierSimulator::stats), or from
/// one lab's calls only (stats_for).
struct CarrierStats {
  std::string mode;                                       ///< canonical scenario name
  std::map<std::string, std::uint64_t> calls_by_scenario; ///< every known scenario, 0 included
  std::uint64_t calls_total = 0;
  int in_flight = 0;       ///< calls being served now
  int peak_in_flight = 0;  ///< highest in_flight since start or reset
  std::uint64_t wasted_calls = 0;  ///< calls finished after the caller's deadline (it had given up)
  double wasted_seconds = 0;       ///< carrier time spent on those calls
  std::uint64_t refused_calls = 0; ///< attempts refused before they connected (scenario "refused")
  std::uint64_t overloaded_calls = 0;  ///< calls beyond a metastable scenario's capacity
  std::uint64_t bookings = 0;          ///< quotes priced (booked), replays not included
  std::uint64_t duplicate_bookings = 0;  ///< bookings of a logical quote after its first
  std::uint64_t idempotent_replays = 0;  ///< calls answered with a kept booking
  std::uint64_t deadline_dropped = 0;    ///< calls dropped at the caller's total deadline
  /// Calls a shedding scenario's carrier shed, by reason (every reason of kShedReasons).
  std::map<std::string, std::uint64_t> shed_calls;
  int queued = 0;  ///< calls waiting in the shedding stations' queues now
};

/// {"mode", "calls_total", "calls_by_scenario", "in_flight", "peak_in_flight", "wasted_calls",
/// "wasted_seconds", "refused_calls", "overloaded_calls", "bookings", "duplicate_bookings",
/// "idempotent_replays", "deadline_dropped", "shed_calls": {reason: n}, "queued"}
nlohmann::ordered_json to_json(const CarrierStats& s);

/// Thread-safe carrier state. One mutex guards the mode, the attempt counts and the stats.
class CarrierSimulator {
 public:
  /// Remembers attempt counts for this many request ids (oldest forgotten first).
  static constexpr std::size_t kMaxTrackedRequests = 20000;
  /// Labs counted one by one (stats_for): past it, a new name's calls count only in stats().
  /// The lab holds at most 1,000 student labs (--max-labs), each counted while it lives.
  static constexpr std::size_t kMaxCountedLabs = 4096;

  CarrierSimulator(const ScenarioCatalog& catalog, RandomSource& random);

  /// Plans one call at `now`. `scenario` (name or alias) empty means the current mode;
  /// without ids every call is attempt 1. A behaviour with "faults" draws one of them; a
  /// metastable scenario plays the calling lab's episode (metastable_episode.hpp): "down"
  /// for down_ms after the lab's first call since its episode (re)started, then "overload"
  /// for a call beyond capacity. A 429 with a Retry-After in seconds keeps its word: the
  /// same logical quote calling again that long after the 429 was sent is served (a 200
  /// after the 429's own latency); sooner, it gets another 429. nullopt for an unknown
  /// scenario.
  std::optional<CarrierCall> plan(std::string_view scenario, CallerIds ids, SteadyTime now = {});
  /// The same with only an Idempotency-Key (no trace id).
  std::optional<CarrierCall> plan(std::string_view scenario, std::string_view idempotency_key) {
    return plan(scenario, CallerIds{{}, idempotency_key});
  }

  /// Asked by the lab's client before it connects: true when this attempt's behaviour is
  /// "refused", in which case the attempt is counted here (the carrier will never see it)
  /// and the client connects to the refusing port instead. False changes nothing.
  bool take_refusal(std::string_view scenario, CallerIds ids);

  /// A live quote priced now. Ids are unique within a run ("Q-<run>-<n>").
  Quote price(int customer_id, int items, WallTime now);

  /// A booking at the end of a call's work: the booking already made under `ids`'
  /// Idempotency-Key (replayed: true), else a new one, counted per logical quote
  /// (booking_ledger.hpp). `steady_now` ages the kept keys.
  struct Booking {
    Quote quote;
    bool replayed = false;
  };
  Booking book(int customer_id, int items, CallerIds ids, WallTime now, SteadyTime steady_now);

  /// A call from `lab` dropped because the caller's total deadline (X-Request-Deadline-Unix-Ms)
  /// had passed on arrival or passed during its work: nothing was booked.
  void count_deadline_drop(std::string_view lab = {});

  /// The scenario used for requests that name none (canonical name).
  std::string mode() const;
  /// Sets the mode by name or alias; false if unknown. Restarts the teacher's (lab "")
  /// metastable episode and shedding stations: a metastable mode goes down again from its
  /// next call, a shedding mode's trigger starts again.
  bool set_mode(std::string_view name_or_alias);

  /// A lab's metastable episode and shedding stations start again with its next call (a
  /// student lab's reset or carrier mode; the teacher's go through reset() and set_mode()).
  void restart_episode(std::string_view lab);
  /// The lab's metastable episode at `now` (GET /carrier), nullopt when it has none.
  std::optional<MetastableView> episode(std::string_view lab, SteadyTime now) const;

  /// A call planned for a shedding scenario (station_lab set) arrives at its lab's station
  /// (shedding_stations.hpp): serve, wait, or shed. Sets the call's station and ticket.
  StationTurn enter_station(CarrierCall& call, Priority priority, SteadyTime now);
  /// A waiting call's turn now (SheddingStation::poll).
  StationTurn station_turn(const CarrierCall& call, SteadyTime now);
  /// A call leaves its station unserved (the carrier stops while it waits).
  void leave_station(const CarrierCall& call, SteadyTime now);
  /// The lab's shedding station at `now` (GET /carrier), nullopt when it has none.
  std::optional<StationView> station(std::string_view lab, SteadyTime now) const;
  /// The carrier serves with `workers` threads: the stations hold at most workers −
  /// kSpareCarrierWorkers calls (at least 1).
  void set_carrier_workers(int workers);

  /// Marks a call as being served / finished (in-flight gauge and its peak). `wasted`:
  /// the caller's deadline had passed when the carrier finished; `spent`: the carrier's
  /// time on the call.
  void begin_call();
  void end_call(bool wasted = false, Millis spent = Millis::zero());
  /// The same for a planned call: a metastable call also counts in its lab's episode.
  /// A station's call frees its place at `now` (its end; the default suits calls without one).
  void begin_call(const CarrierCall& call);
  void end_call(const CarrierCall& call, bool wasted = false, Millis spent = Millis::zero(), SteadyTime now = {});

  /// The counters of every lab's calls together (the carrier's own view: its /stats).
  CarrierStats stats() const;
  /// The counters of `lab`'s calls only (X-Quote-Lab; "" for the teacher's), with the mode
  /// and the queue of `lab`'s shedding stations: one student's calls never show in another's.
  CarrierStats stats_for(std::string_view lab) const;
  /// `lab`'s counters start again from zero (its reset); its calls in flight stay counted.
  void reset_counts(std::string_view lab);
  /// Forgets attempt counts and stats and returns to the `ok` mode; every shedding station
  /// starts again (calls waiting or in service keep their places).
  void reset();

  const ScenarioCatalog& catalog() const { return catalog_; }

 private:
  int count_attempt_locked(CallerIds ids);
  int peek_attempt_locked(CallerIds ids) const;
  const Scenario* find_locked(std::string_view scenario) const;

  const ScenarioCatalog& catalog_;
  RandomSource& random_;
  const std::uint64_t run_id_;

  mutable std::mutex mutex_;  // guards everything below
  std::string mode_;
  // What the carrier remembers of one logical quote: its calls, and when a 429 it got said
  // to come back (kept with the count so both are forgotten together).
  struct Seen {
    int attempts = 0;
    std::optional<SteadyTime> come_back_at;
  };
  Seen* seen_locked(CallerIds ids);
  std::unordered_map<std::string, Seen> attempts_;
  std::deque<std::string> attempt_order_;  // FIFO eviction of attempts_
  std::uint64_t quotes_priced_ = 0;
  // The counters of CarrierStats, kept for every lab together and for each lab alone; the
  // bookings, kept by the ledger for all, are counted here per lab.
  struct Counts {
    std::map<std::string, std::uint64_t> calls_by_scenario;
    std::uint64_t calls_total = 0;
    int in_flight = 0;
    int peak_in_flight = 0;
    std::uint64_t wasted_calls = 0;
    double wasted_seconds = 0;
    std::uint64_t refused_calls = 0;
    std::uint64_t overloaded_calls = 0;
    std::uint64_t bookings = 0;
    std::uint64_t duplicate_bookings = 0;
    std::uint64_t idempotent_replays = 0;
    std::uint64_t deadline_dropped = 0;
    std::map<std::string, std::uint64_t> shed_calls;
  };
  Counts zero_counts_locked() const;  // every scenario and shed reason at 0
  // Applies `change` to the counts of every lab together and to `lab`'s own.
  template <typename Change>
  void count_locked(std::string_view lab, Change change);
  CarrierStats to_stats_locked(const Counts& c, int queued) const;
  Counts all_;
  std::map<std::string, Counts, std::less<>> by_lab_;
  MetastableEpisodes episodes_;
  SheddingStations stations_;
  void count_shed_locked(std::string_view lab, const StationTurn& turn);
  BookingLedger ledger_;
};

}  // namespace quote_lab
