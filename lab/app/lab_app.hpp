#pragma once
// The lab without its HTTP layer: it owns the breaker, the fallback cache, the telemetry
// and the metrics, and runs quote flows through the executor. What it persists it hands
// out (persisted_lab) and is given at start (LabDeps::restored); the registry owns the file.
// It answers with values (lab_views.hpp); the API (lab/api/) renders them.

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "lab/app/class_events.hpp"
#include "lab/app/class_order.hpp"
#include "lab/app/lab_design.hpp"
#include "lab/app/lab_snapshot.hpp"
#include "lab/app/lab_state_file.hpp"
#include "lab/app/lab_views.hpp"
#include "lab/app/policy_runtimes.hpp"
#include "lab/base/clock.hpp"
#include "lab/base/random.hpp"
#include "lab/carrier/carrier_client.hpp"
#include "lab/carrier/threaded_hedged_caller.hpp"
#include "lab/carrier/carrier_simulator.hpp"
#include "lab/carrier/scenario.hpp"
#include "lab/http/event_hub.hpp"
#include "lab/observability/metrics.hpp"
#include "lab/observability/strategy_gauges.hpp"
#include "lab/observability/telemetry.hpp"
#include "lab/persistence/state_store.hpp"
#include "lab/resilience/circuit_breaker.hpp"
#include "lab/resilience/domain.hpp"
#include "lab/resilience/fallback_cache.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/quote_executor.hpp"
#include "lab/resilience/vocabulary.hpp"
#include "lab/shared_state/class_log.hpp"
#include "lab/shared_state/redis_breaker_store.hpp"
#include "lab/shared_state/redis_client.hpp"
#include "lab/shared_state/redis_fallback_store.hpp"
#include "lab/shared_state/replicated_breaker.hpp"

namespace quote_lab {

/// Everything the lab core needs; `embedded_carrier` is null when --carrier-url points
/// to a carrier elsewhere.
struct LabDeps {
  const ScenarioCatalog& scenarios;
  Policies policies;
  CarrierCaller& carrier;
  CarrierSimulator* embedded_carrier = nullptr;
  Clock& clock;
  RandomSource& random;
  std::size_t max_event_clients = 32;  ///< open dashboards (SSE streams) at once
  /// A student lab's name (`?lab=NAME`, normalize_lab_name's form); empty for the teacher's.
  std::string lab_name{};
  /// The embedded carrier whose mode is this lab's carrier mode: the teacher's lab sets and
  /// resets the class's carrier. Null: the lab keeps its own mode and sends it with every call
  /// (a student lab — the carrier's capacity is the class's, like a real dependency's — or
  /// any lab with --carrier-url).
  CarrierSimulator* mode_carrier = nullptr;
  /// The class's state file (not owned; the registry's), told when what this lab persists
  /// changed and shown in /dependency/state. Null: nothing is saved.
  LabStateFile* state_file = nullptr;
  /// The breaker and fallback quotes to start from (the state file's, read by the registry).
  std::optional<PersistedLab> restored{};
  /// --state-backend redis://…: the breaker is shared through it (not owned); null = the
  /// state file alone, nothing shared with other replicas.
  RedisClient* shared_state = nullptr;
  /// With --state-backend redis://…, the class log every replica appends its labs' events
  /// to (not owned): this lab shares each quote, reset, carrier mode and storm event, and
  /// applies the other replicas' through apply(). Null: the lab is this process's alone.
  ClassLog* class_log = nullptr;
  /// The route templates that label `quote_lab_http_requests_total` (the API's route table,
  /// api/route_table's route_templates()); a request on no template counts as "other".
  std::vector<std::string> http_routes{};
};

class LabApp {
 public:
  /// Starts from `deps.restored` when given; with a shared breaker, then follows Redis (an
  /// empty Redis is seeded from this lab, a Redis that has state keeps its own).
  explicit LabApp(LabDeps deps);

  /// A finished quote flow: its trace and the dependency as the flow left it (the answer's
  /// `dependency`).
  struct QuoteResult {
    QuoteTrace trace;
    DependencyView dependency;
    FlowRecord flow;  ///< what the telemetry recorded of it
  };

  /// Runs one quote flow under `mode`'s policy. `scenario` must be a canonical name or
  /// empty (the carrier's current mode). Records it in the telemetry and the metrics.
  /// `policy` replaces the mode's policy for this request only (per-request overrides).
  /// `queue_ms`: how long the request waited for a worker slot before it ran (the
  /// incident's `queue_ms`; 0.01 ms precision).
  QuoteResult quote(Mode mode, const std::string& scenario, int customer_id, int items,
                    const RetryPolicy* policy = nullptr, double queue_ms = 0);
  /// The same under the policy called `policy_name` (legacy, resilient or a named policy,
  /// GET /quote/{policy}); it must be one of policies().names(). A named policy with its
  /// own breaker runs against that breaker (the answer's `dependency` is it); any other
  /// shares the course breaker. Every policy has its own retry budget in this lab.
  /// `priority` goes to the carrier on every attempt (X-Priority). `cancel` stops when the
  /// client has gone: the flow stops where it is (QuoteRequest::cancel).
  QuoteResult quote(const std::string& policy_name, const std::string& scenario, int customer_id, int items,
                    const RetryPolicy* policy = nullptr, double queue_ms = 0, Priority priority = Priority::critical,
                    std::stop_token cancel = {});

