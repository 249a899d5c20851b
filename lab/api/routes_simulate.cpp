// GET /experiments/simulate: a storm in simulated time (simulation/simulated_storm.hpp), any
// policy of the lab on any scenario, answered at once with the storm's report: no lab is
// stormed, nothing changes, so it needs no key. The lab runs simulations one at a time on a
// thread of their own (app/simulation_runner.hpp); a full line is a 503 that says to ask again.
#include <httplib.h>

#include <climits>
#include <future>
#include <map>
#include <set>

#include "lab/api/route_handlers.hpp"
#include "lab/api/route_support.hpp"
#include "lab/api/storm_params.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/app/lab_keys.hpp"
#include "lab/app/lab_registry.hpp"
#include "lab/app/simulation_runner.hpp"
#include "lab/experiments/storm_report.hpp"
#include "lab/http/http_server.hpp"
#include "lab/http/params.hpp"
#include "lab/http/policy_overrides.hpp"
#include "lab/simulation/simulated_storm.hpp"

namespace quote_lab::handlers {
namespace {

constexpr IntParam kSimRequests{"requests", 1, 100000, 1000};
constexpr IntParam kSimDurationS{"duration_s", 1, 600, 10};
constexpr IntParam kSimSeed{"seed", 0, INT_MAX, 1};
// What one simulation asked over HTTP may cost: about a second of one core.
constexpr long kSimMaxArrivals = 100000;

const std::set<std::string>& known_parameters() {
  static const std::set<std::string> known = [] {
    std::set<std::string> names{"policy", "scenario", "clients", "rate", "arrivals", "max_in_flight", "sheddable_share",
                                "requests", "duration_s", "seed", "goodput_deadline_ms", "fallback_max_age_s"};
    for (auto& name : policy_override_names()) names.insert(std::move(name));
    return names;
  }();
  return known;
}

// The storm the query asks for, or the 400 that says what is wrong, in the asker's language.
std::optional<ApiError> simulation_asked(RouteContext& ctx, const httplib::Request& req, StormOptions& o) {
  if (auto e = check_known_params(req, known_parameters())) return e;
  const ParamLookup lookup = [&req](std::string_view name) -> const std::string* {
    const auto it = req.params.find(std::string(name));
    return it == req.params.end() ? nullptr : &it->second;
  };
  o.mode = "resilient";
  if (const auto* p = lookup("policy")) o.mode = *p;
  const RetryPolicy* policy = ctx.app.find_policy(o.mode);
  if (policy == nullptr) return unknown_policy_error(ctx.app.policies(), o.mode, 400, "invalid_parameter");
  RetryPolicy overridden = *policy;
  std::vector<std::string> overrides;
  if (auto e = apply_policy_overrides([&lookup](const char* name) { return lookup(name); }, overridden, overrides)) return e;
  for (const auto& name : overrides) o.params.emplace_back(name, *lookup(name));
  o.scenario = "provider_down";
  if (const auto* sc = lookup("scenario")) {
    const Scenario* s = ctx.app.scenarios().find(*sc);
    if (!s) return unknown_scenario_error(ctx.app.scenarios(), *sc);
    o.scenario = s->name;
  }
  if (auto e = parse_storm_load(lookup, o, kSimulatedStormLoad)) return e;
  if (lookup(kSimRequests.name) && lookup(kSimDurationS.name))
    return api_error(400, "invalid_parameter", MessageId::simulation_requests_and_duration, {});
  int requests = 0, duration = 0, seed = 0;
  if (auto e = parse_int_param(kSimRequests, lookup(kSimRequests.name), requests)) return e;
  if (auto e = parse_int_param(kSimDurationS, lookup(kSimDurationS.name), duration)) return e;
  if (auto e = parse_int_param(kSimSeed, lookup(kSimSeed.name), seed)) return e;
  o.seed = static_cast<std::uint64_t>(seed);
  // The goodput rule, as `quote-lab storm` takes it (goodput.hpp).
  if (const auto* d = lookup("goodput_deadline_ms"))
    if (auto e = parse_number_param("goodput_deadline_ms", *d, 1, 60000, o.goodput.deadline_ms)) return e;
  if (const auto* a = lookup("fallback_max_age_s"))
    if (auto e = parse_number_param("fallback_max_age_s", *a, 0, 86400, o.goodput.fallback_max_age_s)) return e;
  // By count unless a duration is asked: a closed loop by duration runs as fast as the lab answers.
  o.duration_s = duration;
  if (!lookup(kSimDurationS.name)) o.requests = requests;
  if (!o.requests && o.rate_per_s) {
    const double arrivals = *o.rate_per_s * o.duration_s;
    if (arrivals > static_cast<double>(kSimMaxArrivals))
      return api_error(400, "invalid_parameter", MessageId::simulation_too_large,
                       {{"max", std::to_string(kSimMaxArrivals)}, {"got", std::to_string(static_cast<long>(arrivals))}});
  }
  return std::nullopt;
}

}  // namespace

void simulate(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  StormOptions o;
  if (auto e = simulation_asked(ctx, req, o)) return send_api_error(req, res, *e);
  auto done = std::make_shared<std::promise<nlohmann::ordered_json>>();
  auto answer = done->get_future();
  const Policies& policies = ctx.app.policies();
  const ScenarioCatalog& catalog = ctx.app.scenarios();
  const auto admission = ctx.simulations->submit([done, o, &policies, &catalog] {
    SimulationSetup lab{policies, catalog};
    lab.max_quotes = kSimMaxArrivals;  // a closed loop by duration: bounded too
    nlohmann::ordered_json report;
    try {
      report = to_json(simulate_storm(o, lab));
    } catch (const SimulationBoundReached& e) {
      report = {{"bound", e.max()}};
    }
    return [done, report = std::move(report)]() mutable { done->set_value(std::move(report)); };
  }, ctx.asker);
  if (admission != SimulationRunner::Admission::queued) return refuse_simulation(req, res, *ctx.simulations, admission);
  const nlohmann::ordered_json report = answer.get();
  if (report.contains("bound"))
    return send_api_error(req, res, api_error(400, "invalid_parameter", MessageId::simulation_bound_reached,
                                              {{"max", std::to_string(kSimMaxArrivals)}}));
  send_json(res, 200, report);
}

}  // namespace quote_lab::handlers
