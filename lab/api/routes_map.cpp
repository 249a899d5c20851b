// GET /experiments/map: one point of the metastability map in simulated time
// (simulation/map_point.hpp): a policy with a quote's overrides, a trigger's depth and length,
// and an open load; whether goodput came back after the trigger, and after how many seconds.
// The dashboard draws the map from these points and redraws it as a student moves the trigger,
// the load or the policy's settings. No lab is stormed and nothing changes, so it needs no key.
// A point already run is answered from the cache at once; a new one waits for the simulation
// runner's thread, with the asker's share of its line (app/simulation_runner.hpp).
#include <httplib.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <future>
#include <set>

#include "lab/api/route_handlers.hpp"
#include "lab/api/route_support.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/app/lab_keys.hpp"
#include "lab/app/map_point_cache.hpp"
#include "lab/app/simulation_runner.hpp"
#include "lab/formats/pipeline_json.hpp"
#include "lab/formats/policy_json.hpp"
#include "lab/http/http_server.hpp"
#include "lab/http/params.hpp"
#include "lab/http/policy_overrides.hpp"
#include "lab/simulation/map_point.hpp"

namespace quote_lab::handlers {
namespace {

constexpr IntParam kMapLengthS{"length_s", 1, 30, 4};

// What a point's waiters get when the asker who started it was refused a place in line.
struct Refused {};

const std::set<std::string>& known_parameters() {
  static const std::set<std::string> known = [] {
    std::set<std::string> names{"policy", "depth", "length_s", "load"};
    for (auto& name : policy_override_names()) names.insert(std::move(name));
    return names;
  }();
  return known;
}

// An accepted override's value written one way, and that value: an integer's digits, a number's
// shortest exact form (plain when 32 characters hold it, else with an exponent, both of which
// the overrides' parser reads), a choice as given; "04", "4.0" and "4e0" are 4, "-0" is 0.
std::pair<std::string, double> canonical_value(const PolicyOverride& o, const std::string& raw) {
  if (o.kind == OverrideKind::choice) return {raw, 0};
  double number = 0;
  std::from_chars(raw.data(), raw.data() + raw.size(), number);  // accepted already: it parses
  if (o.kind == OverrideKind::integer) {
    const long long whole = std::llround(number);
    return {std::to_string(whole), static_cast<double>(whole)};
  }
  number += 0.0;  // -0 is 0
  char buf[32];
  auto written = std::to_chars(buf, buf + sizeof buf, number, std::chars_format::fixed);
  if (written.ec != std::errc()) written = std::to_chars(buf, buf + sizeof buf, number);
  return {std::string(buf, written.ptr), number};
}

// The accepted overrides that change `base`, each written canonically: two queries asking for
// the same policy name the same point, simulated once (an override equal to the policy's own
// value changes nothing and is left out). The policy is compared in both of its written forms:
// its pipeline (the strategies it runs) and its flat keys (which hold a key the pipeline's
// entries may not, such as the idempotency key of a policy without a retry).
void add_effective_overrides(const RetryPolicy& base, const std::vector<std::string>& changed,
                             const std::function<const std::string*(const char*)>& lookup, MapPointAsk& ask) {
  const auto written = [](const RetryPolicy& p) { return std::pair{pipeline_to_json(p, std::nullopt), to_json(p, true)}; };
  const auto as_it_is = written(base);
  for (const auto& o : policy_overrides()) {
    if (std::find(changed.begin(), changed.end(), o.name) == changed.end()) continue;
    const auto [text, number] = canonical_value(o, *lookup(std::string(o.name).c_str()));
    RetryPolicy alone = base;
    o.apply(alone, number, text);
    if (written(alone) != as_it_is) ask.overrides.emplace_back(o.name, text);
  }
}

// The point the query asks for, or the 400 that says what is wrong, in the asker's language.
std::optional<ApiError> point_asked(RouteContext& ctx, const httplib::Request& req, MapPointAsk& ask) {
  if (auto e = check_known_params(req, known_parameters())) return e;
  const auto lookup = [&req](const char* name) -> const std::string* {
    const auto it = req.params.find(name);
    return it == req.params.end() ? nullptr : &it->second;
  };
  ask.policy = "legacy";
  if (const auto* p = lookup("policy")) ask.policy = *p;
  const RetryPolicy* policy = ctx.app.find_policy(ask.policy);
  if (policy == nullptr) return unknown_policy_error(ctx.app.policies(), ask.policy, 400, "invalid_parameter");
  RetryPolicy overridden = *policy;
  std::vector<std::string> changed;
  if (auto e = apply_policy_overrides(lookup, overridden, changed)) return e;
  add_effective_overrides(*policy, changed, lookup, ask);
  if (const auto* d = lookup("depth"))
    if (auto e = parse_number_param("depth", *d, 0, 1, ask.depth)) return e;
  if (const auto* l = lookup("load"))
    if (auto e = parse_number_param("load", *l, 0.05, 2, ask.load)) return e;
  if (auto e = parse_int_param(kMapLengthS, lookup(std::string(kMapLengthS.name).c_str()), ask.length_s)) return e;
  // Two decimals are the map's resolution: 0.6 and 0.6000001 are one point, simulated once.
  ask.depth = std::round(ask.depth * 100) / 100 + 0.0;  // + 0.0: -0 is 0
  ask.load = std::round(ask.load * 100) / 100;
  return std::nullopt;
}

}  // namespace

void map_point(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  MapPointAsk ask;
  if (auto e = point_asked(ctx, req, ask)) return send_api_error(req, res, *e);
  const std::string key = ask.key();
  MapPointCache& cache = *ctx.map_points;
  const MapPointCache::Claim claim = cache.find_or_start(key);
  const bool kept = claim.answer.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  if (claim.started) {
    const Policies& policies = ctx.app.policies();
    const auto admission = ctx.simulations->submit([ask, key, &cache, &policies]() -> SimulationRunner::Delivery {
      try {
        return [&cache, key, body = render_json(to_json(simulate_map_point(ask, policies)))]() mutable {
          cache.finish(key, std::move(body));
        };
      } catch (...) {
        return [&cache, key, why = std::current_exception()] { cache.fail(key, why); };
      }
    }, ctx.asker);
    if (admission != SimulationRunner::Admission::queued) {
      cache.fail(key, std::make_exception_ptr(Refused{}));
      return refuse_simulation(req, res, *ctx.simulations, admission);
    }
  }
  try {
    std::string body = claim.answer.get();
    // hit: run before; miss: run for this request; joined: another asker's run, waited for.
    res.set_header("X-Simulation-Cache", kept ? "hit" : claim.started ? "miss" : "joined");
    send_rendered_json(res, 200, std::move(body));
  } catch (const Refused&) {
    // The asker who started it was refused a place; so is this one, for a full line.
    refuse_simulation(req, res, *ctx.simulations, SimulationRunner::Admission::line_full);
  } catch (const std::exception& e) {
    send_api_error(req, res, api_error(500, "simulation_failed", MessageId::simulation_failed, {{"why", e.what()}}));
  }
}

}  // namespace quote_lab::handlers
