#include "lab/experiments/storm.hpp"

#include "lab/base/did_you_mean.hpp"
#include "lab/http/httplib_statics.hpp"
#include "lab/http/params.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/vocabulary.hpp"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <mutex>
#include <sstream>
#include <thread>

namespace quote_lab {
namespace {

using Steady = std::chrono::steady_clock;

std::unique_ptr<httplib::Client> client_for(const std::string& target, std::chrono::seconds read_timeout) {
  auto c = std::make_unique<httplib::Client>(target);
  c->set_tcp_nodelay(true);
  c->set_keep_alive(true);
  c->set_connection_timeout(std::chrono::seconds(5));
  c->set_read_timeout(read_timeout);
  return c;
}

// One field of the lab's GET /carrier (of a student lab when `lab` is set); nullopt when
// the lab does not answer or the field is null (an external carrier, no episode).
std::optional<nlohmann::ordered_json> carrier_field(const std::string& target, const std::string& lab,
                                                    const char* field) {
  auto c = client_for(target, std::chrono::seconds(10));
  auto res = c->Get(lab.empty() ? "/carrier" : "/carrier?lab=" + lab);
  if (!res || res->status != 200) return std::nullopt;
  auto j = nlohmann::ordered_json::parse(res->body, nullptr, false);
  if (j.is_discarded() || !j.contains(field) || j[field].is_null()) return std::nullopt;
  return j[field];
}

// The carrier's counters as the lab shows them at GET /carrier (null when external).
std::optional<nlohmann::ordered_json> carrier_stats(const std::string& target) {
  return carrier_field(target, "", "stats");
}

// The lab's metastable episode as GET /carrier shows it (null: none, or no embedded carrier).
std::optional<nlohmann::ordered_json> metastable_episode(const std::string& target, const std::string& lab) {
  return carrier_field(target, lab, "metastable");
}

// Carrier calls the lab has made in `mode` (quote_lab_carrier_attempts_total without the
// short circuits, which never leave the lab, plus the hedged calls sent,
// quote_lab_hedges_total{outcome="sent"}), read from its JSON metrics. Its `mode` label is
// the policy's name, a named policy's too (metrics.hpp).
std::optional<double> lab_carrier_calls(const std::string& target, const std::string& lab, const std::string& mode) {
  auto c = client_for(target, std::chrono::seconds(10));
  auto res = c->Get(lab.empty() ? "/metrics" : "/metrics?lab=" + lab, {{"Accept", "application/json"}});
  if (!res || res->status != 200) return std::nullopt;
  const auto j = nlohmann::json::parse(res->body, nullptr, false);
  if (j.is_discarded() || !j.contains("metrics")) return std::nullopt;
  std::optional<double> total;
  for (const auto& family : j["metrics"]) {
    const std::string name = family.value("name", "");
    const bool attempts = name == "quote_lab_carrier_attempts_total";
    if (!attempts && name != "quote_lab_hedges_total") continue;
    if (attempts) total = total.value_or(0);
    for (const auto& sample : family["samples"]) {
      const auto& labels = sample["labels"];
      if (labels.value("mode", "") != mode) continue;
      if (attempts ? labels.value("outcome", "") != "short_circuit" : labels.value("outcome", "") == "sent")
        total = total.value_or(0) + sample.value("value", 0.0);
    }
  }
  return total;
}

nlohmann::ordered_json latency_json(const LatencySummary& s) {
  auto v = [](const std::optional<double>& x) {
    return x ? nlohmann::ordered_json(std::round(*x * 100) / 100) : nlohmann::ordered_json(nullptr);
  };
  return {{"p50", v(s.p50_ms)}, {"p95", v(s.p95_ms)}, {"p99", v(s.p99_ms)}, {"max", v(s.max_ms)}, {"samples", s.count}};
}

std::string query(const StormOptions& o) {
  httplib::Params p{{"scenario", o.scenario}};
  for (const auto& [k, v] : o.params) p.emplace(k, v);
  if (!o.lab.empty()) p.emplace("lab", o.lab);
  return storm_quote_path(o.mode) + "?" + httplib::detail::params_to_query_str(p);
}

// The policy names the lab's index lists (every key of `policies` but the course breaker's),
// or nullopt when it lists none.
std::optional<std::vector<std::string>> lab_policy_names(const std::string& target) {
  auto c = client_for(target, std::chrono::seconds(30));
  const auto res = c->Get("/", {{"Accept", "application/json"}});
  if (!res || res->status != 200) return std::nullopt;
  const auto j = nlohmann::ordered_json::parse(res->body, nullptr, false);  // ordered: the index's order
  if (!j.is_object() || !j.contains("policies") || !j["policies"].is_object()) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& [name, _] : j["policies"].items())
    if (name != "breaker") names.push_back(name);
  return names;
}

}  // namespace

