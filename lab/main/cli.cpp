#include "lab/main/cli.hpp"

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "lab/app/options.hpp"
#include "lab/experiments/herd.hpp"
#include "lab/experiments/herd_occ.hpp"
#include "lab/experiments/storm.hpp"
#include "lab/experiments/storm_report.hpp"
#include "lab/experiments/storm_target.hpp"
#include "lab/main/classroom.hpp"
#include "lab/main/serve_wiring.hpp"
#include "lab/main/simulate_command.hpp"
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

// The flags of `serve`, into `serve` (options.hpp says what each one means).
CLI::App* add_serve_command(CLI::App& cli, ServeOptions& serve) {
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
  s->add_option("--workers", serve.workers,
                 "quotes each lab serves at once (its own bulkhead: pool exhaustion is a lesson inside the lab "
                 "that storms, never another's)")
      ->envname("WORKERS")->check(CLI::Range(1, 1024))->capture_default_str();
  s->add_option("--carrier-workers", serve.carrier_workers, "embedded carrier capacity (worker threads)")
      ->envname("CARRIER_WORKERS")->check(CLI::Range(1, 1024))->capture_default_str();
  s->add_option("--state-file", serve.state_file, "persisted breaker and fallback state (default var/state.json)")
      ->envname("STATE_FILE");
  s->add_option("--state-backend", serve.state_backend,
                "file, or redis://[[USER]:PASSWORD@]HOST:PORT[/DB] to share the breaker between replicas "
                "(a password is better given in the STATE_BACKEND environment variable than on the command line)")
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
  return s;
}

CLI::App* add_carrier_command(CLI::App& cli, CarrierOptions& carrier) {
  auto* c = cli.add_subcommand("carrier", "start only the simulated carrier");
  c->add_option("--host", carrier.host, "address")->envname("HOST")->capture_default_str();
  c->add_option("--port", carrier.port, "port")->envname("PORT")->check(CLI::Range(0, 65535))->capture_default_str();
  c->add_option("--workers", carrier.workers, "capacity (worker threads)")->check(CLI::Range(1, 1024))->capture_default_str();
  return c;
}

// `storm`'s flags as parsed; run_storm_command turns them into StormOptions.
struct StormCommand {
  StormOptions options;
  std::vector<std::string> params;   // --param key=value, as typed
  std::vector<std::string> targets;  // --target, repeated for replicas
  long requests = 0;
  double rate_per_s = 0;
  std::string arrivals = "poisson";
  std::uint64_t seed = 0;
  bool json = false;
  CLI::App* sub = nullptr;
  CLI::Option* clients = nullptr;
  CLI::Option* rate = nullptr;
  CLI::Option* seed_given = nullptr;
  std::vector<CLI::Option*> open_only;  // flags of the open loop: refused without --rate
};

// The open loop's flags, the priority mix and the goodput rule.
void add_storm_load_flags(CLI::App& st, StormCommand& storm) {
  StormOptions& o = storm.options;
  storm.rate = st.add_option("--rate", storm.rate_per_s,
                             "open loop: arrivals per second (0.1-2000), each sent without waiting for any answer, "
                             "instead of --clients");
  storm.open_only = {
      st.add_option("--arrivals", storm.arrivals, "with --rate: poisson (independent users) or uniform (every 1/R s)")
          ->check(CLI::IsMember(arrival_process_names()))->capture_default_str(),
      st.add_option("--max-in-flight", o.max_in_flight,
                    "with --rate: requests unanswered at once (1-500); an arrival beyond it is not sent, and counted")
          ->capture_default_str()};
  storm.seed_given = st.add_option("--seed", storm.seed, "seed of the arrival schedule (the report shows the one used)");
  st.add_option("--sheddable-share", o.sheddable_share,
                "share of requests (0-1) sent with X-Priority: sheddable, the rest critical (0: no header)")
      ->capture_default_str();
  st.add_option("--goodput-deadline-ms", o.goodput.deadline_ms,
                "an answer later than this after its request arrived is not goodput")->capture_default_str();
  st.add_option("--fallback-max-age-s", o.goodput.fallback_max_age_s,
                "a fallback quote older than this is not goodput")->capture_default_str();
}

