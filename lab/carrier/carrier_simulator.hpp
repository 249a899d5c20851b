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
#include "lab/carrier/scenario.hpp"
#include "lab/resilience/quote.hpp"

namespace quote_lab {

/// What the carrier will do with one call.
struct CarrierCall {
  const Scenario* scenario = nullptr;
  int attempt = 1;           ///< how many times this Idempotency-Key has been seen, this call included
  AttemptBehaviour behaviour;
  Millis delay{0};           ///< the latency drawn for an answer, or the hang time
};

/// Counters of calls the carrier received.
struct CarrierStats {
  std::string mode;                                       ///< canonical scenario name
  std::map<std::string, std::uint64_t> calls_by_scenario; ///< every known scenario, 0 included
  std::uint64_t calls_total = 0;
  int in_flight = 0;       ///< calls being served now
  int peak_in_flight = 0;  ///< highest in_flight since start or reset
  std::uint64_t wasted_calls = 0;  ///< calls finished after the caller's deadline (it had given up)
  double wasted_seconds = 0;       ///< carrier time spent on those calls
};

/// {"mode", "calls_total", "calls_by_scenario", "in_flight", "peak_in_flight"}
nlohmann::ordered_json to_json(const CarrierStats& s);

/// Thread-safe carrier state. One mutex guards the mode, the attempt counts and the stats.
class CarrierSimulator {
 public:
  /// Remembers attempt counts for this many request ids (oldest forgotten first).
  static constexpr std::size_t kMaxTrackedRequests = 20000;

  CarrierSimulator(const ScenarioCatalog& catalog, RandomSource& random);

  /// Plans one call. `scenario` (name or alias) empty means the current mode; an empty
  /// `idempotency_key` makes every call attempt 1. nullopt for an unknown scenario.
  std::optional<CarrierCall> plan(std::string_view scenario, std::string_view idempotency_key);

  /// A live quote priced now. Ids are unique within a run ("Q-<run>-<n>").
  Quote price(int customer_id, int items, WallTime now);

  /// The scenario used for requests that name none (canonical name).
  std::string mode() const;
  /// Sets the mode by name or alias; false if unknown.
  bool set_mode(std::string_view name_or_alias);

  /// Marks a call as being served / finished (in-flight gauge and its peak). `wasted`:
  /// the caller's deadline had passed when the carrier finished; `spent`: the carrier's
  /// time on the call.
  void begin_call();
  void end_call(bool wasted = false, Millis spent = Millis::zero());

  CarrierStats stats() const;
  /// Forgets attempt counts and stats and returns to the `ok` mode.
  void reset();

  const ScenarioCatalog& catalog() const { return catalog_; }

 private:
  int count_attempt_locked(std::string_view key);

  const ScenarioCatalog& catalog_;
  RandomSource& random_;
  const std::uint64_t run_id_;

  mutable std::mutex mutex_;  // guards everything below
  std::string mode_;
  std::unordered_map<std::string, int> attempts_;
  std::deque<std::string> attempt_order_;  // FIFO eviction of attempts_
  std::map<std::string, std::uint64_t> calls_by_scenario_;
  std::uint64_t calls_total_ = 0;
  std::uint64_t quotes_priced_ = 0;
  int in_flight_ = 0;
  int peak_in_flight_ = 0;
  std::uint64_t wasted_calls_ = 0;
  double wasted_seconds_ = 0;
};

}  // namespace quote_lab