  /// Tells the lab's open pages about a finished flow, here and, with a class log, on every
  /// other replica. `render_line` writes the page's one-line answer; it is called only when
  /// someone may be watching.
  void publish_quote(const QuoteResult& result, const std::function<std::string()>& render_line);
  /// Applies what another replica did in this lab (its class log entry, `stream_id` its
  /// place in the class's order): records its flow, follows the shared breaker it left,
  /// resets, changes the carrier mode, and tells this replica's open pages (unless
  /// `replay`: read while catching up at start). An entry older than this lab's last reset
  /// or carrier mode made here is ignored: the class's order says it came first.
  void apply(const ClassEvent& event, bool replay, const std::string& stream_id);

  /// Tells the other replicas that this replica started the lab's storm (`status`, GET
  /// /experiments/storm's form), placed in the class's order (up to kOrderWait): a cancel or
  /// a reset placed after it stops it, an older one read later does not.
  void share_storm_start(const nlohmann::ordered_json& status);
  /// Asks whichever replica runs the lab's storm to stop it: placed in the class's order (up
  /// to kOrderWait), so that it stops the storms started before it and none started after.
  void share_storm_cancel();
  /// Where this lab stands in the class log here: what was read, the storm another replica
  /// runs for it (remote_storm), where the storm started here stands (storm_started_before).
  ClassOrder& class_order() { return class_order_; }
  const ClassOrder& class_order() const { return class_order_; }

  /// This replica's own entry, read back from the class log at `stream_id`: it has its
  /// place in the class's order now (see unsettled_). A reset or a carrier mode whose place
  /// share_in_order did not learn in time is applied again there.
  void settle(const ClassEvent& own, const std::string& stream_id);

  /// This lab as it stands at class log position `through` (the reader's, on its thread:
  /// nothing is applied meanwhile), for a replica that joins the class later. `storm`: the
  /// storm this replica runs in the lab, in GET /experiments/storm's form (null: none; the
  /// one another replica runs is the lab's own record). nullopt while the lab holds what
  /// comes after `through` (this replica's flows, reset or mode not yet read back) or its
  /// history is incomplete here (mark_history_incomplete).
  std::optional<LabSnapshot> snapshot(const std::string& through, const nlohmann::ordered_json& storm);
  /// Starts from another replica's snapshot: the lab's entries up to `s.through` are in it,
  /// and apply() ignores them; this replica's own flows not read back yet count after it.
  void install(const LabSnapshot& s);

  /// How long a reset or a carrier mode waits for Redis to place it in the class's order.
  static constexpr Millis kOrderWait{1000};
  /// Own flows kept until the log hands them back (a Redis that lost them never does).
  static constexpr std::size_t kMaxUnsettled = 4096;

  /// The configured policy called `name`; null if there is none.
  const RetryPolicy* find_policy(const std::string& name) const { return policies_.find(name); }

  /// With a shared breaker: seeds a store that (re)connected since this lab last did (a
  /// Redis that came back empty takes this replica's open breaker), then follows it; no
  /// round trip otherwise. The class log's reader runs it between reads.
  void rejoin_shared_breaker() {
    if (replicated_) replicated_->rejoin_if_reconnected();
  }
  /// The breaker, the fallback quote and the state file's health now (/dependency/state).
  DependencyView dependency_view();
  /// The same view for a breaker snapshot already taken (saves a second snapshot per quote).
  DependencyView dependency_view(const BreakerSnapshot& breaker);
  std::vector<Incident> incidents(std::size_t limit) const { return telemetry_.incidents(limit); }
  /// The policies, the dependency and the carrier mode now (/diagnostics/summary).
  DiagnosticsView diagnostics_view();
  /// Per mode and scenario counters and latency percentiles, as the telemetry renders them.
  nlohmann::ordered_json mode_summary() const;
  /// All metric families now.
  std::vector<prometheus::MetricFamily> metric_families();
  /// Each policy's overload strategies now (the policies without any are left out).
  std::vector<StrategyGauges> strategy_gauges() const;
  void count_http(const std::string& route, int code) { metrics_.record_http(route, code); }
  /// Counts one request refused by the rate limit, by route template.
  void count_rate_limited(const std::string& route) { metrics_.record_rate_limited(route); }

  /// Telemetry, metrics, breaker, fallback cache (and the embedded carrier) back to seeds.
  void reset();

  /// The scenario used for requests that name none.
  std::string carrier_mode() const;
  /// Changes it; false if `name` is unknown. The embedded carrier follows; with an
  /// external carrier the lab keeps the choice and sends it with every call.
  bool set_carrier_mode(const std::string& name);
  /// The embedded carrier's stats, if the carrier is embedded: every lab's calls for the
  /// teacher's lab (the class's carrier), this lab's own calls for a student's.
  std::optional<CarrierStats> carrier_stats() const;
  /// This lab's metastable episode at the embedded carrier (metastable_episode.hpp); nullopt
  /// when it has none or the carrier is external.
  std::optional<MetastableView> metastable_episode() const;
  /// This lab's shedding station at the embedded carrier (GET /carrier's `shedding`),
  /// nullopt without an embedded carrier or before a call to a shedding scenario.
  std::optional<StationView> shedding_station() const;

