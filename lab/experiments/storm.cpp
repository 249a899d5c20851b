#include "lab/experiments/storm.hpp"

#include "lab/experiments/open_loop.hpp"
#include "lab/experiments/storm_client.hpp"

#include "lab/base/did_you_mean.hpp"
#include "lab/http/httplib_statics.hpp"
#include "lab/http/params.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/vocabulary.hpp"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <iomanip>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

namespace quote_lab {
namespace {

using Steady = StormSteady;

// One field of the lab's GET /carrier (of a student lab when `lab` is set); nullopt when
// the lab does not answer or the field is null (an external carrier, no episode).
std::optional<nlohmann::ordered_json> carrier_field(const std::string& target, const std::string& lab,
                                                    const char* field) {
  auto c = storm_http_client(target, std::chrono::seconds(10));
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
  auto c = storm_http_client(target, std::chrono::seconds(10));
  // Only the two families (the whole JSON of a busy lab is some 300 KB): read every second.
  const std::string families = "/metrics?family=quote_lab_carrier_attempts_total,quote_lab_hedges_total";
  auto res = c->Get(lab.empty() ? families : families + "&lab=" + lab, {{"Accept", "application/json"}});
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
  if (!o.lab_key.empty()) p.emplace("lab_key", o.lab_key);
  return storm_quote_path(o.mode) + "?" + httplib::detail::params_to_query_str(p);
}

// The policy names the lab's index lists (every key of `policies` but the course breaker's),
// or nullopt when it lists none.
std::optional<std::vector<std::string>> lab_policy_names(const std::string& target) {
  auto c = storm_http_client(target, std::chrono::seconds(30));
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

namespace {

// A number as the errors write it: "0.1", "2000".
std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// The open loop's settings, the priority mix and the goodput rule.
void validate_open_loop(const StormOptions& o, std::vector<std::string>& errors) {
  if (o.rate_per_s && !(*o.rate_per_s >= kStormMinRatePerS && *o.rate_per_s <= kStormMaxRatePerS))
    errors.push_back("--rate must be between " + number_text(kStormMinRatePerS) + " and " + number_text(kStormMaxRatePerS) +
                     " arrivals per second (this machine has 2 cores, shared by the storm, the lab and its carrier)");
  if (o.max_in_flight < 1 || o.max_in_flight > kStormMaxInFlight)
    errors.push_back("--max-in-flight must be between 1 and " + std::to_string(kStormMaxInFlight) +
                     " (each request in flight is a thread and a connection here, and a connection at the lab)");
  if (!(o.sheddable_share >= 0 && o.sheddable_share <= 1))
    errors.push_back("--sheddable-share must be between 0 and 1 (the share of requests marked X-Priority: sheddable)");
  if (!(o.goodput.deadline_ms >= 1 && o.goodput.deadline_ms <= 60000))
    errors.push_back("--goodput-deadline-ms must be between 1 and 60000");
  if (!(o.goodput.fallback_max_age_s >= 0 && o.goodput.fallback_max_age_s <= 86400))
    errors.push_back("--fallback-max-age-s must be between 0 and 86400 (a day)");
}

}  // namespace

std::string load_model(const StormOptions& o) { return o.rate_per_s ? "open" : "closed"; }

std::uint64_t storm_seed(const StormOptions& o) {
  if (o.seed) return *o.seed;
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
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
  validate_open_loop(o, errors);
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
  auto c = storm_http_client(target, std::chrono::seconds(30));
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

// The monitor: /health latency (of each target in turn) and progress, until `done`.
void watch_health(const StormRun& run, const std::vector<std::string>& targets, const std::atomic<bool>& done,
                  const std::function<void(const StormProgress&)>& on_progress, std::vector<double>& health_ms) {
  std::vector<std::unique_ptr<httplib::Client>> health;
  for (const auto& t : targets) health.push_back(storm_http_client(t, std::chrono::seconds(10)));
  auto last_progress = Steady::now();
  for (std::size_t turn = 0; !done; ++turn) {
    const std::size_t t = turn % targets.size();
    const auto t0 = Steady::now();
    auto res = health[t]->Get("/health");
    if (res) health_ms.push_back(std::chrono::duration<double, std::milli>(Steady::now() - t0).count());
    else health[t] = storm_http_client(targets[t], std::chrono::seconds(10));
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

// The senders' logs into the result: totals, and per target (each log says its target).
void tally(StormResult& result, const std::vector<ClientLog>& logs, const std::vector<std::string>& targets,
           std::vector<double> health_ms) {
  const std::size_t n_targets = targets.size();
  std::vector<double> latency, attempts;
  std::vector<std::vector<double>> target_latency(n_targets);
  result.per_target.resize(n_targets);
  for (const ClientLog& log : logs) {
    StormTargetResult& per = result.per_target[log.target];
    if (log.is_client) ++per.clients;
    auto& mine = target_latency[log.target];
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

// Load, goodput, the timeline and the priorities from the requests' records; `open` is the
// open loop's own tally (null: a closed loop, whose arrivals are its requests, all sent).
void tally_load(StormResult& result, const std::vector<ClientLog>& logs, const OpenLoopTally* open,
                const std::vector<std::optional<double>>& carrier_calls_at) {
  std::vector<RequestRecord> records;
  for (const ClientLog& log : logs) records.insert(records.end(), log.records.begin(), log.records.end());
  for (const auto v : answer_verdicts()) result.verdicts[std::string(to_string(v))] = 0;
  for (const auto& r : records)
    if (r.sent) ++result.verdicts[std::string(to_string(r.verdict))];
  result.goodput = result.verdicts["useful"];
  result.goodput_live = std::count_if(records.begin(), records.end(), [](const RequestRecord& r) { return r.sent && r.live; });
  result.arrivals = open ? open->arrivals : static_cast<long>(records.size());
  result.arrivals_not_sent = open ? open->not_sent : 0;
  // Closed: the clients send until the duration is over, then wait for their last answers.
  const StormOptions& o = result.options;
  const double sending_s = o.requests ? result.elapsed_s : std::min(result.elapsed_s, o.duration_s);
  result.arrival_window_s = open ? open->window_s : sending_s;
  if (result.arrival_window_s > 0) {
    result.offered_rps = static_cast<double>(result.arrivals) / result.arrival_window_s;
    result.goodput_rps = static_cast<double>(result.goodput) / result.arrival_window_s;
    result.goodput_live_rps = static_cast<double>(result.goodput_live) / result.arrival_window_s;
  }
  if (result.arrivals > 0) result.goodput_ratio = static_cast<double>(result.goodput) / static_cast<double>(result.arrivals);
  if (open) {
    result.dispatch_lag = summarize_latency(open->lag_ms);
    result.peak_in_flight = open->peak_in_flight;
  }
  // By duration, the timeline's seconds are the duration's, not the few ms of a late wake-up.
  const double span_s = o.requests ? result.arrival_window_s : std::min(result.arrival_window_s, o.duration_s);
  result.timeline = bucket_timeline(records, span_s, carrier_calls_at);
  if (o.sheddable_share > 0) result.by_priority = count_by_priority(records);
}

// When a storm's arrivals are over (the open loop's window, the closed loop's clients
// stopping), for the threads that read something each second until then.
class ArrivalsOver {
 public:
  void mark() {
    {
      std::lock_guard lock(mutex_);
      at_ = Steady::now();
    }
    over_.notify_all();
  }
  // Waits until `t` or the end; false when the arrivals ended before `t`.
  bool wait_until(Steady::time_point t) {
    std::unique_lock lock(mutex_);
    over_.wait_until(lock, t, [this] { return at_.has_value(); });
    return !at_ || *at_ >= t;
  }

 private:
  std::mutex mutex_;  // guards at_
  std::condition_variable over_;
  std::optional<Steady::time_point> at_;
};

// The labs' cumulative carrier calls in the storm's mode, read on each whole second since the
// start until the arrivals are over (element i: at i s; nullopt: a reading failed).
std::vector<std::optional<double>> sample_carrier_calls(const StormRun& run, const std::vector<std::string>& targets,
                                                        ArrivalsOver& over) {
  std::vector<std::optional<double>> samples;
  for (int second = 0; over.wait_until(run.after(second)); ++second) {
    std::optional<double> sum = 0.0;
    for (const auto& t : targets) {
      const auto calls = lab_carrier_calls(t, run.o.lab, run.o.mode);
      sum = sum && calls ? std::optional<double>(*sum + *calls) : std::nullopt;
    }
    samples.push_back(sum);
  }
  return samples;
}

// The closed loop: o.clients clients, client i on targets[i % n] (the replicas get equal
// shares), or all of them on the outermost relay.
std::vector<ClientLog> run_closed_loop(StormRun& run, const std::vector<std::string>& targets, const std::string* relay,
                                       std::chrono::seconds timeout, const std::string& path) {
  std::vector<ClientLog> logs(static_cast<std::size_t>(run.o.clients));
  std::vector<std::thread> clients;
  for (std::size_t i = 0; i < logs.size(); ++i) {
    logs[i].target = i % targets.size();
    logs[i].is_client = true;
    const std::string* target = relay ? relay : &targets[logs[i].target];
    clients.emplace_back([&, i, target] { run_storm_client(run, *target, timeout, path, logs[i]); });
  }
  for (auto& t : clients) t.join();
  return logs;
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
  // A reset of the lab (or of the class's carrier) during the storm starts its counters again:
  // then what they hold is what came after it, never a negative difference.
  const bool restarted = (*after)["calls_total"].get<std::uint64_t>() < (*before)["calls_total"].get<std::uint64_t>();
  auto since = [&](const char* field) {
    return (*after)[field].get<std::uint64_t>() - (restarted ? 0 : (*before)[field].get<std::uint64_t>());
  };
  result.carrier_received = since("calls_total");
  result.carrier_in_flight_after = (*after)["in_flight"].get<int>();
  result.wasted_carrier_calls = since("wasted_calls");
  result.wasted_carrier_seconds =
      (*after)["wasted_seconds"].get<double>() - (restarted ? 0.0 : (*before)["wasted_seconds"].get<double>());
  result.carrier_peak_in_flight = (*after)["peak_in_flight"].get<int>();
}

}  // namespace

StormResult run_storm(const StormOptions& o, const std::function<void(const StormProgress&)>& on_progress,
                      const std::atomic<bool>* cancel) {
  StormResult result;
  result.options = o;
  result.seed = storm_seed(o);
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
                  o.rate_per_s ? o.max_in_flight : o.clients);
  const auto client_timeout = chain ? std::chrono::duration_cast<std::chrono::seconds>(chain->client_timeout())
                                    : std::chrono::seconds(30);

  StormRun run{o, cancel};
  prime_httplib_statics();  // before the sender threads (lab/httplib_statics.hpp)
  std::vector<double> health_ms;
  std::atomic<bool> senders_done{false};
  std::thread monitor([&] { watch_health(run, targets, senders_done, on_progress, health_ms); });
  ArrivalsOver arrivals_over;
  std::vector<std::optional<double>> carrier_calls_at;
  std::thread sampler([&] { carrier_calls_at = sample_carrier_calls(run, targets, arrivals_over); });
  std::vector<ClientLog> logs;
  std::optional<OpenLoopTally> open;
  if (o.rate_per_s) {
    RandomSource random(result.seed);
    open = run_open_loop(run, chain ? std::vector<std::string>{chain->entry()} : targets, client_timeout, path, random,
                         [&] { arrivals_over.mark(); });
    logs = std::move(open->logs);
  } else {
    logs = run_closed_loop(run, targets, chain ? &chain->entry() : nullptr, client_timeout, path);
    arrivals_over.mark();
  }
  result.elapsed_s = run.since_start_s(Steady::now());
  senders_done = true;
  monitor.join();
  sampler.join();
  if (on_progress) on_progress({run.finished.load(), result.elapsed_s, 1.0});

  tally(result, logs, targets, std::move(health_ms));
  tally_load(result, logs, open ? &*open : nullptr, carrier_calls_at);
  // Read as the senders stop: whether the carrier recovered while the storm still called it.
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
                       {"clients", r.options.rate_per_s ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t.clients)},
                       {"requests", t.requests},
                       {"status_counts", counts},
                       {"latency_ms", latency_json(t.latency)},
                       {"carrier_calls", opt(t.carrier_calls)}});
  }
  return {{"target", r.options.target},
          {"mode", r.options.mode},
          {"scenario", r.options.scenario},
          {"params", params_json(r.options.params)},
          {"clients", r.options.rate_per_s ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.options.clients)},
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


// The load and its goodput (StormResult's second part), rounded as a report reads them.
nlohmann::ordered_json load_json(const StormResult& r) {
  const StormOptions& o = r.options;
  const bool open = o.rate_per_s.has_value();
  auto round_to = [](double v, double per_unit) { return std::round(v * per_unit) / per_unit; };
  auto open_only = [open](auto v) { return open ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); };
  nlohmann::ordered_json verdicts = nlohmann::ordered_json::object();
  for (const auto v : answer_verdicts()) {
    const std::string name(to_string(v));
    const auto it = r.verdicts.find(name);
    verdicts[name] = it == r.verdicts.end() ? 0 : it->second;  // every verdict, 0 included
  }
  nlohmann::ordered_json out = {
      {"load_model", load_model(o)},
      {"rate_per_s", open_only(o.rate_per_s.value_or(0))},
      {"arrival_process", open_only(std::string(to_string(o.arrivals)))},
      {"max_in_flight", open_only(o.max_in_flight)},
      {"seed", r.seed},
      {"arrivals", r.arrivals},
      {"arrivals_not_sent", r.arrivals_not_sent},
      {"arrival_window_s", round_to(r.arrival_window_s, 1000)},
      {"offered_rps", round_to(r.offered_rps, 100)},
      {"goodput", r.goodput},
      {"goodput_rps", round_to(r.goodput_rps, 100)},
      {"goodput_live", r.goodput_live},
      {"goodput_live_rps", round_to(r.goodput_live_rps, 100)},
      {"goodput_ratio", r.goodput_ratio ? nlohmann::ordered_json(round_to(*r.goodput_ratio, 10000)) : nlohmann::ordered_json(nullptr)},
      {"goodput_rule", {{"deadline_ms", o.goodput.deadline_ms}, {"fallback_max_age_s", o.goodput.fallback_max_age_s}}},
      {"verdicts", verdicts},
      {"dispatch_lag_ms", open ? latency_json(r.dispatch_lag) : nlohmann::ordered_json(nullptr)},
      {"peak_in_flight", open_only(r.peak_in_flight)},
      {"sheddable_share", o.sheddable_share}};
  if (o.sheddable_share > 0) {
    out["by_priority"] = nlohmann::ordered_json::object();
    for (const auto& [priority, counts] : r.by_priority) out["by_priority"][priority] = to_json(counts);
  }
  return out;
}

}  // namespace

nlohmann::ordered_json to_json(const StormResult& r) {
  nlohmann::ordered_json out = json_without_layers(r);
  out.update(load_json(r));
  if (!r.layers.empty()) {
    out["layers"] = nlohmann::ordered_json::array();
    for (const auto& l : r.layers) out["layers"].push_back(to_json(l));
  }
  if (r.metastable) out["metastable"] = *r.metastable;
  out["timeline"] = to_json(r.timeline);
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

// Who made the load: the open loop's arrivals or the closed loop's clients.
std::string load_words(const StormOptions& o) {
  std::ostringstream out;
  if (o.rate_per_s) out << number_text(*o.rate_per_s) << " arrivals/s (" << to_string(o.arrivals) << ", open loop)";
  else out << o.clients << " clients";
  return out.str();
}

// Two lines: the load offered, and the goodput it got.
void report_load(std::ostream& out, const StormResult& r) {
  const StormOptions& o = r.options;
  out << std::setprecision(1);
  out << "  load              ";
  if (o.rate_per_s)
    out << "open loop: " << number_text(*o.rate_per_s) << " arrivals/s asked (" << to_string(o.arrivals) << "), " << r.offered_rps
        << " offered: " << r.arrivals << " arrivals in " << r.arrival_window_s << " s, " << r.arrivals_not_sent
        << " not sent (at most " << o.max_in_flight << " in flight; " << r.peak_in_flight << " at the peak)\n";
  else
    out << "closed loop: " << o.clients << " clients, each waiting for its answer: " << r.arrivals << " requests, "
        << r.offered_rps << "/s offered\n";
  out << "  goodput           " << r.goodput << " useful answers, " << r.goodput_rps << "/s, "
      << 100 * r.goodput_ratio.value_or(0) << " % of arrivals (HTTP 200, a live quote or a fallback at most "
      << number_text(o.goodput.fallback_max_age_s) << " s old, within " << number_text(o.goodput.deadline_ms) << " ms); "
      << r.goodput_live << " of them live quotes, " << r.goodput_live_rps << "/s";
  std::string why;
  for (const auto& [verdict, n] : r.verdicts)
    if (verdict != "useful" && n > 0) why += (why.empty() ? "" : ", ") + verdict + " " + std::to_string(n);
  out << (why.empty() ? "\n" : "; not useful: " + why + "\n");
  for (const auto& [priority, c] : r.by_priority)
    out << "    " << priority << "  " << c.arrivals << " arrivals, " << c.sent << " sent, " << c.useful << " useful\n";
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
  out << "storm: " << load_words(r.options) << " on " << storm_quote_path(r.options.mode) << "?scenario=" << r.options.scenario
      << " against " << r.options.target;
  if (!r.options.extra_targets.empty()) out << " and " << r.options.extra_targets.size() << " more (round robin)";
  out << "\n";
  out << "  requests          " << r.requests << " in " << r.elapsed_s << " s (" << r.throughput_rps << " req/s)\n";
  out << "  latency           p50 " << ms(r.latency.p50_ms) << ", p95 " << ms(r.latency.p95_ms) << ", p99 "
      << ms(r.latency.p99_ms) << ", max " << ms(r.latency.max_ms) << "\n";
  report_load(out, r);
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
      out << "    " << t.target << "  ";
      if (!r.options.rate_per_s) out << t.clients << " clients, ";
      out << t.requests << " requests, p50 "
          << ms(t.latency.p50_ms) << ", carrier calls ";
      if (t.carrier_calls) out << *t.carrier_calls;
      else out << "—";
      out << ",";
      for (const auto& [k, v] : t.status_counts) out << " " << k << " " << v;
      out << "\n";
    }
    out << "    total  ";
    if (!r.options.rate_per_s) out << r.options.clients << " clients, ";
    out << r.requests << " requests, carrier calls ";
    if (r.carrier_calls) out << *r.carrier_calls;
    else out << "—";
    out << "\n";
  }
  return out.str();
}

}  // namespace quote_lab