// --rate or --clients, and the open loop's flags only with --rate; the options then.
std::optional<std::string> storm_load_problem(StormCommand& storm) {
  if (storm.rate->count() > 0 && storm.clients->count() > 0)
    return "--rate and --clients exclude each other: --rate R sends R arrivals a second whatever the answers (open "
           "loop); --clients N keeps N clients, each waiting for its answer (closed loop)";
  if (storm.rate->count() == 0)
    for (const auto* opt : storm.open_only)
      if (opt->count() > 0) return opt->get_name() + " applies to --rate only (the open loop)";
  if (storm.rate->count() > 0) storm.options.rate_per_s = storm.rate_per_s;
  storm.options.arrivals = parse_arrival_process(storm.arrivals).value_or(ArrivalProcess::poisson);
  if (storm.seed_given->count() > 0) storm.options.seed = storm.seed;
  return std::nullopt;
}

void add_storm_command(CLI::App& cli, StormCommand& storm) {
  StormOptions& o = storm.options;
  auto* st = storm.sub =
      cli.add_subcommand("storm", "storm a lab with N clients (closed loop) or R arrivals a second (open loop) and report "
                                  "latency, goodput, amplification and waste");
  st->add_option("--target", storm.targets,
                 "the lab to storm (default " + o.target + "); repeat it for replicas: clients are dealt to "
                 "them round robin, and the report shows each one and the totals");
  st->add_option("--mode", o.mode,
                 "the policy to storm: legacy, resilient (the course routes) or any named policy the lab serves, "
                 "e.g. adr0005 (GET / lists them)")
      ->capture_default_str();
  st->add_option("--scenario", o.scenario, "scenario name or alias")->capture_default_str();
  storm.clients = st->add_option("--clients", o.clients, "closed loop: concurrent clients (1-500), each waiting for its answer")
                      ->capture_default_str();
  auto* duration = st->add_option("--duration", o.duration_s, "seconds to run (default 10)");
  st->add_option("--requests", storm.requests, "total requests (with --rate: arrivals) instead of a duration")
      ->excludes(duration);
  st->add_option("--param", storm.params, "extra quote parameter key=value, e.g. --param jitter=full (repeatable)");
  st->add_option("--settle-s", o.settle_s, "wait up to this long for the carrier's calls in flight before reading waste")
      ->capture_default_str();
  st->add_option("--layers", o.layers,
                 "retrying layers in front of the carrier, 1-5: 1 is the lab alone; N puts N-1 relays that retry "
                 "4 times without backoff in front of it, and the report shows the calls of each")
      ->capture_default_str();
  add_storm_load_flags(*st, storm);
  st->add_flag("--json", storm.json, "print the result as JSON");
}

// `herd`'s flags as parsed: the options of both models, and which flags were given (a flag
// of the other model is a usage error, not silently ignored).
struct HerdCommand {
  HerdOptions herd;
  OccHerdOptions occ;
  std::string model = "carrier";
  bool json = false;
  CLI::App* sub = nullptr;
  CLI::Option* base = nullptr;
  CLI::Option* cap = nullptr;
  CLI::Option* runs = nullptr;
  std::vector<CLI::Option*> carrier_only;
};

void add_herd_command(CLI::App& cli, HerdCommand& h) {
  h.herd.policy = default_policies().resilient;
  auto* hd = h.sub = cli.add_subcommand("herd", "thundering herd: compare jitter strategies when K clients fail together");
  hd->add_option("--model", h.model,
                 "carrier: the carrier is down until T, then serves `capacity` calls at once; occ: the AWS "
                 "article's own set-up (clients contending for one optimistic-concurrency row)")
      ->check(CLI::IsMember({"carrier", "occ"}))->capture_default_str();
  // Bounded so a run stays under a few seconds: at most 10^7 simulated calls (occ: see kOccMaxClients).
  hd->add_option("--clients", h.herd.clients, "K clients failing at once (occ: at most " + std::to_string(kOccMaxClients) + ")")
      ->check(CLI::Range(1, 10000))->capture_default_str();
  h.base = hd->add_option("--backoff-base-ms", h.herd.policy.backoff_base_ms,
                          "backoff base (default 80 with --model carrier, 5 with occ)")->check(CLI::Range(1, 60000));
  h.cap = hd->add_option("--backoff-max-ms", h.herd.policy.backoff_max_ms, "backoff cap (default 2000)")
              ->check(CLI::Range(1, 600000));
  hd->add_option("--seed", h.herd.seed, "random seed (the same seed, the same table)")->capture_default_str();
  h.carrier_only = {
      hd->add_option("--recover-after-s", h.herd.recover_after_s, "carrier model: seconds until the carrier recovers (T)")
          ->check(CLI::Range(0.0, 3600.0))->capture_default_str(),
      hd->add_option("--capacity", h.herd.capacity, "carrier model: calls the recovered carrier serves at once")
          ->check(CLI::Range(1, 100000))->capture_default_str(),
      hd->add_option("--max-attempts", h.herd.max_attempts, "carrier model: a client gives up after this many calls")
          ->check(CLI::Range(1, 1000))->capture_default_str()};
  h.runs = hd->add_option("--runs", h.occ.runs, "occ model: average over this many runs (at most " +
                                                     std::to_string(kOccMaxRuns) + ")")->capture_default_str();
  hd->add_flag("--json", h.json, "print JSON instead of a Markdown table");
}