  /// Live updates for open dashboards: "quote", "breaker", "reset", "carrier_mode".
  EventHub& events() { return events_; }

  const Policies& policies() const { return policies_; }
  const ScenarioCatalog& scenarios() const { return scenarios_; }

  /// The lab's name: "" for the teacher's, else the student's (`?lab=NAME`).
  const std::string& name() const { return name_; }
  /// The breaker and fallback quotes now, as the state file keeps them.
  PersistedLab persisted_lab();

  /// Keeps `d` as this lab's class-challenge design (lab_design.hpp), replacing any before:
  /// written to the state file and, with a class log, shared with every replica (placed in
  /// the class's order, up to kOrderWait).
  void post_design(LabDesign d);
  /// This lab's design; nullopt: none posted.
  std::optional<LabDesign> design() const { return design_.get(); }
  /// Per-lab totals over both modes, for the class view (GET /class).
  ClassTotals class_totals() const { return telemetry_.class_totals(); }
  /// The clock the lab measures with (queue waits are measured on it too).
  Clock& clock() { return clock_; }
  /// Shutdown has begun: quote flows in progress make no further attempt and end their
  /// backoff waits at once; requests not yet started are refused (see shutdown_token()).
  /// Nothing is closed: call flush_state() once the requests in flight are over.
  void begin_shutdown() { shutdown_.request_stop(); }
  /// Requested once begin_shutdown() was called; what waits on the request path watch.
  std::stop_token shutdown_token() const { return shutdown_.get_token(); }

 private:
  void on_transition(const BreakerTransition& t);
  // The local part of reset(); `shared`: also the breaker and fallback quotes in Redis;
  // `keep_mode`: the carrier mode stays (a mode set here came after the reset); `kept`: the
  // flows the telemetry holds after it.
  void reset_here(bool shared, bool keep_mode, const std::deque<FlowRecord>& kept = {});
  // Sets the mode of a known scenario, here only.
  void change_carrier_mode(const Scenario& s);
  // Appends `e` to the class log, if any.
  void share(ClassEvent e);
  // The same, waiting for its place in the class's order (kOrderWait): its stream id, nullopt
  // without a class log or when Redis did not take it in time (it stays queued).
  std::optional<std::string> share_placed(ClassEvent e);
  // The same for a setting, waiting for its place in the class's order (kOrderWait).
  void share_in_order(ClassEvent e);
  // Starts from the state file's design (JSON text; "" none); a bad one is logged and left out.
  void restore_design(const std::string& text);
  // The design a class log entry carries; nullopt (logged) when it carries none.
  std::optional<LabDesign> design_of(const ClassEvent& e) const;
  // What the state file holds for this lab may have changed: write it soon.
  void mark_state_dirty();
  std::string new_id(int hex_digits);

  const ScenarioCatalog& scenarios_;
  const Policies policies_;
  CarrierCaller& carrier_;
  CarrierSimulator* embedded_carrier_;
  Clock& clock_;
  RandomSource& random_;
  LabStateFile* const state_file_;  // null: nothing is saved
  std::stop_source shutdown_;  // before executor_, which watches it
  const std::string name_;
  const std::string log_label_;  // "" for the teacher's lab, " (lab NAME)" for a student's
  CarrierSimulator* const mode_carrier_;  // see LabDeps::mode_carrier

  RedisClient* shared_state_;
  ClassLog* const class_log_;  // see LabDeps::class_log
  std::unique_ptr<RedisBreakerStore> shared_breaker_;  // before replicated_, which points to it
  std::unique_ptr<RedisFallbackStore> shared_fallback_;  // before cache_, which points to it
  CircuitBreaker local_breaker_;  // restored from the state file; follows the store when shared
  std::unique_ptr<ReplicatedBreaker> replicated_;  // with --state-backend redis://…; else null
  Breaker& breaker_;  // what the quote flow and the views ask: replicated_ if set, else local_breaker_
  FallbackCache cache_;
  QuoteExecutor executor_;
  PolicyRuntimes runtimes_;  // after cache_ and shutdown_, which its executors read
  Telemetry telemetry_;
  Metrics metrics_;
  EventHub events_;

  // With a class log: orders this lab's telemetry against the log (taken before mode_mutex_).
  // The telemetry records a flow where it is shared, a reset where it is placed in the log,
  // and an entry read from the log where it stands in it; unsettled_ holds this replica's
  // flows shared but not yet read back, which a reset read meanwhile must not erase.
  std::mutex order_mutex_;
  std::deque<FlowRecord> unsettled_;
  mutable std::mutex mode_mutex_;  // guards external_mode_
  std::string external_mode_{kDefaultScenario};
  ClassOrder class_order_;
  LabDesignSlot design_;
};

}  // namespace quote_lab
