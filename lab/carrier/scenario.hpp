#pragma once
// Scenarios are data: one JSON file each in scenarios/, loaded at start-up, so a teacher
// adds one without recompiling. A scenario says how the simulated carrier answers each
// attempt of one logical quote (attempt = how many times the carrier has seen that quote:
// the trace id of its `traceparent`, else its Idempotency-Key, else every call is attempt 1).
// This comment is the file format's documentation.
//
// File shape (scenarios/provider_down.json and scenarios/rate_limited.json are examples):
//   { "name": "flaky_provider", "order": 3, "aliases": ["flaky"],
//     "description": {"es": "...", "en": "..."},
//     "attempts": [ {"latency_ms": [520, 560], "response": "ok"} ],   // attempt 1, 2, ...
//     "then":       {"latency_ms": [150, 195], "response": "ok"},     // every later attempt
//     "hang_ms": 5000,                     // how long "timeout" holds a call without a deadline
//     "expected": {...} }                  // what each policy shows (scenario_expectation.hpp)
//
// A behaviour (an element of "attempts", or "then"):
//   "latency_ms": [min, max]   uniform whole ms, both ends reachable; or a seeded percentile
//                table {"p50": 120, "p90": 300, "p99": 900, "max": 1500} (optional "min",
//                default 0; keys "pNN" or "pNN.N", values non-decreasing with the
//                percentile), interpolated linearly from one uniform draw (draw_latency_ms).
//                Required except for "timeout" and "refused".
//   "response":  what happens after the latency (names from Toxiproxy where one fits):
//     "ok"          200 with a priced quote;
//     100..599      that HTTP status with a JSON error body, or "body" (a string) verbatim;
//                   429 and 5xx may add "retry_after": seconds (integer >= 0) or an
//                   HTTP-date string ("Wed, 21 Oct 2026 07:28:00 GMT"), sent as Retry-After;
//     "timeout"     (alias "hang") hold the call until the caller's deadline plus a little
//                   (kHangGraceMs), or "hang_ms" without one, then 504;
//     "reset_peer"  send the headers and half of a quote's body, then reset the connection
//                   (a real RST: SO_LINGER {1, 0} and a disconnect of the accepted
//                   socket, found by its two ends: peer_reset.hpp);
//     "refused"     nothing listens: the lab's client connects to a port the embedded
//                   carrier holds bound but never listens on (CarrierServer::refusing_port),
//                   so the connect itself is refused. Only the lab's embedded carrier can do
//                   this; a carrier reached over --carrier-url answers it as "reset_peer".
//                   Not allowed inside "faults" (the lab must know before connecting);
//     "slicer"      (alias "bandwidth") a 200 quote whose body trickles: "slice_bytes"
//                   (default 16) every "slice_delay_ms" (default 100);
//     "malformed"   a 200 whose body is not JSON; "truncated": a 200 whose JSON stops half way.
//   "faults": [ {"probability": 0.3, "response": 503, ...}, ... ]  seeded alternatives: one
//                uniform draw picks the first fault whose running sum of probabilities
//                exceeds it, else the behaviour itself plays. Each fault is a behaviour
//                without "faults" (its latency defaults to the behaviour's). Probabilities
//                are 0..1 and sum to at most 1.
//
// "metastable" (optional, the scenario of the same name uses it):
//   {"down_ms": 8000, "down": {behaviour}, "capacity": 2, "overload": {behaviour}}: per
//   calling lab (metastable_episode.hpp), from its first call since its reset (or the mode
//   set) "down" plays for "down_ms" (the trigger: an outage); after that the carrier is up
//   ("attempts"/"then" play), but a call that arrives while "capacity" of that lab's calls
//   are already in flight plays "overload" (e.g. a slow 503: an overloaded carrier, each
//   such call still holding a slot). Retries that keep more than "capacity" calls in
//   flight keep it down after the trigger is gone.
//   Time comes from the injected clock; "refused" is allowed in neither behaviour.
//
// "shedding" (optional; the overloaded_* and prioritized scenarios use it): a carrier that
// sheds load, per calling lab (shedding_station.hpp has the rules, with their sources):
//   {"capacity": 4,                     calls served at once (1-1000), each for the drawn latency
//    "queue": {"discipline": "fifo",    "fifo" | "lifo" | "codel" | "adaptive_lifo"
//              "max": 16,               calls that may wait (0-1000); a call that finds the queue
//                                       full is shed at once: a fast 503 {"error": "shed",
//                                       "reason": "queue_full", ...}
//              "target_ms": 5,          codel, adaptive_lifo only (1-600000, default 5): the
//                                       longest wait of a call queued while congested (the
//                                       queue not empty for more than interval_ms)
//              "interval_ms": 100},     codel, adaptive_lifo only (default 100, >= target_ms):
//                                       the longest wait otherwise (Facebook's "Fail at Scale")
//    "critical_share": 0.25,            0-1 (default 0): the share of the capacity a sheddable
//                                       call (X-Priority: sheddable) may not start in; a
//                                       request without X-Priority is critical
//    "trigger": {"after_ms": 0,         optional: from after_ms (0-600000, default 0) after the
//                "length_ms": 10000,    lab's first call (and its reset) for length_ms
//                "capacity_drop": 0.8}} (1-600000) the capacity is round(capacity × (1 −
//                                       capacity_drop)), capacity_drop 0-1 (0 included)
//   Waiting calls hold a carrier worker thread each: every lab's stations together hold at
//   most --carrier-workers − 4 calls, beyond which a call is shed (workers_busy).
//   A scenario cannot have both "metastable" and "shedding" (both set the capacity).
//
// Every problem of a file stops start-up at once, each naming the file, the field and the
// allowed values (unknown keys and kinds, probabilities outside 0-1, statuses outside
// 100-599, a negative retry_after, impossible combinations).

