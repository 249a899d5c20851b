#include "lab/experiments/storm.hpp"

#include "lab/experiments/open_loop.hpp"
#include "lab/experiments/storm_client.hpp"
#include "lab/experiments/storm_report.hpp"
#include "lab/experiments/storm_tally.hpp"
#include "lab/experiments/storm_target.hpp"

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

std::string query(const StormOptions& o) {
  httplib::Params p{{"scenario", o.scenario}};
  for (const auto& [k, v] : o.params) p.emplace(k, v);
  if (!o.lab.empty()) p.emplace("lab", o.lab);
  if (!o.lab_key.empty()) p.emplace("lab_key", o.lab_key);
  return storm_quote_path(o.mode) + "?" + httplib::detail::params_to_query_str(p);
}

}  // namespace

std::vector<std::string> storm_targets(const StormOptions& o) {
  std::vector<std::string> all{o.target};
  all.insert(all.end(), o.extra_targets.begin(), o.extra_targets.end());
  return all;
}

namespace {

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

}  // namespace quote_lab
