#pragma once
// The lab's memory of recent quote flows: incidents in a ring buffer and, per mode and
// per scenario, counters and a bounded window of latencies for percentiles. Bounded in
// size, no file I/O; fed only from QuoteTrace (the one record of what happened).

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lab/resilience/domain.hpp"
#include "lab/resilience/quote_trace.hpp"

namespace quote_lab {

/// One quote flow as listed by /incidents.
struct Incident {
  std::string request_id;
  std::string mode;  ///< the policy's name (QuoteRequest::mode)
  std::string scenario;
  QuoteStatus status;
  int attempts;
  int retries;
  int timeout_count;
  bool fallback_used;
  bool short_circuited;  ///< the breaker refused the first attempt
  double elapsed_ms;
  WallTime timestamp;
  double queue_ms = 0;   ///< waited for a worker before the flow ran
  bool cancelled = false;  ///< its client left before it ended (a `cancelled` step)
};

/// What the telemetry keeps of one finished flow: its incident and the two counts the
/// incident does not show. Replicas that share a class exchange these (class_log.hpp).
struct FlowRecord {
  Incident incident;
  int short_circuits = 0;   ///< attempts the breaker refused
  bool circuit_opened = false;  ///< the flow opened the breaker
};

/// The record of `trace`, which waited `queue_ms` for a worker before it ran.
FlowRecord flow_record(const QuoteTrace& trace, double queue_ms = 0);

/// p50/p95/p99/max of a latency sample (nearest-rank); all null when there is no data.
struct LatencySummary {
  std::size_t count = 0;
  std::optional<double> p50_ms, p95_ms, p99_ms, max_ms;
};

/// Nearest-rank percentiles of `samples_ms` (copied, sorted).
LatencySummary summarize_latency(std::vector<double> samples_ms);

/// Counters of one (mode) or one (mode, scenario).
struct FlowCounters {
  std::uint64_t requests = 0;
  std::uint64_t completed = 0;   ///< live quote
  std::uint64_t degraded = 0;    ///< fallback quote
  std::uint64_t failed = 0;      ///< no quote (503)
  std::uint64_t attempts = 0;    ///< carrier calls made
  std::uint64_t retries = 0;
  std::uint64_t timeouts = 0;
  std::uint64_t fallbacks = 0;
  std::uint64_t circuit_opens = 0;
  std::uint64_t short_circuits = 0;
  std::deque<double> latency_window_ms;  ///< the last kLatencyWindow elapsed times
  double max_ms = 0;                     ///< over every flow since reset
};

/// One lab over both modes, for the class view: how much it asked of the carrier.
struct ClassTotals {
  std::uint64_t requests = 0;
  std::uint64_t carrier_calls = 0;     ///< attempts that reached the carrier (short circuits excluded)
  std::optional<double> p99_ms;        ///< over both modes' latency windows; null with no requests
};

/// Everything the telemetry holds, as plain data: what a replica that joins a class late
/// starts from (app/lab_snapshot.hpp) instead of history the class log no longer keeps.
struct TelemetryState {
  std::deque<Incident> incidents;  ///< oldest first
  std::map<std::string, FlowCounters> by_mode;  ///< by policy name
  std::map<std::string, std::map<std::string, FlowCounters>> by_mode_scenario;
};

class Telemetry {
 public:
  static constexpr std::size_t kMaxIncidents = kIncidentsLimit.max;
  static constexpr std::size_t kLatencyWindow = 2048;

  /// Adds one finished flow, which waited `queue_ms` for a worker before it ran.
  void record(const QuoteTrace& trace, double queue_ms = 0) { record(flow_record(trace, queue_ms)); }
  /// Adds one finished flow, here or on another replica.
  void record(const FlowRecord& flow);
  /// The last `limit` incidents, newest first.
  std::vector<Incident> incidents(std::size_t limit) const;
  /// {"legacy": {counters, "latency_ms", "scenarios": {name: {...}}}, "resilient": ...}:
  /// legacy and resilient always, then each named policy that ran since the reset. Under
  /// each, every scenario of `scenarios` (the catalog's canonical names, in its order), with
  /// zero counts and null statistics until asked, so the shape never changes during a
  /// lesson; then any other scenario that ran.
  nlohmann::ordered_json summary_json(const std::vector<std::string>& scenarios = {}) const;
  /// Requests, carrier calls and p99 over both modes.
  ClassTotals class_totals() const;
  /// Forgets everything, then holds `kept` (in order) as if recorded after: in one step, so
  /// that no reader sees the counts between the two (a reset read from another replica
  /// keeps this replica's flows that come after it in the class's order).
  void reset(const std::deque<FlowRecord>& kept = {});
  /// A copy of everything held now.
  TelemetryState state() const;
  /// Replaces everything held with `s` (incidents and latency windows beyond their bounds
  /// are cut to the newest).
  void restore(TelemetryState s);

 private:
  void record_locked(const FlowRecord& flow);
  mutable std::mutex mutex_;  // guards incidents_ and counters_
  std::deque<Incident> incidents_;
  std::map<std::string, FlowCounters> by_mode_;  // by policy name
  std::map<std::string, std::map<std::string, FlowCounters>> by_mode_scenario_;
};

}  // namespace quote_lab