#include <filesystem>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lab/carrier/scenario_expectation.hpp"
#include "lab/carrier/scenario_shedding.hpp"
#include "lab/http/api_error.hpp"

namespace quote_lab {

/// One point of a latency percentile table: `fraction` in [0, 1] of calls take at most `ms`.
struct LatencyPoint {
  double fraction = 0;
  int ms = 0;
};

/// How the carrier treats one attempt.
struct AttemptBehaviour {
  /// What the carrier does after the latency (see the file header).
  enum class Kind { answer, timeout, reset_peer, refused, slicer, malformed, truncated };
  int latency_min_ms = 0;  ///< inclusive range the carrier waits before answering
  int latency_max_ms = 0;
  std::vector<LatencyPoint> latency_table;  ///< when not empty, replaces the range (sorted)
  Kind kind = Kind::answer;
  std::string response;    ///< the kind as the file wrote it ("hang", "bandwidth", ...); empty for a status
  int status = 200;        ///< HTTP status of an answer (200 = a quote)
  std::optional<std::string> body;  ///< a status's body, verbatim (else a JSON error)
  std::string retry_after;          ///< Retry-After header value; empty: none
  int slice_bytes = 16;             ///< slicer: bytes per slice
  int slice_delay_ms = 100;         ///< slicer: wait before each slice
  double probability = 0;           ///< as a fault: its chance
  std::vector<AttemptBehaviour> faults;  ///< seeded alternatives, in file order
};

/// The fault of `b` a uniform draw `u` in [0, 1) picks: the first whose running sum of
/// probabilities exceeds u, else `b` itself.
const AttemptBehaviour& pick_fault(const AttemptBehaviour& b, double u);

/// A carrier that goes down, then comes back with limited capacity (see the file header).
struct Metastable {
  int down_ms = 0;
  AttemptBehaviour down;
  int capacity = 1;
  AttemptBehaviour overload;
};

/// One scenario as loaded from its file.
struct Scenario {
  std::string name;                  ///< canonical name, the one reports use
  std::vector<std::string> aliases;  ///< short names also accepted
  std::string description_es;
  std::string description_en;
  std::vector<AttemptBehaviour> attempts;  ///< attempts 1..N
  AttemptBehaviour then;                   ///< attempts N+1 onwards
  int hang_ms = 5000;                      ///< how long a "timeout" holds the connection
  int order = 100;                         ///< listing position (the course's order), then name
  std::optional<Metastable> metastable;
  std::optional<Shedding> shedding;  ///< a carrier that sheds load (scenario_shedding.hpp)
  std::map<std::string, Expectation> expected;  ///< policy name → what a user sees
  std::string source;                      ///< file it came from

  /// The behaviour for `attempt` (1-based; values below 1 are treated as 1).
  const AttemptBehaviour& behaviour_for(int attempt) const;
};

/// The latency of one attempt from a uniform draw u in [0, 1): an integer number of
/// milliseconds in [latency_min_ms, latency_max_ms], both ends reachable; with a table,
/// linear between its points (u = 0.5 → p50, u = 0.95 → halfway from p90 to p99).
int draw_latency_ms(const AttemptBehaviour& b, double u);

/// Thrown at start-up; `what()` names the file and every problem found in it.
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parses one scenario; `source` names the file in error messages. Throws ScenarioError.
Scenario scenario_from_json(const nlohmann::ordered_json& j, const std::string& source);

/// The scenarios the lab knows, looked up by canonical name or alias.
class ScenarioCatalog {
 public:
  ScenarioCatalog() = default;
  explicit ScenarioCatalog(std::vector<Scenario> scenarios);  // throws on duplicate names

  /// Loads every *.json in `dir`, listed by their "order" field, then name. Throws ScenarioError naming the
  /// file for a missing directory, unreadable file, bad JSON, bad field or a name or
  /// alias that two files claim.
  static ScenarioCatalog load_dir(const std::filesystem::path& dir);

  /// The scenario named `name_or_alias`, in any case ("OK", "Provider_Down"), or nullptr.
  /// Names are lower case (a-z, 0-9, '_', '-'), so no two differ only in case.
  const Scenario* find(std::string_view name_or_alias) const;
  /// Canonical names followed by aliases, for 400 errors (`allowed`).
  std::vector<std::string> accepted_names() const;
  const std::vector<Scenario>& all() const { return scenarios_; }

 private:
  std::vector<Scenario> scenarios_;
  std::map<std::string, std::size_t, std::less<>> index_;  // name or alias → position
};

/// The 400 for a scenario name the catalog lacks ("unknown_scenario", every accepted name
/// in `allowed`), with "did you mean" when `typed` is a near miss of one (base/did_you_mean).
ApiError unknown_scenario_error(const ScenarioCatalog& catalog, std::string_view typed);

/// JSON description of a scenario for `/` and the dashboard.
nlohmann::ordered_json to_json(const Scenario& s);

}  // namespace quote_lab
