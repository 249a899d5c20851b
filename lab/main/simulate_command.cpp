#include "lab/main/simulate_command.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "lab/app/options.hpp"
#include "lab/carrier/scenario.hpp"
#include "lab/experiments/arrival_schedule.hpp"
#include "lab/experiments/storm_report.hpp"
#include "lab/main/serve_wiring.hpp"
#include "lab/simulation/scorecard.hpp"
#include "lab/simulation/simulated_storm.hpp"

namespace quote_lab {

struct SimulateCommand {
  StormOptions options;
  std::string policy = "resilient";
  std::string policies_file;
  std::string scenarios_dir;
  double rate_per_s = 0;
  long requests = 0;
  std::string arrivals = "poisson";
  std::vector<std::string> params;
  std::string seed;
  int workers = kDefaultWorkers;
  int carrier_workers = kDefaultCarrierWorkers;
  bool json = false;
  bool scorecard = false;
  CLI::App* sub = nullptr;
  std::vector<CLI::Option*> load_flags;  // the storm's: refused with --scorecard, whose battery is fixed
  CLI::Option* clients = nullptr;
  CLI::Option* rate = nullptr;
  CLI::Option* requests_given = nullptr;
  std::vector<CLI::Option*> open_only;
};

namespace {

int usage(const std::string& message) {
  std::fprintf(stderr, "quote-lab simulate: %s\n", message.c_str());
  return 2;
}

// --policy FILE: a policies file whose one named policy is simulated.
bool names_a_file(const std::string& policy) {
  std::error_code ec;
  return policy.find('/') != std::string::npos || policy.ends_with(".json") ||
         std::filesystem::is_regular_file(policy, ec);
}

}  // namespace

std::shared_ptr<SimulateCommand> add_simulate_command(CLI::App& cli) {
  auto c = std::make_shared<SimulateCommand>();
  StormOptions& o = c->options;
  o.duration_s = 60;
  auto* s = c->sub = cli.add_subcommand(
      "simulate", "run a storm of one policy in simulated time, the lab's own strategies on the scenarios' carrier: "
                  "the same seed, the same report");
  s->add_option("--policy", c->policy,
                "the policy: legacy, resilient, a shipped one (throttled, adaptive_limit, bulkhead, hedged, "
                "aws_adaptive, adr0005), one of --policies-file, or a policies file holding one named policy")
      ->capture_default_str();
  s->add_option("--policies-file", c->policies_file, "named policies besides the shipped ones (as serve's)");
  s->add_option("--scenario", o.scenario, "scenario name or alias")->capture_default_str();
  s->add_option("--param", c->params, "a policy override key=value, as a quote's query takes it, e.g. --param "
                                      "circuit_breaker=false (repeatable)");
  c->clients = s->add_option("--clients", o.clients, "closed loop: concurrent clients (1-500), each waiting for its answer")
                   ->capture_default_str();
  c->rate = s->add_option("--rate", c->rate_per_s, "open loop: arrivals per second (0.1-2000) instead of --clients");
  c->open_only = {
      s->add_option("--arrivals", c->arrivals, "with --rate: poisson or uniform")
          ->check(CLI::IsMember(arrival_process_names()))->capture_default_str(),
      s->add_option("--max-in-flight", o.max_in_flight, "with --rate: quotes unanswered at once (1-500); one beyond is not sent")
          ->capture_default_str()};
  auto* duration = s->add_option("--duration", o.duration_s, "simulated seconds (default 60)");
  c->requests_given = s->add_option("--requests", c->requests, "total quotes (with --rate: arrivals) instead of a duration")->excludes(duration);
  auto* seed = s->add_option("--seed", c->seed, "the run's seed: the carrier's draws, the jitter and the arrivals (required)");
  s->add_option("--sheddable-share", o.sheddable_share, "share of quotes (0-1) sent as sheddable")->capture_default_str();
  s->add_option("--goodput-deadline-ms", o.goodput.deadline_ms, "an answer later than this is not goodput")
      ->capture_default_str();
  s->add_option("--fallback-max-age-s", o.goodput.fallback_max_age_s, "a fallback older than this is not goodput")
      ->capture_default_str();
  s->add_option("--workers", c->workers, "the lab's quotes at once, as serve --workers")->capture_default_str();
  s->add_option("--carrier-workers", c->carrier_workers, "the carrier's calls at once, as serve --carrier-workers")
      ->capture_default_str();
  s->add_option("--scenarios-dir", c->scenarios_dir, "scenario files (default scenarios/)")->envname("SCENARIOS_DIR");
  s->add_flag("--json", c->json, "print the result as JSON (byte for byte the same for the same seed)");
  s->add_flag("--scorecard", c->scorecard,
              "score the policy over the class challenge's fixed battery (provider_down, tail_latency, rate_limited, "
              "capacity_drop under open load, overloaded_fifo at twice its capacity) beside legacy and resilient");
  for (auto* opt : s->get_options())
    for (const char* name : {"--scenario", "--clients", "--rate", "--arrivals", "--max-in-flight", "--duration",
                             "--requests", "--param", "--sheddable-share", "--goodput-deadline-ms", "--fallback-max-age-s"})
      if (opt->check_name(name)) c->load_flags.push_back(opt);
  c->load_flags.push_back(seed);
  return c;
}

bool simulate_parsed(const SimulateCommand& c) { return c.sub->parsed(); }

namespace {

int print_scorecard(const SimulateCommand& c, const std::string& policy, const SimulationSetup& lab) {
  const Scorecard legacy = score_policy("legacy", lab);
  const Scorecard resilient = score_policy("resilient", lab);
  const Scorecard card = score_policy(policy, lab);
  if (c.json) std::printf("%s\n", to_json(card, &legacy, &resilient).dump(2).c_str());
  else std::printf("%s", format_scorecard(card, legacy, resilient).c_str());
  return 0;
}

}  // namespace

int run_simulate_command(SimulateCommand& c) {
  StormOptions& o = c.options;
  if (c.scorecard)
    for (const auto* opt : c.load_flags)
      if (opt->count() > 0) return usage(opt->get_name() + " does not apply to --scorecard: its battery of storms is fixed");
  if (c.rate->count() > 0 && c.clients->count() > 0) return usage("--rate and --clients exclude each other");
  if (c.rate->count() == 0)
    for (const auto* opt : c.open_only)
      if (opt->count() > 0) return usage(opt->get_name() + " applies to --rate only (the open loop)");
  if (c.rate->count() > 0) o.rate_per_s = c.rate_per_s;
  o.arrivals = parse_arrival_process(c.arrivals).value_or(ArrivalProcess::poisson);
  if (c.requests_given->count() > 0) o.requests = c.requests;
  std::uint64_t seed = 0;
  const auto [end, problem] = std::from_chars(c.seed.data(), c.seed.data() + c.seed.size(), seed);
  if (!c.seed.empty() && (problem != std::errc() || end != c.seed.data() + c.seed.size()))
    return usage("--seed must be a whole number from 0 to 18446744073709551615 (got '" + c.seed + "')");
  for (const auto& kv : c.params) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return usage("--param takes key=value (got '" + kv + "')");
    o.params.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  if (!c.seed.empty()) o.seed = seed;
  try {
    std::string file = c.policies_file;
    o.mode = c.policy;
    if (names_a_file(c.policy)) {
      if (!file.empty()) return usage("--policy FILE and --policies-file exclude each other");
      file = c.policy;
    }
    const Policies policies = policies_with_file(file);
    if (names_a_file(c.policy)) {
      std::vector<std::string> own;  // the file's policies, besides the shipped ones
      for (const auto& n : policies.named)
        if (!default_policies().find_named(n.retry.mode)) own.push_back(n.retry.mode);
      if (own.empty())
        return usage(c.policy + " names no policy of its own (only legacy, resilient or shipped ones): add one, "
                     "or give --policy NAME");
      if (own.size() != 1)
        return usage(c.policy + " names " + std::to_string(own.size()) +
                     " policies of its own: give it as --policies-file and choose one with --policy NAME");
      o.mode = own.front();
    }
    const auto dir = c.scenarios_dir.empty() ? project_dir() / "scenarios" : std::filesystem::path(c.scenarios_dir);
    const ScenarioCatalog catalog = ScenarioCatalog::load_dir(dir);
    const SimulationSetup lab{policies, catalog, c.workers, c.carrier_workers};
    if (c.scorecard) return print_scorecard(c, o.mode, lab);
    if (const auto errors = validate_simulation(o, lab); !errors.empty()) {
      for (const auto& e : errors) usage(e);
      return 2;
    }
    const auto started = std::chrono::steady_clock::now();
    const StormResult result = simulate_storm(o, lab);
    const double machine_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    if (c.json) {
      std::printf("%s\n", to_json(result).dump(2).c_str());
    } else {
      std::printf("simulated: policy %s on %s, seed %llu, %ld quotes in %.1f s of simulated time (%.0f ms here)\n",
                  o.mode.c_str(), o.scenario.c_str(), static_cast<unsigned long long>(seed), result.requests,
                  result.elapsed_s, machine_ms);
      std::printf("%s", format_report(result).c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "quote-lab simulate: %s\n", e.what());
    return 1;
  }
}

}  // namespace quote_lab
