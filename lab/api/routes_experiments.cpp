// /experiments/storm: the lab storms itself (GET shows the progress or the last result, POST
// starts one) so a class can watch a storm from the dashboard without a terminal: any policy
// of the lab, with the quote routes' per-request overrides and up to kExperimentMaxLayers
// layers, by clients (closed loop), by arrivals per second (`rate`, open loop) or as a goodput
// sweep (`sweep=10,20,40`: one open-loop storm per rate, goodput_sweep.hpp).
#include <httplib.h>

#include <algorithm>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "lab/api/route_handlers.hpp"
#include "lab/api/route_support.hpp"
#include "lab/api/storm_params.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/app/lab_keys.hpp"
#include "lab/app/lab_registry.hpp"
#include "lab/experiments/goodput_sweep.hpp"
#include "lab/experiments/storm_experiment.hpp"
#include "lab/http/http_server.hpp"
#include "lab/http/policy_overrides.hpp"

namespace quote_lab::handlers {
namespace {

// The storm a POST may ask for: clients, rate and duration bounded for a 2-core classroom machine.
constexpr IntParam kStormClients = kLiveStormLoad.clients;
constexpr IntParam kStormDurationS{"duration_s", 1, static_cast<int>(kExperimentMaxDurationS), 10};
constexpr IntParam kStormRequests{"requests", 1, 100000, 1};
constexpr IntParam kStormLayers{"layers", 1, kExperimentMaxLayers, 1};
constexpr IntParam kStormMaxInFlight = kLiveStormLoad.max_in_flight;

// `sweep`: the arrival rates of a goodput sweep, "10,20,40" in a query or a JSON body's
// [10, 20, 40]; each as `rate` is bounded, kSweepMinRates..kSweepMaxRates of them.
std::optional<ApiError> parse_sweep(const ParamLookup& lookup, std::vector<double>& rates) {
  const std::string* raw = lookup("sweep");
  if (raw == nullptr) return std::nullopt;
  if (lookup("rate") || lookup(kStormClients.name) || lookup(kStormRequests.name))
    return api_error(400, "invalid_parameter", MessageId::sweep_and_load, {});
  std::string list = *raw;
  if (list.size() >= 2 && list.front() == '[' && list.back() == ']') list = list.substr(1, list.size() - 2);
  const bool empty = list.find_first_not_of(' ') == std::string::npos;
  const auto count = empty ? 0 : static_cast<std::size_t>(std::count(list.begin(), list.end(), ',')) + 1;
  if (count < static_cast<std::size_t>(kSweepMinRates) || count > static_cast<std::size_t>(kSweepMaxRates))
    return api_error(400, "invalid_parameter", MessageId::sweep_rate_count,
                     {{"min", std::to_string(kSweepMinRates)},
                      {"max", std::to_string(kSweepMaxRates)},
                      {"got", std::to_string(count)}});
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    std::string item = list.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    double rate = 0;
    if (auto e = parse_number_param("sweep", item, kStormMinRatePerS, kExperimentMaxRatePerS, rate)) return e;
    rates.push_back(rate);
    start = comma + 1;
  }
  return std::nullopt;
}

// A sweep's steps send for kExperimentMaxDurationS at most: without duration_s each step
// gets an even share of it, up to a lone storm's default 10 s.
std::optional<ApiError> sweep_step_duration(const ParamLookup& lookup, std::size_t steps, int& duration_s) {
  const int fit = static_cast<int>(kExperimentMaxDurationS) / static_cast<int>(steps);
  if (!lookup(kStormDurationS.name)) {
    duration_s = std::min(kStormDurationS.fallback, fit);
    return std::nullopt;
  }
  if (duration_s <= fit) return std::nullopt;
  return api_error(400, "invalid_parameter", MessageId::sweep_too_long,
                   {{"steps", std::to_string(steps)},
                    {"duration", std::to_string(duration_s)},
                    {"max", std::to_string(static_cast<int>(kExperimentMaxDurationS))}});
}

}  // namespace

namespace {
// The lab's storm as every replica tells it: this replica's, unless it runs none and another
// replica's entries say that one runs or finished last.
// Its sweeps are every replica's, merged: each replica may have run some of the lab's.
nlohmann::ordered_json fleet_storm_status(RouteContext& ctx) {
  nlohmann::ordered_json here = ctx.storm.status();
  const nlohmann::ordered_json there = ctx.app.class_order().remote_storm();
  if (!there.is_object()) return here;
  const auto sweeps = merge_sweeps(here["sweeps"], there.value("sweeps", nlohmann::ordered_json::array()));
  nlohmann::ordered_json told = here["running"] != true && (there["running"] == true || here["last_result"].is_null()) ? there : here;
  told["sweeps"] = sweeps;
  return told;
}
}  // namespace

void storm_status(RouteContext& ctx, const httplib::Request&, const std::string&, httplib::Response& res) {
  send_json(res, 200, fleet_storm_status(ctx));
}

void storm_cancel(RouteContext& ctx, const httplib::Request&, const std::string&, httplib::Response& res) {
  const bool here = ctx.storm.cancel();
  // Whichever replica runs it stops it, even one whose start this replica has not read yet.
  ctx.app.share_storm_cancel();
  const nlohmann::ordered_json there = ctx.app.class_order().remote_storm();
  const bool was_running = here || (there.is_object() && there.value("running", false));
  send_json(res, 200, {{"cancelled", was_running}, {"storm", fleet_storm_status(ctx)}});
}