int run_herd_command(HerdCommand& h) {
  if (h.model == "carrier") {
    if (h.runs->count() > 0) return usage_error("herd", "--runs applies to --model occ only");
    const auto results = simulate_all_strategies(h.herd);
    return print_herd(results, h.json, format_herd_table(h.herd, results));
  }
  for (const auto* opt : h.carrier_only)
    if (opt->count() > 0) return usage_error("herd", opt->get_name() + " applies to --model carrier only");
  h.occ.clients = h.herd.clients;
  h.occ.seed = h.herd.seed;
  if (h.base->count() > 0) h.occ.backoff_base_ms = h.herd.policy.backoff_base_ms;
  if (h.cap->count() > 0) h.occ.backoff_cap_ms = h.herd.policy.backoff_max_ms;
  if (const auto errors = validate(h.occ); !errors.empty()) {
    for (const auto& e : errors) usage_error("herd", e);
    return 2;
  }
  const auto results = simulate_occ_herd(h.occ);
  return print_herd(results, h.json, format_occ_table(h.occ, results));
}

// The flags the lab's two servers share.
void add_common_flags(CLI::App& sub, CommonOptions& common) {
  sub.add_option("--scenarios-dir", common.scenarios_dir, "scenario files (default scenarios/)")->envname("SCENARIOS_DIR");
  sub.add_option("--seed", common.seed, "seed of the random source (jitter, latencies) for reproducible runs")
      ->envname("SEED");
  sub.add_option("--log-level", common.log_level, "trace, debug, info, warn, error")
      ->envname("LOG_LEVEL")->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}))->capture_default_str();
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App cli{"quote-lab: legacy retries vs a resilient policy against a simulated carrier"};
  cli.require_subcommand(1);
  CommonOptions common;
  ServeOptions serve;
  CarrierOptions carrier;
  StormCommand storm;
  HerdCommand herd;
  auto* serve_command = add_serve_command(cli, serve);
  auto* carrier_command = add_carrier_command(cli, carrier);
  add_storm_command(cli, storm);
  add_herd_command(cli, herd);
  const auto simulate = add_simulate_command(cli);
  add_common_flags(*serve_command, common);
  add_common_flags(*carrier_command, common);

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e) == 0 ? 0 : 2;
  }
  spdlog::set_level(spdlog::level::from_str(common.log_level));
  if (herd.sub->parsed()) return run_herd_command(herd);
  if (simulate_parsed(*simulate)) return run_simulate_command(*simulate);
  if (storm.sub->parsed()) {
    if (const auto problem = storm_load_problem(storm)) return usage_error("storm", *problem);
    if (storm.requests != 0) storm.options.requests = storm.requests;
    if (!storm.targets.empty()) {
      storm.options.target = storm.targets.front();
      storm.options.extra_targets.assign(storm.targets.begin() + 1, storm.targets.end());
    }
    return run_storm_command(storm.options, storm.params, storm.json);
  }
  try {
    if (serve_command->parsed()) return run_serve(serve, common);
    return run_carrier(carrier, common);
  } catch (const std::exception& e) {
    // Start-up errors (bad scenario or policy file, busy port) stop the lab with one message.
    spdlog::critical("cannot start: {}", e.what());
    return 1;
  }
}

}  // namespace quote_lab
