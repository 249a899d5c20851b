#include "lab/app/cli.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <mutex>
#include <random>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "lab/app/classroom.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/app/lab_routes.hpp"
#include "lab/app/stop_signals.hpp"
#include "lab/carrier/carrier_server.hpp"
#include "lab/experiments/herd.hpp"
#include "lab/experiments/storm.hpp"
#include "lab/formats/policy_json.hpp"

namespace quote_lab {
namespace {

namespace fs = std::filesystem;

/// Defaults of `serve` (SPEC.md, "Processes and ports").
constexpr int kDefaultPort = 8080;
constexpr int kDefaultCarrierPort = 8081;
constexpr int kDefaultWorkers = 16;
constexpr int kDefaultCarrierWorkers = 32;

struct CommonOptions {
  std::string scenarios_dir;
  std::string log_level = "info";
  std::int64_t seed = -1;
};

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = kDefaultPort;
  std::string carrier_host = "127.0.0.1";
  int carrier_port = kDefaultCarrierPort;
  std::string carrier_url;
  int workers = kDefaultWorkers;
  int carrier_workers = kDefaultCarrierWorkers;
  std::string state_file;
  std::string policies_file;
  double open_duration_s = 0;  // 0: keep the policy's
  std::string public_dir;
  std::string chart_js = "/usr/share/javascript/chart.js/chart.min.js";
  int max_event_clients = 32;
  bool check_only = false;  // validate everything, bind nothing
  ClassroomOptions classroom;
};

// The project folder holding scenarios/ and public/: the current directory, then the
// folders above the binary, then the source tree the binary was built from.
fs::path project_dir() {
  std::error_code ec;
  if (fs::is_directory("scenarios", ec)) return fs::current_path();
  for (fs::path p = fs::read_symlink("/proc/self/exe", ec).parent_path(); !ec && !p.empty(); p = p.parent_path()) {
    if (fs::is_directory(p / "scenarios", ec)) return p;
    if (p == p.parent_path()) break;
  }
  return QUOTE_LAB_SOURCE_DIR;
}

std::uint64_t seed_of(const CommonOptions& o) {
  return o.seed >= 0 ? static_cast<std::uint64_t>(o.seed) : std::random_device{}();
}

Policies load_policies(const ServeOptions& o) {
  Policies p = default_policies();
  if (!o.policies_file.empty()) {
    std::ifstream in(o.policies_file);
    if (!in) throw PolicyError(o.policies_file + ": cannot be read");
    const auto j = nlohmann::ordered_json::parse(in, nullptr, false);
    if (j.is_discarded()) throw PolicyError(o.policies_file + ": not valid JSON");
    try {
      p = policies_from_json(j, p);
    } catch (const PolicyError& e) {
      throw PolicyError(o.policies_file + ": " + e.what());
    }
  }
  if (o.open_duration_s != 0) {  // 0 = keep the policy's; NaN and the rest are validated
    p.breaker.open_duration_s = o.open_duration_s;
    if (auto errors = validate(p); !errors.empty()) throw PolicyError("--open-duration-s: " + errors.front());
  }
  return p;
}

int run_serve(const ServeOptions& o, const CommonOptions& common) {
  const StopSignals signals;
  const fs::path root = project_dir();
  const fs::path scenarios_dir = common.scenarios_dir.empty() ? root / "scenarios" : fs::path(common.scenarios_dir);
  const fs::path public_dir = o.public_dir.empty() ? root / "public" : fs::path(o.public_dir);
  const fs::path state_file = o.state_file.empty() ? root / "var" / "state.json" : fs::path(o.state_file);

  const ScenarioCatalog catalog = ScenarioCatalog::load_dir(scenarios_dir);
  const Policies policies = load_policies(o);
  check_state_path(state_file);  // before any listener starts: a device or FIFO stops start-up here
  if (o.check_only) {
    spdlog::info("configuration is valid: {} scenarios from {}, policies {}, would listen on {}:{}",
                 catalog.all().size(), scenarios_dir.string(),
                 o.policies_file.empty() ? "built in" : o.policies_file, o.host, o.port);
    return 0;
  }
  SystemClock clock;
  RandomSource random(seed_of(common));

  std::unique_ptr<CarrierSimulator> simulator;
  std::unique_ptr<CarrierServer> carrier_server;
  std::string carrier_url = o.carrier_url;
  if (carrier_url.empty()) {
    simulator = std::make_unique<CarrierSimulator>(catalog, random);
    carrier_server = std::make_unique<CarrierServer>(*simulator, clock);
    const int port = carrier_server->start(o.carrier_host, o.carrier_port, o.carrier_workers);
    carrier_url = "http://" + o.carrier_host + ":" + std::to_string(port);
  }
  HttpCarrierClient carrier_client(carrier_url, clock);
  auto app = std::make_unique<LabApp>(LabDeps{catalog, policies, carrier_client, simulator.get(), state_file,
                                              clock, random, static_cast<std::size_t>(o.max_event_clients)});
  HttpServer server;
  apply_classroom(server, o.host, o.classroom);
  StormExperiment storm(app->events());
  register_lab_routes(server, *app, StaticRoots{public_dir, o.chart_js}, carrier_url, storm, o.workers);
  // Each open event stream holds a worker for as long as the page is open: they get their
  // own share of the pool so that --workers stays what quote requests can use.
  const int port = server.start(o.host, o.port, o.workers + o.max_event_clients);
  storm.set_self_url("http://" + (o.host == "0.0.0.0" ? std::string("127.0.0.1") : o.host) + ":" + std::to_string(port));

  const auto& r = policies.resilient;
  const auto& l = policies.legacy;
  spdlog::info("quote-lab listening on http://{}:{} with {} quote workers, up to {} connections ({} live dashboards)",
               o.host, port, o.workers, o.classroom.max_connections, o.max_event_clients);
  spdlog::info("carrier: {} ({}, {} workers)", carrier_url,
               simulator ? "embedded simulator" : "external", simulator ? o.carrier_workers : 0);
  spdlog::info("scenarios: {} from {}", catalog.all().size(), scenarios_dir.string());
  spdlog::info("legacy policy: timeout {} ms x {} attempts, no backoff, breaker {}, fallback {}",
               l.timeout_ms, l.max_attempts, l.circuit_breaker ? "on" : "off", l.fallback ? "on" : "off");
  spdlog::info("resilient policy: timeout {} ms x {} attempts, backoff {} ms x 2^(n-1) + {} jitter {}-{} ms (cap {} ms), "
               "breaker opens after {} failures for {} s, fallback {}",
               r.timeout_ms, r.max_attempts, r.backoff_base_ms, to_string(r.jitter), r.jitter_min_ms,
               r.jitter_max_ms, r.backoff_max_ms, policies.breaker.failure_threshold,
               policies.breaker.open_duration_s, r.fallback ? "on" : "off");
  spdlog::info("state file: {}", state_file.string());
  const std::string shown_host = o.host == "0.0.0.0" ? "127.0.0.1" : o.host;
  if (fs::exists(public_dir / "index.html"))
    spdlog::info("open http://{}:{}/ in a browser for the dashboard (curl it for the JSON index)", shown_host, port);
  else
    spdlog::info("try: curl 'http://{}:{}/quote-legacy?scenario=provider_down'", shown_host, port);

  const int sig = signals.wait();
  const auto stop_started = std::chrono::steady_clock::now();
  auto since_signal_ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - stop_started).count();
  };
  spdlog::info("{} received: stopping; a second Ctrl-C or SIGTERM exits at once", signal_name(sig));
  std::mutex save_mutex;  // the final save happens once, from the graceful stop or the urgent exit
  bool saved = false;
  auto save_state = [&] {
    std::lock_guard lock(save_mutex);
    if (saved) return;
    // A failed write is logged by the lab's error sink ("cannot save state ...").
    spdlog::info("saving the state to {}", state_file.string());
    app->flush_state();
    saved = true;
  };
  signals.run_graceful(
      [&] {
        // The order matters: the listener closes first, so that connections whose request
        // ends now (event streams, refused waiters) close instead of waiting for another one.
        server.stop_accepting();
        app->begin_shutdown();      // no new attempt, backoff waits end, waiting requests get a 503
        app->events().close_all();  // open event streams end
        storm.cancel();
        spdlog::info("no longer accepting connections; waiting for the requests in flight (each ends by its deadline)");
        server.stop();  // in-flight flows finish against a live carrier, so shutdown cannot open the breaker
        storm.cancel_and_wait();
        spdlog::info("requests in flight finished after {} ms", since_signal_ms());
        if (carrier_server) carrier_server->stop();
        save_state();
      },
      [&](int second) {
        spdlog::warn("{} received again: exiting now without waiting for the requests in flight", signal_name(second));
        save_state();
      });
  app.reset();
  spdlog::info("stopped cleanly in {} ms", since_signal_ms());
  return 0;
}