nlohmann::ordered_json params_json(const std::vector<std::pair<std::string, std::string>>& params) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [k, v] : params) out[k] = v;
  return out;
}

std::string storm_quote_path(const std::string& mode) {
  return parse_mode(mode) ? "/quote-" + mode : "/quote/" + mode;
}

std::optional<std::string> check_storm_mode(const std::string& target, const std::string& mode) {
  const auto names = lab_policy_names(target).value_or(mode_names());
  if (std::find(names.begin(), names.end(), mode) != names.end()) return std::nullopt;
  std::string allowed;
  for (const auto& n : names) allowed += (allowed.empty() ? "" : ", ") + n;
  const auto meant = did_you_mean(mode, names);
  return "--mode '" + mode.substr(0, 40) + "' is not a policy of " + target +
         (meant ? " (did you mean '" + *meant + "'?)" : "") + "; its policies: " + allowed;
}

std::vector<std::string> storm_targets(const StormOptions& o) {
  std::vector<std::string> all{o.target};
  all.insert(all.end(), o.extra_targets.begin(), o.extra_targets.end());
  return all;
}

std::vector<std::string> validate(const StormOptions& o) {
  std::vector<std::string> errors;
  for (const auto& t : storm_targets(o))
    if (t.rfind("http://", 0) != 0) {
      errors.push_back("--target must be an http:// URL of a running lab");
      break;
    }
  if (!valid_policy_name(o.mode))
    errors.push_back("--mode must name a policy: legacy, resilient or a named one of the lab (1-32 of a-z, 0-9, '_', '-')");
  if (o.clients < 1 || o.clients > kStormMaxClients)
    errors.push_back("--clients must be between 1 and " + std::to_string(kStormMaxClients) +
                     " (this machine has 2 cores; more clients only measure the client)");
  if (o.requests) {
    if (*o.requests < 1 || *o.requests > kStormMaxRequests)
      errors.push_back("--requests must be between 1 and " + std::to_string(kStormMaxRequests));
  } else if (!(o.duration_s >= 0.1 && o.duration_s <= kStormMaxDurationS)) {
    errors.push_back("--duration must be between 0.1 and 600 seconds");
  }
  if (o.settle_s < 0 || o.settle_s > 60) errors.push_back("settle time must be between 0 and 60 seconds");
  if (o.layers < 1 || o.layers > kStormMaxLayers)
    errors.push_back("--layers must be between 1 and " + std::to_string(kStormMaxLayers) +
                     " (each layer multiplies the calls and the time of a request by 4: 5 layers make 1,024 carrier "
                     "calls and last about 6 minutes per request)");
  else if (o.layers > 1 && !o.extra_targets.empty())
    errors.push_back("--layers takes one --target: the relays stand in front of one lab");
  return errors;
}

std::optional<std::string> check_storm_target(const std::string& target) {
  prime_httplib_statics();
  auto c = client_for(target, std::chrono::seconds(30));
  const auto res = c->Get("/health", {{"Accept", "application/json"}});
  if (!res)
    return target + " does not answer (" + httplib::to_string(res.error()) + "): is the lab running there? (`quote-lab serve`)";
  const auto body = nlohmann::json::parse(res->body, nullptr, false);
  const std::string service =
      body.is_object() && body.contains("service") && body["service"].is_string() ? body["service"].get<std::string>() : "";
  if (res->status == 200 && service == "quote-lab") return std::nullopt;
  if (service == "carrier")
    return target + " is the simulated carrier, not a quote lab: storm the lab's own port (8080 unless "
                    "`quote-lab serve --port` says otherwise), which calls this carrier for you";
  return target + " is not a quote lab: its GET /health answered HTTP " + std::to_string(res->status) +
         (service.empty() ? std::string(" without \"service\": \"quote-lab\"") : " from service '" + service.substr(0, 40) + "'");
}

namespace {

// What one storm client saw.
struct ClientLog {
  std::vector<double> latency_ms, attempt_ms;
  std::map<std::string, long> statuses;
};

// What the clients and the monitor share while a storm runs.
struct StormRun {
  const StormOptions& o;
  const std::atomic<bool>* cancel;
  Steady::time_point started = Steady::now();
  std::atomic<long> issued{0};
  std::atomic<long> finished{0};
  std::atomic<bool> stop{false};  // a 4xx: every request would fail alike