void storm_start(RouteContext& ctx, const httplib::Request& req, const std::string& raw, httplib::Response& res) {
  // Parameters from the query string or a JSON body ({"mode": "legacy", "clients": 20, ...}).
  std::map<std::string, std::string> given;
  std::set<std::string> from_body;  // named by the body only: a refusal says "field", not "query parameter"
  for (const auto& [k, v] : req.params)
    if (k != kLabParam && k != kLabKeyParam) given.emplace(k, v);  // the lab is chosen (and opened) by the query only
  if (!raw.empty()) {
    const auto body = nlohmann::ordered_json::parse(raw, nullptr, false);
    if (!body.is_object()) return send_api_error(req, res, api_error(400, "invalid_body", MessageId::body_not_object, {}));
    for (const auto& [k, v] : body.items())
      if (given.emplace(k, v.is_string() ? v.get<std::string>() : v.dump()).second) from_body.insert(k);
  }
  // The storm's own parameters, and the per-request overrides its quotes will carry.
  static const std::set<std::string> known = [] {
    std::set<std::string> names{"mode", "scenario", std::string(kStormClients.name), std::string(kStormDurationS.name),
                                std::string(kStormRequests.name), std::string(kStormLayers.name), "rate", "arrivals",
                                std::string(kStormMaxInFlight.name), "sheddable_share", "sweep"};
    for (auto& name : policy_override_names()) names.insert(std::move(name));
    return names;
  }();
  for (const auto& [k, _] : given)
    if (!known.count(k))
      return send_api_error(req, res,
                            api_error(400, "unknown_parameter",
                                      from_body.count(k) ? MessageId::unknown_body_field : MessageId::unknown_parameter,
                                      {{"name", k.substr(0, 40)}}, std::vector<std::string>(known.begin(), known.end())));
  const auto lookup = [&given](std::string_view name) -> const std::string* {
    const auto it = given.find(std::string(name));
    return it == given.end() ? nullptr : &it->second;
  };
  StormOptions o;
  o.lab = ctx.app.name();  // a student's storm runs against their own lab, with its key
  if (!o.lab.empty()) o.lab_key = ctx.labs.keys().key_for(o.lab).value_or("");
  if (const auto* m = lookup("mode")) o.mode = *m;
  const RetryPolicy* policy = ctx.app.find_policy(o.mode);
  if (policy == nullptr)
    return send_api_error(req, res, unknown_policy_error(ctx.app.policies(), o.mode, 400, "invalid_parameter"));
  // Overrides are checked here as the quote route checks them: a bad one is this POST's 400,
  // not a storm whose every request is refused.
  RetryPolicy overridden = *policy;
  std::vector<std::string> overrides;
  if (auto e = apply_policy_overrides([&lookup](const char* name) { return lookup(name); }, overridden, overrides))
    return send_api_error(req, res, *e);
  for (const auto& name : overrides) o.params.emplace_back(name, *lookup(name));
  if (const auto* sc = lookup("scenario")) {
    const Scenario* s = ctx.app.scenarios().find(*sc);
    if (!s) return send_api_error(req, res, unknown_scenario_error(ctx.app.scenarios(), *sc));
    o.scenario = s->name;
  }
  int duration = 0, requests = 0;
  std::vector<double> sweep;
  if (auto e = parse_sweep(lookup, sweep)) return send_api_error(req, res, *e);
  if (auto e = parse_storm_load(lookup, o, kLiveStormLoad)) return send_api_error(req, res, *e);
  if (auto e = parse_int_param(kStormDurationS, lookup(kStormDurationS.name), duration)) return send_api_error(req, res, *e);
  if (!sweep.empty())
    if (auto e = sweep_step_duration(lookup, sweep.size(), duration)) return send_api_error(req, res, *e);
  if (auto e = parse_int_param(kStormRequests, lookup(kStormRequests.name), requests)) return send_api_error(req, res, *e);
  if (auto e = parse_int_param(kStormLayers, lookup(kStormLayers.name), o.layers)) return send_api_error(req, res, *e);
  o.duration_s = duration;
  if (lookup(kStormRequests.name)) o.requests = requests;
  const int lease_s = sweep.empty() ? static_cast<int>(o.duration_s) : sweep_duration_s(static_cast<int>(sweep.size()), o.duration_s);
  switch (ctx.labs.admit_storm(o.lab, ctx.storm, lease_s, ctx.teacher)) {
    case LabRegistry::StormVerdict::lab_busy:
      return send_api_error(req, res, api_error(409, "storm_running", MessageId::storm_running, {}));
    case LabRegistry::StormVerdict::class_full:
      return send_api_error(req, res,
                            api_error(429, "class_storms_busy", MessageId::class_storms_busy,
                                      {{"max", std::to_string(kMaxStudentStorms)}}));
    case LabRegistry::StormVerdict::go:
      break;
  }
  std::vector<std::string> errors;
  switch (ctx.storm.start(o, errors, sweep)) {
    case StormExperiment::Start::busy:
      return send_api_error(req, res, api_error(409, "storm_running", MessageId::storm_running, {}));
    case StormExperiment::Start::invalid:
      ctx.labs.storm_ended(o.lab);
      return send_error(res, 400, "invalid_parameter", errors.empty() ? "invalid storm" : errors.front());
    case StormExperiment::Start::started: {
      const auto status = ctx.storm.status();
      ctx.app.share_storm_start(status);  // the other replicas answer for it too
      return send_json(res, 202, status);
    }
  }
}

}  // namespace quote_lab::handlers
