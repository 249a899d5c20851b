#include "lab/app/cli.hpp"

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "lab/app/classroom.hpp"
#include "lab/app/options.hpp"
#include "lab/app/serve_wiring.hpp"
#include "lab/experiments/herd.hpp"
#include "lab/experiments/herd_occ.hpp"
#include "lab/experiments/storm.hpp"
#include "lab/resilience/policy.hpp"

namespace quote_lab {
namespace {

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
  // Every target, before any is stormed: one wrong port (or a replica without the policy)
  // must not half-run a comparison.
  for (const auto& target : storm_targets(o)) {
    auto problem = check_storm_target(target);
    if (!problem) problem = check_storm_mode(target, o.mode);
    if (problem) {
      std::fprintf(stderr, "quote-lab storm: %s\n", problem->c_str());
      return 1;
    }
  }
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
    std::fprintf(stderr, "quote-lab storm: no request got an answer from %s%s (is the lab running?)\n", o.target.c_str(),
                 o.extra_targets.empty() ? "" : " or the other targets");
    return 1;
  }
  if (as_json) std::printf("%s\n", to_json(result).dump(2).c_str());
  else std::printf("%s", format_report(result).c_str());
  if (result.status_counts.count("http_4xx"))
    std::fprintf(stderr, "quote-lab storm: the lab refused the request (HTTP 4xx): check --mode, --scenario and --param\n");
  return result.status_counts.count("http_4xx") ? 1 : 0;
}

int usage_error(const char* command, const std::string& message) {
  std::fprintf(stderr, "quote-lab %s: %s\n", command, message.c_str());
  return 2;
}