  Steady::time_point after(double seconds) const {
    return started + std::chrono::duration_cast<Steady::duration>(std::chrono::duration<double>(seconds));
  }
  bool should_stop() const {
    return stop.load() || (cancel && cancel->load()) || (!o.requests && Steady::now() >= after(o.duration_s)) ||
           (o.time_limit_s > 0 && Steady::now() >= after(o.time_limit_s));
  }
};

// One answer into the client's log. Every field is checked before it is read: a throw in a
// client thread would end the process.
void record_answer(const httplib::Response& res, ClientLog& log, std::atomic<bool>& stop) {
  if (res.status == 429) {  // the lab's --rate-limit said no: an answer, not a bad option
    ++log.statuses["rate_limited"];
    return;
  }
  if (res.status >= 400 && res.status < 500) {
    ++log.statuses["http_4xx"];
    stop = true;  // a bad option fails every request alike: stop instead of hammering
    return;
  }
  const auto body = nlohmann::json::parse(res.body, nullptr, false);
  const bool has_status = body.is_object() && body.contains("status") && body["status"].is_string();
  ++log.statuses[has_status ? body["status"].get<std::string>() : "error"];
  if (body.is_object() && body.contains("events") && body["events"].is_array())
    for (const auto& e : body["events"])
      if (e.is_object() && e.contains("elapsed_ms") && e["elapsed_ms"].is_number())
        log.attempt_ms.push_back(e["elapsed_ms"].get<double>());
}

// One client: asks `path` of `target` back to back until the storm ends.
void run_client(StormRun& run, const std::string& target, std::chrono::seconds timeout, const std::string& path,
                ClientLog& log) {
  auto cli = client_for(target, timeout);
  while (!run.should_stop()) {
    if (run.o.requests && run.issued.fetch_add(1) >= *run.o.requests) break;
    const auto t0 = Steady::now();
    auto res = cli->Get(path);
    log.latency_ms.push_back(std::chrono::duration<double, std::milli>(Steady::now() - t0).count());
    ++run.finished;
    if (res) {
      record_answer(*res, log, run.stop);
    } else {
      ++log.statuses["error"];
      cli = client_for(target, timeout);  // a fresh connection after a failure
    }
  }
}

// The monitor: /health latency (of each target in turn) and progress, until `done`.
void watch_health(const StormRun& run, const std::vector<std::string>& targets, const std::atomic<bool>& done,
                  const std::function<void(const StormProgress&)>& on_progress, std::vector<double>& health_ms) {
  std::vector<std::unique_ptr<httplib::Client>> health;
  for (const auto& t : targets) health.push_back(client_for(t, std::chrono::seconds(10)));
  auto last_progress = Steady::now();
  for (std::size_t turn = 0; !done; ++turn) {
    const std::size_t t = turn % targets.size();
    const auto t0 = Steady::now();
    auto res = health[t]->Get("/health");
    if (res) health_ms.push_back(std::chrono::duration<double, std::milli>(Steady::now() - t0).count());
    else health[t] = client_for(targets[t], std::chrono::seconds(10));
    if (on_progress && Steady::now() - last_progress >= std::chrono::milliseconds(200)) {
      last_progress = Steady::now();
      const double elapsed = std::chrono::duration<double>(Steady::now() - run.started).count();
      const double fraction = run.o.requests ? static_cast<double>(run.finished) / static_cast<double>(*run.o.requests)
                                             : elapsed / run.o.duration_s;
      on_progress({run.finished.load(), elapsed, std::min(1.0, fraction)});
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// The clients' logs into the result: totals, and per target (client i stormed target i % n).
void tally(StormResult& result, const std::vector<ClientLog>& logs, const std::vector<std::string>& targets,
           std::vector<double> health_ms) {
  const std::size_t n_targets = targets.size();
  std::vector<double> latency, attempts;
  std::vector<std::vector<double>> target_latency(n_targets);
  result.per_target.resize(n_targets);
  for (std::size_t i = 0; i < logs.size(); ++i) {
    const ClientLog& log = logs[i];
    StormTargetResult& per = result.per_target[i % n_targets];
    ++per.clients;
    auto& mine = target_latency[i % n_targets];
    mine.insert(mine.end(), log.latency_ms.begin(), log.latency_ms.end());
    latency.insert(latency.end(), log.latency_ms.begin(), log.latency_ms.end());
    attempts.insert(attempts.end(), log.attempt_ms.begin(), log.attempt_ms.end());
    for (const auto& [k, v] : log.statuses) {
      result.status_counts[k] += v;
      per.status_counts[k] += v;
    }
  }
  for (std::size_t t = 0; t < n_targets; ++t) {
    StormTargetResult& per = result.per_target[t];
    per.target = targets[t];
    per.requests = static_cast<long>(target_latency[t].size());
    per.latency = summarize_latency(std::move(target_latency[t]));
  }
  result.requests = static_cast<long>(latency.size());
  result.throughput_rps = result.elapsed_s > 0 ? static_cast<double>(result.requests) / result.elapsed_s : 0;
  result.latency = summarize_latency(std::move(latency));
  result.attempt_latency = summarize_latency(std::move(attempts));
  result.health_latency = summarize_latency(std::move(health_ms));
}

// Amplification counts the calls the lab sent. A saturated carrier receives them later
// (queued behind hung calls), and keeps working on them after their callers left.
void count_lab_calls(StormResult& result, const StormOptions& o, const std::vector<std::string>& targets,
                     const std::vector<std::optional<double>>& calls_before) {
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const auto calls_after = lab_carrier_calls(targets[t], o.lab, o.mode);
    if (!calls_before[t] || !calls_after) continue;
    const auto calls = static_cast<std::uint64_t>(std::llround(*calls_after - *calls_before[t]));
    result.per_target[t].carrier_calls = calls;
    result.carrier_calls = result.carrier_calls.value_or(0) + calls;
  }
  if (result.carrier_calls && result.requests > 0)
    result.amplification = static_cast<double>(*result.carrier_calls) / static_cast<double>(result.requests);
}

// The carrier's own counters since `before`. The waste of hung calls is only known once they
// end: give them up to --settle-s to finish.
void count_carrier_waste(StormResult& result, const StormRun& run, const std::string& carrier_target,
                         const std::optional<nlohmann::ordered_json>& before) {
  if (!before) return;
  auto after = carrier_stats(carrier_target);
  const auto settle_until =
      Steady::now() + std::chrono::duration_cast<Steady::duration>(std::chrono::duration<double>(run.o.settle_s));
  while (after && (*after)["in_flight"].get<int>() > 0 && Steady::now() < settle_until &&
         !(run.cancel && run.cancel->load())) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    after = carrier_stats(carrier_target);
  }
  if (!after) return;
  result.carrier_received = (*after)["calls_total"].get<std::uint64_t>() - (*before)["calls_total"].get<std::uint64_t>();
  result.carrier_in_flight_after = (*after)["in_flight"].get<int>();
  result.wasted_carrier_calls = (*after)["wasted_calls"].get<std::uint64_t>() - (*before)["wasted_calls"].get<std::uint64_t>();
  result.wasted_carrier_seconds = (*after)["wasted_seconds"].get<double>() - (*before)["wasted_seconds"].get<double>();
  result.carrier_peak_in_flight = (*after)["peak_in_flight"].get<int>();
}

}  // namespace

StormResult run_storm(const StormOptions& o, const std::function<void(const StormProgress&)>& on_progress,
                      const std::atomic<bool>* cancel) {
  StormResult result;
  result.options = o;
  const std::vector<std::string> targets = storm_targets(o);
  // Replicas share one carrier: its counters are read from the first target that embeds it.
  std::string carrier_target = o.target;
  auto before = carrier_stats(o.target);
  for (std::size_t t = 1; t < targets.size() && !before; ++t)
    if ((before = carrier_stats(targets[t]))) carrier_target = targets[t];
  std::vector<std::optional<double>> calls_before;
  for (const auto& t : targets) calls_before.push_back(lab_carrier_calls(t, o.lab, o.mode));
  const std::string path = query(o);
  // Layers: relays in front of the lab, their timeouts from the longest flow the lab can
  // run (when it does not say, the bound it puts on any quote with overrides).
  std::optional<RelayChain> chain;
  if (o.layers > 1)
    chain.emplace(o.target, o.layers, lab_flow_worst_ms(o.target, o.mode, o.params).value_or(std::chrono::milliseconds(kMaxQuoteMs)),
                  o.clients);
  const auto client_timeout = chain ? std::chrono::duration_cast<std::chrono::seconds>(chain->client_timeout())
                                    : std::chrono::seconds(30);

  StormRun run{o, cancel};
  std::vector<ClientLog> logs(static_cast<std::size_t>(o.clients));
  prime_httplib_statics();  // before the client threads (lab/httplib_statics.hpp)
  std::vector<std::thread> clients;
  for (int i = 0; i < o.clients; ++i) {
    // Client i storms targets[i % n]: the replicas get equal shares (round robin).
    const std::string* target = chain ? &chain->entry() : &targets[static_cast<std::size_t>(i) % targets.size()];
    clients.emplace_back([&, i, target] {
      run_client(run, *target, client_timeout, path, logs[static_cast<std::size_t>(i)]);
    });
  }
  std::vector<double> health_ms;
  std::atomic<bool> clients_done{false};
  std::thread monitor([&] { watch_health(run, targets, clients_done, on_progress, health_ms); });
  for (auto& t : clients) t.join();
  result.elapsed_s = std::chrono::duration<double>(Steady::now() - run.started).count();
  clients_done = true;
  monitor.join();
  if (on_progress) on_progress({run.finished.load(), result.elapsed_s, 1.0});

  tally(result, logs, targets, std::move(health_ms));
  // Read as the clients stop: whether the carrier recovered while the storm still called it.
  result.metastable = metastable_episode(o.target, o.lab);
  count_lab_calls(result, o, targets, calls_before);
  if (chain) result.layers = chain->layers(result.carrier_calls.value_or(0), result.requests);
  count_carrier_waste(result, run, carrier_target, before);
  return result;
}

namespace {

// Everything but the layers, in the order the JSON has always had.
nlohmann::ordered_json json_without_layers(const StormResult& r) {
  auto opt = [](const auto& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr); };
  nlohmann::ordered_json statuses = nlohmann::ordered_json::object();
  for (const auto& [k, v] : r.status_counts) statuses[k] = v;
  nlohmann::ordered_json health = latency_json(r.health_latency);
  nlohmann::ordered_json targets = nlohmann::ordered_json::array();
  for (const auto& t : r.per_target) {
    nlohmann::ordered_json counts = nlohmann::ordered_json::object();
    for (const auto& [k, v] : t.status_counts) counts[k] = v;
    targets.push_back({{"target", t.target},
                       {"clients", t.clients},
                       {"requests", t.requests},
                       {"status_counts", counts},
                       {"latency_ms", latency_json(t.latency)},
                       {"carrier_calls", opt(t.carrier_calls)}});
  }
  return {{"target", r.options.target},
          {"mode", r.options.mode},
          {"scenario", r.options.scenario},
          {"params", params_json(r.options.params)},
          {"clients", r.options.clients},
          {"requests", r.requests},
          {"elapsed_s", std::round(r.elapsed_s * 100) / 100},
          {"throughput_rps", std::round(r.throughput_rps * 10) / 10},
          {"latency_ms", latency_json(r.latency)},
          {"status_counts", statuses},
          {"attempt_latency_ms", latency_json(r.attempt_latency)},
          {"carrier_calls", opt(r.carrier_calls)},
          {"amplification", r.amplification ? nlohmann::ordered_json(std::round(*r.amplification * 1000) / 1000)
                                            : nlohmann::ordered_json(nullptr)},
          {"health_latency_ms", health},
          {"wasted_carrier_calls", opt(r.wasted_carrier_calls)},
          {"wasted_carrier_seconds", r.wasted_carrier_seconds ? nlohmann::ordered_json(std::round(*r.wasted_carrier_seconds * 1000) / 1000)
                                                              : nlohmann::ordered_json(nullptr)},
          {"carrier_received", opt(r.carrier_received)},
          {"carrier_in_flight_after", opt(r.carrier_in_flight_after)},
          {"carrier_peak_in_flight", opt(r.carrier_peak_in_flight)},
          {"targets", targets}};
}

}  // namespace