int run_carrier(const std::string& host, int port, int workers, const CommonOptions& common) {
  const StopSignals signals;
  const fs::path scenarios_dir = common.scenarios_dir.empty() ? project_dir() / "scenarios" : fs::path(common.scenarios_dir);
  const ScenarioCatalog catalog = ScenarioCatalog::load_dir(scenarios_dir);
  SystemClock clock;
  RandomSource random(seed_of(common));
  CarrierSimulator simulator(catalog, random);
  CarrierServer server(simulator, clock);
  const int bound = server.start(host, port, workers);
  spdlog::info("carrier simulator listening on http://{}:{} with {} workers, {} scenarios", host, bound,
               workers, catalog.all().size());
  const int sig = signals.wait();
  spdlog::info("{} received: stopping; simulated waits end now with a 503; a second Ctrl-C or SIGTERM exits at once",
               signal_name(sig));
  signals.run_graceful([&] { server.stop(); },
                       [](int second) { spdlog::warn("{} received again: exiting now", signal_name(second)); });
  spdlog::info("carrier stopped");
  return 0;
}

int run_storm_command(StormOptions o, const std::vector<std::string>& params, bool as_json) {
  for (const auto& kv : params) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::fprintf(stderr, "--param takes key=value (got '%s')\n", kv.c_str());
      return 2;
    }
    o.params.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  if (const auto errors = validate(o); !errors.empty()) {
    for (const auto& e : errors) std::fprintf(stderr, "quote-lab storm: %s\n", e.c_str());
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);
  const bool bar = isatty(STDERR_FILENO) != 0;
  const auto result = run_storm(o, [bar](const StormProgress& p) {
    if (!bar) return;
    const int width = 30;
    const int filled = static_cast<int>(p.fraction * width);
    std::fprintf(stderr, "\r[%s%s] %3d%%  %ld requests  %.1f s ", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), '.').c_str(), static_cast<int>(p.fraction * 100),
                 p.requests, p.elapsed_s);
    std::fflush(stderr);
  });
  if (bar) std::fprintf(stderr, "\n");
  if (result.requests == 0) {
    std::fprintf(stderr, "quote-lab storm: no request got an answer from %s (is the lab running?)\n", o.target.c_str());
    return 1;
  }
  if (as_json) std::printf("%s\n", to_json(result).dump(2).c_str());
  else std::printf("%s", format_report(result).c_str());
  if (result.status_counts.count("http_4xx"))
    std::fprintf(stderr, "quote-lab storm: the lab refused the request (HTTP 4xx): check --mode, --scenario and --param\n");
  return result.status_counts.count("http_4xx") ? 1 : 0;
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App cli{"quote-lab: legacy retries vs a resilient policy against a simulated carrier"};
  cli.require_subcommand(1);
  CommonOptions common;
  ServeOptions serve;

  auto* s = cli.add_subcommand("serve", "start the lab API and (unless --carrier-url) the simulated carrier");
  s->add_option("--host", serve.host, "address the lab listens on (0.0.0.0 to share it with a class)")
      ->envname("HOST")->capture_default_str();
  s->add_option("--port", serve.port, "lab port")->envname("PORT")->check(CLI::Range(0, 65535))->capture_default_str();
  s->add_option("--carrier-host", serve.carrier_host, "address the embedded carrier listens on")
      ->envname("CARRIER_HOST")->capture_default_str();
  s->add_option("--carrier-port", serve.carrier_port, "embedded carrier port")
      ->envname("CARRIER_PORT")->check(CLI::Range(0, 65535))->capture_default_str();
  s->add_option("--carrier-url", serve.carrier_url, "use the carrier at this URL instead of the embedded one")
      ->envname("CARRIER_URL");
  s->add_option("--workers", serve.workers, "lab worker threads (pool exhaustion is a lesson)")
      ->envname("WORKERS")->check(CLI::Range(1, 1024))->capture_default_str();
  s->add_option("--carrier-workers", serve.carrier_workers, "embedded carrier capacity (worker threads)")
      ->envname("CARRIER_WORKERS")->check(CLI::Range(1, 1024))->capture_default_str();
  s->add_option("--state-file", serve.state_file, "persisted breaker and fallback state (default var/state.json)")
      ->envname("STATE_FILE");
  s->add_option("--policies", serve.policies_file, "JSON policy file (see docs/policies.json)")
      ->envname("POLICIES")->check(CLI::ExistingFile);
  s->add_option("--open-duration-s", serve.open_duration_s, "breaker cooldown in seconds (default 30)")
      ->envname("OPEN_DURATION_S")->check(CLI::Range(0.1, 3600.0));
  s->add_option("--public-dir", serve.public_dir, "dashboard files (default public/)")->envname("PUBLIC_DIR");
  s->add_option("--max-event-clients", serve.max_event_clients,
                "dashboards that can receive live updates at once (more fall back to polling)")
      ->envname("MAX_EVENT_CLIENTS")->check(CLI::Range(0, 1024))->capture_default_str();
  s->add_option("--chart-js", serve.chart_js, "Chart.js for the dashboard (Debian's libjs-chart.js)")
      ->envname("CHART_JS")->capture_default_str();
  s->add_flag("--check", serve.check_only,
              "validate flags, scenarios and policies, print what would run, and exit without listening");
  add_classroom_flags(*s, serve.classroom);

  std::string carrier_host = "127.0.0.1";
  int carrier_port = kDefaultCarrierPort;
  int carrier_workers = kDefaultCarrierWorkers;
  auto* c = cli.add_subcommand("carrier", "start only the simulated carrier");
  c->add_option("--host", carrier_host, "address")->envname("HOST")->capture_default_str();
  c->add_option("--port", carrier_port, "port")->envname("PORT")->check(CLI::Range(0, 65535))->capture_default_str();
  c->add_option("--workers", carrier_workers, "capacity (worker threads)")->check(CLI::Range(1, 1024))->capture_default_str();

  StormOptions storm;
  std::vector<std::string> storm_params;
  bool storm_json = false;
  long storm_requests = 0;
  auto* st = cli.add_subcommand("storm", "run N concurrent clients against a lab and report latency, amplification and waste");
  st->add_option("--target", storm.target, "the lab to storm")->capture_default_str();
  st->add_option("--mode", storm.mode, "legacy or resilient")->capture_default_str();
  st->add_option("--scenario", storm.scenario, "scenario name or alias")->capture_default_str();
  st->add_option("--clients", storm.clients, "concurrent clients (1-500)")->capture_default_str();
  auto* duration = st->add_option("--duration", storm.duration_s, "seconds to run (default 10)");
  st->add_option("--requests", storm_requests, "total requests instead of a duration")->excludes(duration);
  st->add_option("--param", storm_params, "extra quote parameter key=value, e.g. --param jitter=full (repeatable)");
  st->add_option("--settle-s", storm.settle_s, "wait up to this long for the carrier's calls in flight before reading waste")
      ->capture_default_str();
  st->add_flag("--json", storm_json, "print the result as JSON");

  HerdOptions herd;
  herd.policy = default_policies().resilient;
  bool herd_json = false;
  auto* hd = cli.add_subcommand("herd", "thundering herd: compare jitter strategies when K clients fail together");
  // Bounded so a run stays under a few seconds: at most 10^7 simulated calls.
  hd->add_option("--clients", herd.clients, "K clients failing at once")->check(CLI::Range(1, 10000))->capture_default_str();
  hd->add_option("--recover-after-s", herd.recover_after_s, "T: seconds until the carrier recovers")
      ->check(CLI::Range(0.0, 3600.0))->capture_default_str();
  hd->add_option("--capacity", herd.capacity, "calls the recovered carrier serves at once")
      ->check(CLI::Range(1, 100000))->capture_default_str();
  hd->add_option("--backoff-base-ms", herd.policy.backoff_base_ms, "backoff base")->check(CLI::Range(1, 60000))->capture_default_str();
  hd->add_option("--backoff-max-ms", herd.policy.backoff_max_ms, "backoff cap")->check(CLI::Range(1, 600000))->capture_default_str();
  hd->add_option("--max-attempts", herd.max_attempts, "a client gives up after this many calls")
      ->check(CLI::Range(1, 1000))->capture_default_str();
  hd->add_option("--seed", herd.seed, "random seed (the same seed, the same table)")->capture_default_str();
  hd->add_flag("--json", herd_json, "print JSON instead of a Markdown table");

  for (auto* sub : {s, c}) {
    sub->add_option("--scenarios-dir", common.scenarios_dir, "scenario files (default scenarios/)")->envname("SCENARIOS_DIR");
    sub->add_option("--seed", common.seed, "seed of the random source (jitter, latencies) for reproducible runs")
        ->envname("SEED");
    sub->add_option("--log-level", common.log_level, "trace, debug, info, warn, error")
        ->envname("LOG_LEVEL")->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}))->capture_default_str();
  }

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e) == 0 ? 0 : 2;
  }
  spdlog::set_level(spdlog::level::from_str(common.log_level));
  if (hd->parsed()) {
    const auto results = simulate_all_strategies(herd);
    if (herd_json) {
      nlohmann::ordered_json j = nlohmann::ordered_json::array();
      for (const auto& r : results) j.push_back(to_json(r));
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("%s", format_herd_table(herd, results).c_str());
    }
    return 0;
  }
  if (st->parsed()) {
    if (storm_requests != 0) storm.requests = storm_requests;
    return run_storm_command(storm, storm_params, storm_json);
  }
  try {
    if (s->parsed()) return run_serve(serve, common);
    return run_carrier(carrier_host, carrier_port, carrier_workers, common);
  } catch (const std::exception& e) {
    // Start-up errors (bad scenario or policy file, busy port) stop the lab with one message.
    spdlog::critical("cannot start: {}", e.what());
    return 1;
  }
}

}  // namespace quote_lab