// Both herd models print the same way: a Markdown table, or a JSON array with one object per strategy.
template <class Result>
int print_herd(const std::vector<Result>& results, bool as_json, const std::string& table) {
  if (!as_json) {
    std::printf("%s", table.c_str());
    return 0;
  }
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& r : results) j.push_back(to_json(r));
  std::printf("%s\n", j.dump(2).c_str());
  return 0;
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
  s->add_option("--state-backend", serve.state_backend,
                "file, or redis://HOST:PORT[/DB] to share the breaker between replicas")
      ->envname("STATE_BACKEND")->capture_default_str();
  s->add_option("--state-backend-timeout-ms", serve.state_backend_timeout_ms,
                "longest a quote waits on the shared state backend per round trip before deciding locally")
      ->envname("STATE_BACKEND_TIMEOUT_MS")->check(CLI::Range(1, 5000))->capture_default_str();
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
  s->add_option("--language", "es or en: the language of messages for requests whose Accept-Language names "
                               "neither (curl sends none); a request that names one still gets it")
      ->envname("LAB_LANGUAGE")->check(CLI::IsMember({"en", "es"}))->default_str("en")
      ->each([&serve](const std::string& v) { serve.language = v == "es" ? Language::es : Language::en; });
  s->add_flag("--check", serve.check_only,
              "validate flags, scenarios and policies, print what would run, and exit without listening");
  add_classroom_flags(*s, serve.classroom);
  add_rate_limit_flags(*s, serve.rate_limit);

  CarrierOptions carrier;
  auto* c = cli.add_subcommand("carrier", "start only the simulated carrier");
  c->add_option("--host", carrier.host, "address")->envname("HOST")->capture_default_str();
  c->add_option("--port", carrier.port, "port")->envname("PORT")->check(CLI::Range(0, 65535))->capture_default_str();
  c->add_option("--workers", carrier.workers, "capacity (worker threads)")->check(CLI::Range(1, 1024))->capture_default_str();

  StormOptions storm;
  std::vector<std::string> storm_params;
  bool storm_json = false;
  long storm_requests = 0;
  auto* st = cli.add_subcommand("storm", "run N concurrent clients against a lab and report latency, amplification and waste");
  std::vector<std::string> storm_target_list;
  st->add_option("--target", storm_target_list,
                 "the lab to storm (default " + storm.target + "); repeat it for replicas: clients are dealt to "
                 "them round robin, and the report shows each one and the totals");
  st->add_option("--mode", storm.mode,
                 "the policy to storm: legacy, resilient (the course routes) or any named policy the lab serves, "
                 "e.g. adr0005 (GET / lists them)")
      ->capture_default_str();
  st->add_option("--scenario", storm.scenario, "scenario name or alias")->capture_default_str();
  st->add_option("--clients", storm.clients, "concurrent clients (1-500)")->capture_default_str();
  auto* duration = st->add_option("--duration", storm.duration_s, "seconds to run (default 10)");
  st->add_option("--requests", storm_requests, "total requests instead of a duration")->excludes(duration);
  st->add_option("--param", storm_params, "extra quote parameter key=value, e.g. --param jitter=full (repeatable)");
  st->add_option("--settle-s", storm.settle_s, "wait up to this long for the carrier's calls in flight before reading waste")
      ->capture_default_str();
  st->add_option("--layers", storm.layers,
                 "retrying layers in front of the carrier, 1-5: 1 is the lab alone; N puts N-1 relays that retry "
                 "4 times without backoff in front of it, and the report shows the calls of each")
      ->capture_default_str();
  st->add_flag("--json", storm_json, "print the result as JSON");

  HerdOptions herd;
  herd.policy = default_policies().resilient;
  OccHerdOptions occ;
  std::string herd_model = "carrier";
  bool herd_json = false;
  auto* hd = cli.add_subcommand("herd", "thundering herd: compare jitter strategies when K clients fail together");
  hd->add_option("--model", herd_model,
                 "carrier: the carrier is down until T, then serves `capacity` calls at once; occ: the AWS "
                 "article's own set-up (clients contending for one optimistic-concurrency row)")
      ->check(CLI::IsMember({"carrier", "occ"}))->capture_default_str();
  // Bounded so a run stays under a few seconds: at most 10^7 simulated calls (occ: see kOccMaxClients).
  hd->add_option("--clients", herd.clients, "K clients failing at once (occ: at most " + std::to_string(kOccMaxClients) + ")")
      ->check(CLI::Range(1, 10000))->capture_default_str();
  auto* herd_base = hd->add_option("--backoff-base-ms", herd.policy.backoff_base_ms,
                                   "backoff base (default 80 with --model carrier, 5 with occ)")->check(CLI::Range(1, 60000));
  auto* herd_cap = hd->add_option("--backoff-max-ms", herd.policy.backoff_max_ms, "backoff cap (default 2000)")
                       ->check(CLI::Range(1, 600000));
  hd->add_option("--seed", herd.seed, "random seed (the same seed, the same table)")->capture_default_str();
  const std::vector<CLI::Option*> carrier_only = {
      hd->add_option("--recover-after-s", herd.recover_after_s, "carrier model: seconds until the carrier recovers (T)")
          ->check(CLI::Range(0.0, 3600.0))->capture_default_str(),
      hd->add_option("--capacity", herd.capacity, "carrier model: calls the recovered carrier serves at once")
          ->check(CLI::Range(1, 100000))->capture_default_str(),
      hd->add_option("--max-attempts", herd.max_attempts, "carrier model: a client gives up after this many calls")
          ->check(CLI::Range(1, 1000))->capture_default_str()};
  auto* herd_runs = hd->add_option("--runs", occ.runs, "occ model: average over this many runs (at most " +
                                                           std::to_string(kOccMaxRuns) + ")")->capture_default_str();
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
    if (herd_model == "carrier") {
      if (herd_runs->count() > 0) return usage_error("herd", "--runs applies to --model occ only");
      const auto results = simulate_all_strategies(herd);
      return print_herd(results, herd_json, format_herd_table(herd, results));
    }
    for (const auto* opt : carrier_only)
      if (opt->count() > 0) return usage_error("herd", opt->get_name() + " applies to --model carrier only");
    occ.clients = herd.clients;
    occ.seed = herd.seed;
    if (herd_base->count() > 0) occ.backoff_base_ms = herd.policy.backoff_base_ms;
    if (herd_cap->count() > 0) occ.backoff_cap_ms = herd.policy.backoff_max_ms;
    if (const auto errors = validate(occ); !errors.empty()) {
      for (const auto& e : errors) usage_error("herd", e);
      return 2;
    }
    const auto results = simulate_occ_herd(occ);
    return print_herd(results, herd_json, format_occ_table(occ, results));
  }
  if (st->parsed()) {
    if (storm_requests != 0) storm.requests = storm_requests;
    if (!storm_target_list.empty()) {
      storm.target = storm_target_list.front();
      storm.extra_targets.assign(storm_target_list.begin() + 1, storm_target_list.end());
    }
    return run_storm_command(storm, storm_params, storm_json);
  }
  try {
    if (s->parsed()) return run_serve(serve, common);
    return run_carrier(carrier, common);
  } catch (const std::exception& e) {
    // Start-up errors (bad scenario or policy file, busy port) stop the lab with one message.
    spdlog::critical("cannot start: {}", e.what());
    return 1;
  }
}

}  // namespace quote_lab
