#pragma once
// A retry storm on demand against one quote route of a running lab (or of several
// replicas, spread over them round robin) for a duration or a request count, while a
// monitor measures the labs' /health latency (worker exhaustion) and reads the carrier's
// counters (amplification, wasted work). Two load models (Schroeder, Wierman and
// Harchol-Balter, "Open Versus Closed: A Cautionary Tale", NSDI '06):
// - closed loop (`--clients N`): N clients, each sending its next request only once the
//   last one is answered. When the lab slows down, the load falls with it: a slow lab
//   looks merely slow.
// - open loop (`--rate R`): R arrivals a second (open_loop.hpp), sent whatever the answers,
//   as users keep arriving. When the lab slows down, work piles up: the load that sustains
//   a metastable failure.
// Both report goodput (goodput.hpp) and a per-second timeline (storm_timeline.hpp).
// Used by `quote-lab storm` and by POST /experiments/storm.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lab/experiments/arrival_schedule.hpp"
#include "lab/experiments/goodput.hpp"
#include "lab/experiments/storm_layers.hpp"
#include "lab/experiments/storm_timeline.hpp"
#include "lab/observability/telemetry.hpp"

namespace quote_lab {

/// Limits that keep a storm bounded on a 2-core machine.
inline constexpr int kStormMaxClients = 500;
inline constexpr double kStormMaxDurationS = 600;
inline constexpr long kStormMaxRequests = 2'000'000;
/// Open loop: arrivals per second at most. The generator, the lab and its carrier share this
/// machine's 2 cores; a few thousand quotes a second is where the generator measures itself.
inline constexpr double kStormMaxRatePerS = 2000;
inline constexpr double kStormMinRatePerS = 0.1;
/// Open loop: requests unanswered at once, by default and at most. Each is a sender thread
/// and a connection here, and a connection at the lab (256 by default, shared with the
/// class's pages): 100 leaves the lab room; 500, as many as the closed loop's clients.
inline constexpr int kStormDefaultMaxInFlight = 100;
inline constexpr int kStormMaxInFlight = 500;

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
  /// The lab's key (`lab_key=` on every request, so that retrying layers pass it on); empty: none.
  std::string lab_key;
  double settle_s = 6;  ///< at most this long to wait for the carrier's calls in flight before reading waste
  /// Retrying layers between the clients and the carrier, 1..kStormMaxLayers: 1 is the lab
  /// alone; more puts relays in front of it (storm_layers.hpp). One target only.
  int layers = 1;
  /// Open loop: arrivals per second (kStormMinRatePerS..kStormMaxRatePerS), each sent
  /// without waiting for any answer; `clients` is then unused. nullopt: closed loop.
  std::optional<double> rate_per_s;
  ArrivalProcess arrivals = ArrivalProcess::poisson;  ///< open loop: how arrivals are spread
  int max_in_flight = kStormDefaultMaxInFlight;       ///< open loop: an arrival beyond it is not sent
  /// Share (0..1) of the requests that carry `X-Priority: sheddable`, the others `critical`;
  /// 0 (the default): no X-Priority header at all (priority_mix.hpp).
  double sheddable_share = 0;
  GoodputRule goodput;  ///< what counts as a useful answer
  /// Seed of the arrival schedule's random source; nullopt: a fresh one (the report shows it,
  /// so a run can be repeated with the same arrivals).
  std::optional<std::uint64_t> seed;
};

/// "open" with rate_per_s, else "closed".
std::string load_model(const StormOptions& o);

/// Checks the options; every problem as one sentence (empty = fine).
std::vector<std::string> validate(const StormOptions& o);

/// `target` followed by `extra_targets`: the labs in the order clients are dealt to them.
std::vector<std::string> storm_targets(const StormOptions& o);

/// The seed a storm's arrival schedule uses: `o.seed`, or a fresh one from the machine.
std::uint64_t storm_seed(const StormOptions& o);

/// Progress while a storm runs.
struct StormProgress {
  long requests = 0;
  double elapsed_s = 0;
  double fraction = 0;  ///< 0..1 of the duration or request count
};

/// What a storm measured on one of several targets.
struct StormTargetResult {
  std::string target;
  int clients = 0;                            ///< closed loop: clients dealt to this target
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

  // Load and goodput, in both models. A closed loop's arrivals are its requests, all sent.
  long arrivals = 0;              ///< requests that arrived (open: due within the window)
  long arrivals_not_sent = 0;     ///< open loop: found max_in_flight unanswered, never sent
  double arrival_window_s = 0;    ///< open: until the last arrival was handed out (≥ the duration);
                                  ///< closed: elapsed_s
  double offered_rps = 0;         ///< arrivals / arrival_window_s
  long goodput = 0;               ///< useful answers (goodput.hpp)
  double goodput_rps = 0;         ///< goodput / arrival_window_s
  long goodput_live = 0;          ///< of the goodput, live quotes: what the carrier itself served in time
  double goodput_live_rps = 0;    ///< goodput_live / arrival_window_s
  std::optional<double> goodput_ratio;  ///< goodput / arrivals (null without arrivals)
  std::map<std::string, long> verdicts;  ///< every sent request by AnswerVerdict name
  /// Second by second since the storm started (storm_timeline.hpp), exactly: entry i counts
  /// the requests that ARRIVED in [i, i + 1) s — an open-loop arrival at its scheduled time
  /// (dispatch_lag says how late it was handed out), a closed-loop request when its client
  /// sent it — whatever second their answers came: arrivals = sent + not_sent, answered (any
  /// HTTP answer), useful (goodput), not_useful = sent − useful. The entries cover the arrival
  /// window, ceil(duration) of them for a storm by duration (none missing: a second without
  /// arrivals is all zeros), and add up to the totals (arrivals, arrivals_not_sent, goodput).
  /// carrier_calls: the lab's carrier calls in the storm's mode read from its /metrics at
  /// i s and at i + 1 s (a quote's calls are counted when the quote ends), null when either
  /// reading failed. "Recovered after how many seconds" reads useful ÷ arrivals per second.
  std::vector<TimelineSecond> timeline;
  std::map<std::string, PriorityCounts> by_priority;  ///< with sheddable_share > 0
  LatencySummary dispatch_lag;    ///< open loop: how late arrivals were handed out
  int peak_in_flight = 0;         ///< open loop: most requests unanswered at once
  std::uint64_t seed = 0;         ///< the arrival schedule's seed (storm_seed)
};

/// Runs a storm (blocking). `on_progress` is called about 5 times a second; `cancel`
/// (optional) stops it early. Never throws for HTTP problems: they are counted as "error".
StormResult run_storm(const StormOptions& o, const std::function<void(const StormProgress&)>& on_progress,
                      const std::atomic<bool>* cancel = nullptr);


}  // namespace quote_lab