nlohmann::ordered_json to_json(const StormResult& r) {
  nlohmann::ordered_json out = json_without_layers(r);
  if (!r.layers.empty()) {
    out["layers"] = nlohmann::ordered_json::array();
    for (const auto& l : r.layers) out["layers"].push_back(to_json(l));
  }
  if (r.metastable) out["metastable"] = *r.metastable;
  return out;
}

namespace {
// One line on a metastable episode: did the carrier come back while the storm called it?
void report_metastable(std::ostream& out, const nlohmann::ordered_json& m, double storm_s) {
  const double since = m.value("since_trigger_start_s", 0.0);
  const double trigger_s = m.value("down_ms", 0) / 1000.0;
  out << "  metastable        trigger " << trigger_s << " s; ";
  if (!m.value("trigger_over", false)) out << "still in the trigger when the storm ended\n";
  else if (m.contains("recovered_after_trigger_s") && m["recovered_after_trigger_s"].is_number())
    out << "the carrier recovered " << m["recovered_after_trigger_s"].get<double>() << " s after the trigger ended\n";
  else if (m.value("calls_after_trigger", 0) == 0)
    out << "no call reached the carrier since the trigger ended (" << since - trigger_s
        << " s ago): nothing overloads it, its recovery shows with the next calls\n";
  else
    out << "NOT recovered: " << since - trigger_s << " s after the trigger ended the carrier was still overloaded ("
        << m.value("overloaded_calls", 0) << " of " << m.value("calls_after_trigger", 0) << " calls since)\n";
  // An episode is per lab and starts with its first call: a second storm finds it long over.
  if (since > storm_s + 2)
    out << "                    (the trigger started " << since - storm_s
        << " s before this storm: POST /reset-lab starts a new episode)\n";
}
}  // namespace

