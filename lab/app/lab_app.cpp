#include "lab/app/lab_app.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <nlohmann/json.hpp>

#include "lab/base/time_format.hpp"

namespace quote_lab {

namespace {
std::vector<std::string> canonical_names(const ScenarioCatalog& c) {
  std::vector<std::string> names;
  for (const auto& s : c.all()) names.push_back(s.name);
  return names;
}

Metrics::Pipelines pipelines_of(const Policies& policies) {
  Metrics::Pipelines pipelines;
  for (const std::string& name : policies.names()) pipelines[name] = policies.find(name)->pipeline;
  return pipelines;
}
}  // namespace

LabApp::LabApp(LabDeps deps)
    : scenarios_(deps.scenarios),
      policies_(deps.policies),
      carrier_(deps.carrier),
      embedded_carrier_(deps.embedded_carrier),
      clock_(deps.clock),
      random_(deps.random),
      state_file_(deps.state_file),
      name_(deps.lab_name),
      log_label_(deps.lab_name.empty() ? "" : " (lab " + deps.lab_name + ")"),
      mode_carrier_(deps.mode_carrier),
      shared_state_(deps.shared_state),
      class_log_(deps.class_log),
      shared_breaker_(deps.shared_state ? std::make_unique<RedisBreakerStore>(*deps.shared_state, deps.lab_name,
                                                                              deps.policies.breaker)
                                        : nullptr),
      shared_fallback_(deps.shared_state ? std::make_unique<RedisFallbackStore>(*deps.shared_state, deps.lab_name)
                                         : nullptr),
      local_breaker_("carrier", deps.policies.breaker, deps.clock),
      replicated_(shared_breaker_ ? std::make_unique<ReplicatedBreaker>(local_breaker_, *shared_breaker_, deps.clock) : nullptr),
      breaker_(replicated_ ? static_cast<Breaker&>(*replicated_) : local_breaker_),
      cache_(deps.clock),
      executor_(deps.carrier, breaker_, cache_, deps.clock, deps.random, shutdown_.get_token()),
      runtimes_(deps.policies, deps.carrier, cache_, deps.clock, deps.random, shutdown_.get_token()),
      metrics_(canonical_names(deps.scenarios), deps.http_routes, deps.policies.names(), pipelines_of(deps.policies)),
      events_(deps.max_event_clients) {
  local_breaker_.set_listener([this](const BreakerTransition& t) { on_transition(t); });
  cache_.set_shared(shared_fallback_.get());
  if (deps.restored) {
    local_breaker_.restore(deps.restored->breaker);
    cache_.restore(deps.restored->fallback_seeded_at, deps.restored->fallback_quotes);
    restore_design(deps.restored->design);
  }
  // After the file: an empty Redis is seeded from it, a Redis that has state keeps its own.
  if (replicated_) replicated_->join();
  // Storms' progress and results; quotes, resets and modes are shared where they happen.
  if (class_log_)
    events_.set_relay([this](const std::string& type, const std::string& line) {
      if (type != "breaker") share({.lab = name_, .type = type, .line = line});
    });
}

void LabApp::restore_design(const std::string& text) {
  if (text.empty()) return;
  try {
    // Older than anything in the class log: a design another replica posts since replaces it.
    design_.restore(design_from_json(nlohmann::ordered_json::parse(text)), "0-0");
  } catch (const std::exception& e) {
    spdlog::warn("design{} in the state file left out: {}", log_label_, e.what());
  }
}

std::optional<LabDesign> LabApp::design_of(const ClassEvent& e) const {
  try {
    return design_from_json(nlohmann::ordered_json::parse(e.line));
  } catch (const std::exception& ex) {
    spdlog::warn("a design entry{} left out: {}", log_label_, ex.what());
    return std::nullopt;
  }
}

void LabApp::post_design(LabDesign d) {
  if (d.id.empty()) d.id = new_id(16);
  const std::string line = to_json(d).dump();
  const auto placed = share_placed({.lab = name_, .type = "design", .line = line});
  design_.post(std::move(d), placed.value_or(""));
  mark_state_dirty();
}

void LabApp::share(ClassEvent e) {
  if (class_log_) class_log_->append(encode_class_event(e));
}

std::optional<std::string> LabApp::share_placed(ClassEvent e) {
  if (!class_log_) return std::nullopt;
  return class_log_->append_in_order(encode_class_event(e), kOrderWait);
}

void LabApp::share_in_order(ClassEvent e) {
  const bool reset = e.type == "reset";
  // Redis away or slow: the setting holds here now and reaches the others when it is back.
  // Its place then comes when it is read back (settle()).
  if (const auto id = share_placed(std::move(e))) class_order_.placed(reset, *id);
}

// Transitions are logged, counted and persisted; the listener runs outside the breaker's lock.
void LabApp::on_transition(const BreakerTransition& t) {
  const std::string& lab = log_label_;
  if (t.to == BreakerState::open)
    spdlog::warn("breaker {}{}: {} -> open after {} consecutive failed attempt(s); cooldown {} s", t.upstream, lab,
                 to_string(t.from), t.consecutive_failures, policies_.breaker.open_duration_s);
  else
    spdlog::info("breaker {}{}: {} -> {} at {}", t.upstream, lab, to_string(t.from), to_string(t.to),
                 format_iso8601(t.at));
  metrics_.record_transition(t);
  events_.publish("breaker", {{"from", std::string(to_string(t.from))},
                              {"to", std::string(to_string(t.to))},
                              {"at", format_iso8601(t.at)}});
  mark_state_dirty();
}

std::string LabApp::new_id(int hex_digits) {
  // Hex digits of the seeded bits, 16 per draw (two ids per quote: snprintf was 3 % of a
  // short circuit).
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(static_cast<std::size_t>(hex_digits), '0');
  std::uint64_t bits = 0;
  for (int i = 0; i < hex_digits; ++i, bits >>= 4) {
    if (i % 16 == 0) bits = random_.bits();
    id[static_cast<std::size_t>(i)] = kHex[bits & 0xf];
  }
  return id;
}

LabApp::QuoteResult LabApp::quote(Mode mode, const std::string& scenario, int customer_id, int items,
                                  const RetryPolicy* override_policy, double queue_ms) {
  return quote(std::string(to_string(mode)), scenario, customer_id, items, override_policy, queue_ms);
}

LabApp::QuoteResult LabApp::quote(const std::string& policy_name, const std::string& scenario, int customer_id,
                                  int items, const RetryPolicy* override_policy, double queue_ms,
                                  Priority priority, std::stop_token cancel) {
  const PolicyRuntime& runtime = runtimes_.at(policy_name);  // the route checked the name
  QuoteRequest request{policy_name, scenario.empty() ? carrier_mode() : scenario, customer_id, items,
                       new_id(16), new_id(32), name_, priority, std::move(cancel)};
  const RetryPolicy& chosen = override_policy ? *override_policy : *policies_.find(policy_name);
  QuoteExecutor& executor = runtime.executor ? *runtime.executor : executor_;
  QuoteTrace trace = executor.run(request, chosen, runtime.guards);
  FlowRecord flow = flow_record(trace, queue_ms);
  if (!class_log_) telemetry_.record(flow);  // else where it is shared (publish_quote)
  metrics_.record(trace);
  // Only a call that reached the carrier can change what the file holds (the failure
  // count, a cached quote); transitions mark it from the breaker's listener.
  if (trace.attempts() > 0) mark_state_dirty();
  DependencyView dependency = dependency_view(trace.dependency);
  return {std::move(trace), std::move(dependency), std::move(flow)};
}

void LabApp::publish_quote(const QuoteResult& result, const std::function<std::string()>& render_line) {
  if (!class_log_) {
    events_.publish_rendered("quote", render_line);
    return;
  }
  std::string line = render_line();
  events_.deliver("quote", line);
  // Recorded here, in the order it is shared: a reset read from the log meanwhile (older in
  // the class's order) must not erase it, and it counts after the resets sent before it.
  std::lock_guard order(order_mutex_);
  telemetry_.record(result.flow);
  unsettled_.push_back(result.flow);
  if (unsettled_.size() > kMaxUnsettled) unsettled_.pop_front();
  share({.lab = name_, .type = "quote", .line = std::move(line), .flow = result.flow,
         .breaker = result.dependency.breaker.state});
}

void LabApp::settle(const ClassEvent& own, const std::string& stream_id) {
  if (own.type == "design") {
    if (const auto d = design_of(own)) design_.placed(d->id, stream_id);
    return;
  }
  const bool setting = own.type == "reset" || own.type == "carrier_mode";
  bool unplaced = false;
  {
    std::lock_guard order(order_mutex_);
    // A setting Redis took after share_in_order stopped waiting: applied again where the
    // class's order put it — last so far, as on every other replica.
    unplaced = class_order_.read_back(setting, own.type == "reset", stream_id);
    // By identity: a reset here cleared the flows shared before it, which are read back after.
    if (own.type == "quote" && own.flow) {
      const std::string& id = own.flow->incident.request_id;
      const auto it = std::find_if(unsettled_.begin(), unsettled_.end(),
                                   [&id](const FlowRecord& f) { return f.incident.request_id == id; });
      if (it != unsettled_.end()) unsettled_.erase(it);
    }
  }
  if (!unplaced) return;
  apply(own, false, stream_id);
  class_order_.placed(own.type == "reset", stream_id);
}

std::optional<LabSnapshot> LabApp::snapshot(const std::string& through, const nlohmann::ordered_json& storm) {
  std::lock_guard order(order_mutex_);
  if (!unsettled_.empty()) return std::nullopt;
  auto position = class_order_.position_through(through, storm);
  if (!position) return std::nullopt;
  LabSnapshot s{.lab = name_, .through = through};
  s.last_entry = std::move(position->last_entry);
  s.storm = std::move(position->storm);
  s.carrier_mode = carrier_mode();
  s.telemetry = telemetry_.state();
  if (const auto d = design_.get()) {
    s.design = to_json(*d);
    s.design_at = design_.position();
  }
  return s;
}

void LabApp::install(const LabSnapshot& s) {
  std::lock_guard order(order_mutex_);
  telemetry_.restore(s.telemetry);
  // This replica's own flows not read back yet come after the snapshot in the class's order:
  // the class log appends none of them before the install (ClassLog::Hooks::before_replay),
  // so no other replica could have read them into a snapshot.
  for (const FlowRecord& f : unsettled_) telemetry_.record(f);
  if (const Scenario* mode = scenarios_.find(s.carrier_mode); mode && mode->name != carrier_mode())
    change_carrier_mode(*mode);
  class_order_.installed(s.through, s.last_entry, s.storm);
  if (!s.design.is_null()) {
    try {
      design_.offer(design_from_json(s.design), s.design_at.empty() ? "0-0" : s.design_at);
    } catch (const std::invalid_argument& e) {
      spdlog::warn("design{} in a snapshot left out: {}", log_label_, e.what());
    }
  }
}

void LabApp::apply(const ClassEvent& e, bool replay, const std::string& stream_id) {
  // What was made here came later in the class's order than an older entry read now: a
  // reset here erased what came before it, a mode set here replaced an older one.
  bool follow_breaker = false;
  {
    std::lock_guard order(order_mutex_);
    const ClassOrder::Take take = class_order_.take(stream_id, e.type == "carrier_mode");
    // A design is the student's submission, not the lab's state: a reset leaves it, and the
    // newest in the class's order holds (LabDesignSlot), whatever was set here meanwhile.
    if (e.type == "design") {
      if (auto d = design_of(e); d && design_.offer(std::move(*d), stream_id)) mark_state_dirty();
      return;
    }
    if (take == ClassOrder::Take::ignore) return;
    const bool keep_mode = take == ClassOrder::Take::apply_keeping_mode;
    if (e.type == "quote" && e.flow) {
      telemetry_.record(*e.flow);
      follow_breaker = !replay && replicated_ && e.breaker && *e.breaker != local_breaker_.state();
    } else if (e.type == "reset") {
      // The replica that reset cleared what Redis holds. This replica's flows not yet in
      // the log come after the reset in the class's order: they stay.
      reset_here(false, keep_mode, unsettled_);
    } else if (e.type == "carrier_mode") {
      if (const Scenario* s = scenarios_.find(e.mode)) change_carrier_mode(*s);
    } else if (e.type.starts_with("storm_")) {
      class_order_.follow_remote_storm(e);
    }
  }
  // The flow moved the shared breaker: follow it now, so that this replica's pages and
  // views show it without waiting for a quote here (one read of the store).
  if (follow_breaker) replicated_->join();
  // The page's events only, and a mode only when it is one: nothing else reaches a page.
  const bool page_event = e.type == "quote" || e.type == "reset" || e.type == "storm_progress" ||
                          e.type == "storm_sweep" || e.type == "storm_result" ||
                          (e.type == "carrier_mode" && scenarios_.find(e.mode));
  if (!replay && page_event) events_.deliver(e.type, e.line);
}

void LabApp::share_storm_start(const nlohmann::ordered_json& status) {
  if (!class_log_) return;
  class_order_.place_storm_start(
      [&] { return share_placed({.lab = name_, .type = "storm_status", .line = status.dump()}); });
}

void LabApp::share_storm_cancel() { share_placed({.lab = name_, .type = "storm_cancel", .line = "{}"}); }

PersistedLab LabApp::persisted_lab() {
  // This replica's breaker, which follows the shared one at every quote: the file is this
  // replica's memory, and reading Redis here would cost a round trip per lab at every save.
  const auto snap = local_breaker_.snapshot();
  PersistedLab s;
  s.breaker.state = snap.state;
  s.breaker.consecutive_failures = snap.consecutive_failures;
  s.breaker.opened_until = snap.opened_until;
  s.breaker.open_events = snap.open_events;
  s.fallback_seeded_at = cache_.seeded_at();
  s.fallback_quotes = cache_.entries();
  if (const auto d = design_.get()) s.design = to_json(*d).dump();
  return s;
}

DependencyView LabApp::dependency_view() { return dependency_view(breaker_.snapshot()); }

DependencyView LabApp::dependency_view(const BreakerSnapshot& breaker) {
  DependencyView v;
  v.breaker = breaker;
  v.now = clock_.wall_now();
  const auto latest = cache_.latest();
  v.fallback_quote = latest ? *latest : cache_.lookup(kCustomerId.fallback, kItems.fallback);
  if (state_file_) {
    LabStateFile::Health h = state_file_->health();
    v.state_file = std::move(h.path);
    v.state_file_set_aside = std::move(h.set_aside);
    v.state_file_error = std::move(h.error);
  }
  if (shared_state_) {
    const RedisHealth h = shared_state_->health();
    // Unhealthy: this replica decides alone; the page says so in the reader's language.
    v.state_backend = {"redis", h.healthy,
                       h.healthy ? std::nullopt : std::optional<std::string>("this replica only: " + h.error)};
  } else {
    v.state_backend = {"file", !v.state_file_error, v.state_file_error};
  }
  return v;
}

DiagnosticsView LabApp::diagnostics_view() { return {policies_, dependency_view(), carrier_mode()}; }

nlohmann::ordered_json LabApp::mode_summary() const {
  std::vector<std::string> names;
  for (const Scenario& s : scenarios_.all()) names.push_back(s.name);
  return telemetry_.summary_json(names);
}

std::vector<StrategyGauges> LabApp::strategy_gauges() const { return runtimes_.gauges(); }

std::vector<prometheus::MetricFamily> LabApp::metric_families() {
  auto families = metrics_.collect(breaker_.snapshot(), carrier_stats());
  add_strategy_gauges(families, strategy_gauges());
  if (shared_state_) {
    const RedisHealth h = shared_state_->health();
    Metrics::add_state_backend(families, h.healthy, h.errors_total);
  }
  return families;
}

void LabApp::reset() {
  const std::string line = nlohmann::ordered_json{{"at", format_iso8601(clock_.wall_now())}}.dump();
  {
    std::lock_guard order(order_mutex_);
    share_in_order({.lab = name_, .type = "reset", .line = line});
    reset_here(true, false);
    unsettled_.clear();  // shared before the reset: erased everywhere
  }
  events_.deliver("reset", line);
  spdlog::info("lab reset{}: telemetry, metrics, breaker, fallback cache and carrier mode back to seeds", log_label_);
}

void LabApp::reset_here(bool shared, bool keep_mode, const std::deque<FlowRecord>& kept) {
  telemetry_.reset(kept);
  metrics_.reset();
  if (shared || !replicated_) {
    breaker_.reset();
  } else {
    local_breaker_.reset();
    replicated_->join();  // the store, reset by the replica that was asked
  }
  runtimes_.reset();
  cache_.reset(shared);
  // A student lab's carrier counters are its own (the class's carrier restarts below).
  if (embedded_carrier_ && !mode_carrier_) embedded_carrier_->reset_counts(name_);
  if (keep_mode) {
    if (embedded_carrier_) embedded_carrier_->restart_episode(name_);
  } else {
    if (mode_carrier_) mode_carrier_->reset();  // the class's carrier, its mode and its episode
    else if (embedded_carrier_) embedded_carrier_->restart_episode(name_);  // this lab's own metastable episode
    std::lock_guard lock(mode_mutex_);
    external_mode_ = kDefaultScenario;
  }
  class_order_.reset();
  mark_state_dirty();
}

std::string LabApp::carrier_mode() const {
  if (mode_carrier_) return mode_carrier_->mode();
  std::lock_guard lock(mode_mutex_);
  return external_mode_;
}

bool LabApp::set_carrier_mode(const std::string& name) {
  const Scenario* s = scenarios_.find(name);
  if (s == nullptr) return false;
  const std::string line = nlohmann::ordered_json{{"mode", s->name}}.dump();
  {
    std::lock_guard order(order_mutex_);
    share_in_order({.lab = name_, .type = "carrier_mode", .line = line, .mode = s->name});
    change_carrier_mode(*s);
  }
  events_.deliver("carrier_mode", line);
  return true;
}

void LabApp::change_carrier_mode(const Scenario& scenario) {
  const Scenario* s = &scenario;
  if (mode_carrier_) mode_carrier_->set_mode(s->name);  // which restarts its episode
  else if (embedded_carrier_) embedded_carrier_->restart_episode(name_);  // as set_mode does for the class's
  {
    std::lock_guard lock(mode_mutex_);
    external_mode_ = s->name;
  }
  spdlog::info("carrier mode{} is now {}", log_label_, s->name);
}

std::optional<CarrierStats> LabApp::carrier_stats() const {
  if (!embedded_carrier_) return std::nullopt;
  // The teacher's lab speaks for the class's carrier (it sets its mode); a student's lab
  // counts its own calls only.
  return mode_carrier_ ? embedded_carrier_->stats() : embedded_carrier_->stats_for(name_);
}

std::optional<MetastableView> LabApp::metastable_episode() const {
  if (!embedded_carrier_) return std::nullopt;
  return embedded_carrier_->episode(name_, clock_.now());
}

std::optional<StationView> LabApp::shedding_station() const {
  if (!embedded_carrier_) return std::nullopt;
  return embedded_carrier_->station(name_, clock_.now());
}

void LabApp::mark_state_dirty() {
  if (state_file_) state_file_->changed();
}

}  // namespace quote_lab
