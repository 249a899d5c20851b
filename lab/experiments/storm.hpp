#pragma once
// A retry storm on demand: N concurrent clients hammer one quote route of a running lab
// (or of several replicas, the clients spread over them round robin) for a
// duration or a request count, while a monitor measures the labs' /health latency (worker
// exhaustion) and reads the carrier's counters (amplification, wasted work).
// Used by `quote-lab storm` and by POST /experiments/storm.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lab/experiments/storm_layers.hpp"
#include "lab/observability/telemetry.hpp"

namespace quote_lab {

/// Limits that keep a storm bounded on a 2-core machine.
inline constexpr int kStormMaxClients = 500;
inline constexpr double kStormMaxDurationS = 600;
inline constexpr long kStormMaxRequests = 2'000'000;

struct StormOptions {
  std::string target = "http://127.0.0.1:8080";  ///< the lab (the first, with several)
  /// More labs (the second and later `--target`): client i storms target i mod N, counting
  /// `target` as the first. Replicas behind one carrier; each must be a quote lab.
  std::vector<std::string> extra_targets;
  /// The policy stormed: legacy or resilient (their course routes, /quote-legacy and
  /// /quote-resilient) or any named policy the lab serves (/quote/NAME; docs/policies.md).
  std::string mode = "legacy";
  std::string scenario = "provider_down";          ///< any name the lab accepts
  int clients = 10;                                ///< concurrent clients, each one request at a time
  double duration_s = 10;                          ///< used when `requests` is unset
  std::optional<long> requests;                    ///< total requests instead of a duration
  /// With `requests` too: no request starts after this many seconds (0: none). The lab
  /// sets it on storms it starts, so requests=100000 cannot run for hours.
  double time_limit_s = 0;
  std::vector<std::pair<std::string, std::string>> params;  ///< extra query parameters (overrides)
  std::string lab;  ///< a student lab (`?lab=NAME` on every request the storm sends); empty: the teacher's
  double settle_s = 6;  ///< at most this long to wait for the carrier's calls in flight before reading waste
  /// Retrying layers between the clients and the carrier, 1..kStormMaxLayers: 1 is the lab
  /// alone; more puts relays in front of it (storm_layers.hpp). One target only.
  int layers = 1;
};

/// Checks the options; every problem as one sentence (empty = fine).
std::vector<std::string> validate(const StormOptions& o);

/// The quote route a storm of policy `mode` sends its requests to: /quote-legacy and
/// /quote-resilient for the course's two, /quote/NAME for a named policy.
std::string storm_quote_path(const std::string& mode);

/// `target` followed by `extra_targets`: the labs in the order clients are dealt to them.
std::vector<std::string> storm_targets(const StormOptions& o);

/// Whether `target` is a quote lab, asked before a storm hammers it (unchecked, a storm
/// against another port reported 176,381 req/s and exited 0): GET /health must answer 200
/// with "service": "quote-lab". nullopt when it does; otherwise one sentence saying what
/// answered instead (the simulated carrier, another service, nothing). /health waits for
/// a worker like a quote does, so a busy lab gets up to 30 s.
std::optional<std::string> check_storm_target(const std::string& target);

/// Whether the quote lab at `target` serves policy `mode`, asked before a storm: nullopt
/// when it does (its index, GET /, lists it under `policies`); otherwise one sentence that
/// names the policy, a near miss ("did you mean 'adr0005'?") and every policy the lab has.
/// A lab whose index lists no policies is taken to serve legacy and resilient only.
std::optional<std::string> check_storm_mode(const std::string& target, const std::string& mode);

/// Progress while a storm runs.
struct StormProgress {
  long requests = 0;
  double elapsed_s = 0;
  double fraction = 0;  ///< 0..1 of the duration or request count
};

/// What a storm measured on one of several targets.
struct StormTargetResult {
  std::string target;
  int clients = 0;                            ///< clients dealt to this target
  long requests = 0;
  std::map<std::string, long> status_counts;  ///< as StormResult's
  LatencySummary latency;
  std::optional<std::uint64_t> carrier_calls;  ///< carrier calls this lab sent (its attempts)
};

/// What a storm measured. Carrier figures are null when the lab's carrier is external.
/// With several targets the totals are their sums; the carrier's own counters (received,
/// in flight, waste) are read from the first target that embeds the carrier (replicas
/// share one carrier, so adding them up would count it twice).
struct StormResult {
  StormOptions options;
  long requests = 0;
  double elapsed_s = 0;
  double throughput_rps = 0;
  LatencySummary latency;          ///< of the quote requests, client side
  std::map<std::string, long> status_counts;  ///< completed, degraded, failed, rate_limited (429),
                                              ///< http_4xx (any other 4xx: the storm stops), error
  std::vector<StormTargetResult> per_target;  ///< one per target, in storm_targets() order
  LatencySummary attempt_latency;  ///< each carrier attempt, from the answers' events
  LatencySummary health_latency;   ///< /health measured alongside
  std::optional<std::uint64_t> carrier_calls;     ///< carrier calls the lab sent (its attempts)
  std::optional<double> amplification;            ///< carrier calls per quote request
  std::optional<std::uint64_t> carrier_received;  ///< calls the embedded carrier has processed so far
  std::optional<int> carrier_in_flight_after;     ///< still being served when the report was made
  std::optional<std::uint64_t> wasted_carrier_calls;
  std::optional<double> wasted_carrier_seconds;
  std::optional<int> carrier_peak_in_flight;
  std::vector<StormLayer> layers;  ///< with options.layers > 1: each layer, outermost first
  /// The first target's metastable episode (GET /carrier's `metastable`) as the clients
  /// stopped, when it has one: `recovered_after_trigger_s` is how long after the trigger
  /// ended the carrier served normally again while the storm went on (null: it never did).
  std::optional<nlohmann::ordered_json> metastable;
};

/// Runs a storm (blocking). `on_progress` is called about 5 times a second; `cancel`
/// (optional) stops it early. Never throws for HTTP problems: they are counted as "error".
StormResult run_storm(const StormOptions& o, const std::function<void(const StormProgress&)>& on_progress,
                      const std::atomic<bool>* cancel = nullptr);

/// A storm's `params` (the overrides each of its requests carries) as a JSON object,
/// name → value as sent, e.g. {"circuit_breaker": "false"}; {} when none.
nlohmann::ordered_json params_json(const std::vector<std::pair<std::string, std::string>>& params);

/// The --json shape: target, mode, scenario, params (params_json), requests, throughput_rps, latency_ms {p50,p95,p99,max}, status_counts,
/// carrier_calls, amplification, health_latency_ms {p50,p99,...}, wasted_carrier_calls, ...,
/// and `targets`: [{target, clients, requests, status_counts, latency_ms, carrier_calls}];
/// with layers > 1 also `layers`: [{layer, calls, requests, calls_out, calls_per_request}].
nlohmann::ordered_json to_json(const StormResult& r);

/// A plain-text report for a terminal.
std::string format_report(const StormResult& r);

}  // namespace quote_lab