std::string format_report(const StormResult& r) {
  auto ms = [](const std::optional<double>& v) {
    std::ostringstream s;
    if (v) s << std::fixed << std::setprecision(1) << *v << " ms";
    else s << "—";
    return s.str();
  };
  std::ostringstream out;
  out << std::fixed << std::setprecision(1);
  out << "storm: " << r.options.clients << " clients on " << storm_quote_path(r.options.mode) << "?scenario=" << r.options.scenario
      << " against " << r.options.target;
  if (!r.options.extra_targets.empty()) out << " and " << r.options.extra_targets.size() << " more (round robin)";
  out << "\n";
  out << "  requests          " << r.requests << " in " << r.elapsed_s << " s (" << r.throughput_rps << " req/s)\n";
  out << "  latency           p50 " << ms(r.latency.p50_ms) << ", p95 " << ms(r.latency.p95_ms) << ", p99 "
      << ms(r.latency.p99_ms) << ", max " << ms(r.latency.max_ms) << "\n";
  out << "  status            ";
  for (const auto& [k, v] : r.status_counts) out << k << " " << v << "  ";
  out << "\n";
  out << "  carrier calls     ";
  if (r.carrier_calls) out << *r.carrier_calls << " sent by the lab (" << std::setprecision(2) << r.amplification.value_or(0) << " per quote request)\n";
  else out << "—\n";
  if (r.carrier_received)
    out << "  carrier received  " << *r.carrier_received << " so far, " << r.carrier_in_flight_after.value_or(0)
        << " still being served (a saturated carrier works through abandoned calls long after)\n";
  out << std::setprecision(1);
  out << "  /health latency   p50 " << ms(r.health_latency.p50_ms) << ", p99 " << ms(r.health_latency.p99_ms) << ", max "
      << ms(r.health_latency.max_ms) << "  (measured alongside: worker exhaustion shows here)\n";
  out << "  wasted carrier    ";
  if (r.wasted_carrier_calls)
    out << *r.wasted_carrier_calls << " calls finished after their caller gave up, " << std::setprecision(2)
        << r.wasted_carrier_seconds.value_or(0) << " s of carrier time\n";
  else out << "—\n";
  if (r.metastable) report_metastable(out, *r.metastable, r.elapsed_s);
  if (!r.layers.empty()) {
    out << "  layers            " << r.layers.size() << ": layer 1 is the lab (its own policy), the others relays of "
        << kRelayAttempts << " attempts without backoff\n";
    for (const auto& l : r.layers)
      out << "    layer " << l.layer << " -> " << l.calls << "  " << l.requests << " requests, " << l.calls_out
          << " calls (" << std::setprecision(2) << l.calls_per_request << " per client request)\n";
    out << std::setprecision(1);
  }
  if (r.per_target.size() > 1) {
    out << "  per target\n";
    for (const auto& t : r.per_target) {
      out << "    " << t.target << "  " << t.clients << " clients, " << t.requests << " requests, p50 "
          << ms(t.latency.p50_ms) << ", carrier calls ";
      if (t.carrier_calls) out << *t.carrier_calls;
      else out << "—";
      out << ",";
      for (const auto& [k, v] : t.status_counts) out << " " << k << " " << v;
      out << "\n";
    }
    out << "    total  " << r.options.clients << " clients, " << r.requests << " requests, carrier calls ";
    if (r.carrier_calls) out << *r.carrier_calls;
    else out << "—";
    out << "\n";
  }
  return out.str();
}

}  // namespace quote_lab
