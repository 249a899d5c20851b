#include "lab/api/lab_routes.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "lab/api/quote_answer.hpp"
#include "lab/api/rate_limiting.hpp"
#include "lab/api/route_support.hpp"
#include "lab/api/route_table.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/app/design_judge.hpp"
#include "lab/app/map_point_cache.hpp"
#include "lab/app/simulation_runner.hpp"
#include "lab/app/lab_keys.hpp"
#include "lab/app/lab_registry.hpp"
#include "lab/base/did_you_mean.hpp"
#include "lab/base/lab_name.hpp"
#include "lab/http/http_server.hpp"
#include "lab/http/lab_name_error.hpp"
#include "lab/http/request_guard.hpp"
#include "lab/http/static_files.hpp"
#include "lab/http/worker_slots.hpp"
#include "lab/shared_state/redis_client.hpp"

namespace quote_lab {
namespace {

using httplib::Request;
using httplib::Response;

// What every request shares: the labs, the dashboard's files, the carrier's URL.
struct Shared {
  Shared(LabRegistry& l, StaticRoots d, std::string url, RateLimitGate gate, std::string token)
      : labs(l),
        policy_views(l.teacher().app.policies()),
        dashboard(std::move(d)),
        carrier_url(std::move(url)),
        rate_limit(std::move(gate)),
        admin_token(std::move(token)) {}
  LabRegistry& labs;
  const PolicyViews policy_views;  // every lab runs the same policies
  StaticRoots dashboard;
  std::string carrier_url;
  RouteContext::RenderedHealth health;
  RateLimitGate rate_limit;
  std::string admin_token;  // empty: no teacher token (--admin-token)
  // The metastability map's points, filled on `simulations`: declared first, so it outlives
  // the runner, whose destructor runs what is still in its line.
  MapPointCache map_points;
  SimulationRunner simulations;  // every lab's, one at a time
  // The class challenge's designs, judged on `simulations`.
  DesignJudge designs{simulations, labs.teacher().app.policies(), labs.teacher().app.scenarios()};
};

// Whether the request carries the teacher's token (`serve --admin-token`).
bool from_teacher(const Shared& shared, const Request& req) {
  return !shared.admin_token.empty() &&
         constant_time_equal(req.get_header_value("Authorization"), "Bearer " + shared.admin_token);
}

// A change to a claimed student's lab (a quote, which moves its breaker, a reset, a carrier
// mode, a storm) without its owner's key or the teacher's token: the 403 that says what to
// add. Checked before the lab is found, since finding creates it: a refused request changes
// nothing, not even the list of labs. A lab no claimed name owns is anyone's.
std::optional<ApiError> refuse_without_key(Shared& shared, const Request& req, const std::string& raw_name) {
  LabNameProblem problem = LabNameProblem::none;
  const auto name = normalize_lab_name(raw_name, problem);
  if (!name) return std::nullopt;  // find() answers the bad name
  if (from_teacher(shared, req)) return std::nullopt;
  const auto owner_found = shared.labs.keys().owner_of(*name);
  if (!owner_found) return std::nullopt;
  const std::string& owner = *owner_found;
  const std::string presented = presented_lab_key(req.get_header_value(std::string(kLabKeyHeader).c_str()),
                                                  req.get_param_value(std::string(kLabKeyParam).c_str()));
  // A teacher's token that is not this lab's: say so, not that a student key is missing.
  if (presented.empty() && req.has_header("Authorization"))
    return api_error(403, "wrong_teacher_token", MessageId::wrong_teacher_token, {});
  switch (shared.labs.keys().check(owner, presented)) {
    case LabKeyVerdict::unclaimed:
    case LabKeyVerdict::accepted:
      return std::nullopt;
    case LabKeyVerdict::missing:
      return api_error(403, "lab_key_required", MessageId::lab_key_required, {{"lab", *name}, {"owner", owner}});
    case LabKeyVerdict::wrong:
      return api_error(403, "wrong_lab_key", MessageId::wrong_lab_key, {{"lab", *name}, {"owner", owner}});
  }
  return std::nullopt;
}

// Who asks for a simulation (RouteContext::asker): the owner whose key the request carries for
// the lab it names, else the client's address, so that neither many connections nor many
// unclaimed names nor another student's lab name give one person more than their share.
std::string simulation_asker(Shared& shared, const Request& req, const std::string* raw_name) {
  if (from_teacher(shared, req)) return "";
  LabNameProblem problem = LabNameProblem::none;
  if (raw_name)
    if (const auto name = normalize_lab_name(*raw_name, problem))
      if (const auto owner = shared.labs.keys().owner_of(*name)) {
        const std::string presented = presented_lab_key(req.get_header_value(std::string(kLabKeyHeader).c_str()),
                                                        req.get_param_value(std::string(kLabKeyParam).c_str()));
        if (!presented.empty() && shared.labs.keys().check(*owner, presented) == LabKeyVerdict::accepted)
          return "owner " + *owner;
      }
  return "address " + client_address(req, shared.rate_limit.trusted_proxy_header);
}

// Runs `route`'s handler on the lab `?lab=` selects (the teacher's without it) once its key
// (if it needs one) is checked, holding one of that lab's worker slots when the route takes one. Waiting for
// a slot ends with a 503 once shutdown begins; the wait is measured (queue_ms) on the lab's
// clock.
void serve_lab(Shared& shared, const Route& route, const Request& req, const std::string& body, Response& res,
               const LabRegistry::Found& found) {
  Lab& lab = *found.lab;
  // Before the worker slot: a client over its limit must not hold one of --workers.
  if (route.rate_limited && shared.rate_limit.limiter) {
    const RateDecision d = shared.rate_limit.limiter->admit(
        rate_limit_key(lab.app.name(), client_address(req, shared.rate_limit.trusted_proxy_header)));
    if (!d.allowed) {
      shared.labs.teacher().app.count_rate_limited(route_template(route));
      return send_rate_limited(req, res, d);
    }
  }
  RouteContext ctx{lab.app,       lab.storm,           shared.dashboard, shared.carrier_url,         shared.labs,
                   shared.health, shared.policy_views, found.lab,        0, from_teacher(shared, req),
                   &shared.simulations, &shared.designs, &shared.map_points};
  if (route.simulates) ctx.asker = simulation_asker(shared, req, query_param(req, kLabParam));
  if (!route.worker_slot) return route.handler(ctx, req, body, res);
  Clock& clock = lab.app.clock();
  const SteadyTime asked = clock.now();
  if (!lab.slots.acquire(lab.app.shutdown_token()))
    return send_api_error(req, res, api_error(503, "shutting_down", MessageId::shutting_down, {}));
  ctx.queue_ms = elapsed_ms(asked, clock.now());
  struct Release {
    WorkerSlots& s;
    ~Release() { s.release(); }
  } release{lab.slots};
  route.handler(ctx, req, body, res);
}

void serve(Shared& shared, const Route& route, const Request& req, const std::string& body, Response& res) {
  const RedisClient::RequestScope redis_budget;  // a request waits for Redis at most once
  if (route.class_wide && req.has_param(std::string(kLabParam)))
    return send_api_error(req, res,
                          api_error(400, "invalid_parameter", MessageId::class_route_takes_no_lab, {{"route", route.path}}));
  if (req.get_param_value_count(std::string(kLabParam)) > 1)
    return send_api_error(req, res, api_error(400, "invalid_parameter", MessageId::lab_given_twice, {}));
  const std::string* lab_name = query_param(req, kLabParam);
  if (lab_name != nullptr && needs_lab_key(route))
    if (const auto refusal = refuse_without_key(shared, req, *lab_name)) return send_api_error(req, res, *refusal);
  const auto found = shared.labs.find(lab_name);
  if (!found.lab)
    return send_api_error(req, res, no_lab_error(found.bad_name, lab_name ? *lab_name : "", shared.labs.limits()));
  serve_lab(shared, route, req, body, res, found);
}

// A known route asked with a method it does not answer gets 405 and the methods it does;
// HEAD is answered only where a GET changes nothing.
httplib::Server::HandlerResponse refuse_wrong_method(const Request& req, Response& res) {
  const std::string label = route_label(req.path);
  const AllowedMethods& allowed = allowed_methods(label);
  if (allowed.methods.empty()) return httplib::Server::HandlerResponse::Unhandled;
  const bool listed = std::find(allowed.methods.begin(), allowed.methods.end(), req.method) != allowed.methods.end();
  if (listed || (req.method == "HEAD" && allowed.head)) return httplib::Server::HandlerResponse::Unhandled;
  std::string allow;
  for (const auto& a : allowed.methods) allow += (allow.empty() ? "" : ", ") + a;
  res.set_header("Allow", allow);
  send_api_error(req, res,
                 api_error(405, "method_not_allowed", MessageId::method_not_allowed,
                           {{"method", req.method.substr(0, 10)}, {"route", label}, {"allow", allow}}));
  return httplib::Server::HandlerResponse::Handled;
}

}  // namespace

std::string route_pattern(const std::string& path) {
  if (path == "/") return "/|/04/?";
  std::string pattern = "(?:/04)?";
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '{') {
      const auto close = path.find('}', i);
      pattern += "(.*)";
      i = close == std::string::npos ? path.size() : close;
    } else {
      pattern += path[i];
    }
  }
  return pattern;
}

ApiError no_lab_error(LabNameProblem bad_name, std::string_view raw, const LabLimits& limits) {
  if (bad_name != LabNameProblem::none) return lab_name_error(raw, bad_name);
  return api_error(503, "too_many_labs", MessageId::too_many_labs,
                   {{"max", std::to_string(limits.max_labs)}, {"minutes", std::to_string(limits.idle_expiry.count())}});
}

void register_lab_routes(HttpServer& server, LabRegistry& labs, const StaticRoots& dashboard,
                         const std::string& carrier_url, RateLimitGate rate_limit, std::string admin_token) {
  auto& r = server.routes();
  // Quotes and /health hold one of their lab's worker slots while served: the server has a
  // thread per connection (idle keep-alive, event streams, the page's reads), and those must
  // not lend a legacy storm extra workers. Each lab has its own (a bulkhead): a storm queues
  // its lab's quotes behind it, never another student's; all labs share the carrier.
  const auto shared = std::make_shared<Shared>(labs, dashboard, carrier_url, std::move(rate_limit),
                                               std::move(admin_token));
  for (const Route& route : lab_route_table()) {
    const std::string pattern = route_pattern(route.path);
    const auto has = [&route](const char* m) {
      return std::find(route.methods.begin(), route.methods.end(), m) != route.methods.end();
    };
    if (has("GET"))
      r.Get(pattern, [shared, &route](const Request& req, Response& res) { serve(*shared, route, req, "", res); });
    // Registered for both; refuse_wrong_method answers 405 for the one the route lacks.
    if (has("DELETE"))
      r.Delete(pattern, [shared, &route](const Request& req, Response& res) { serve(*shared, route, req, "", res); });
    if (has("POST") || has("PUT"))
      on_post_or_put(r, pattern, [shared, &route](const Request& req, const std::string& body, Response& res) {
        serve(*shared, route, req, body, res);
      });
  }

  // GET and HEAD of a fixed path are served straight from this map rather than through
  // httplib's list of std::regex patterns, which it tries in order: that matching was an
  // eighth of a short-circuited quote's work (bench/changes.md). A request with a
  // body takes httplib's path, which reads the body first, so that its bytes can never be
  // taken for the next request on the connection; so do templates ("/ui/{file}"), whose
  // handlers read the regex's captures.
  std::unordered_map<std::string, const Route*> fixed;
  for (const Route& route : lab_route_table()) {
    const bool get = std::find(route.methods.begin(), route.methods.end(), "GET") != route.methods.end();
    if (!get || route.path.find('{') != std::string::npos) continue;
    fixed.emplace(route.path, &route);
    const std::string hub(kHubPrefix);
    fixed.emplace(route.path == "/" ? hub : hub + route.path, &route);
    if (route.path == "/") fixed.emplace(hub + "/", &route);
  }
  r.set_pre_routing_handler([shared, fixed = std::move(fixed)](const Request& req, Response& res) {
    const bool get = req.method == "GET";
    if ((get || req.method == "HEAD") && !req.has_header("Content-Length") && !req.has_header("Transfer-Encoding")) {
      const auto it = fixed.find(req.path);
      if (it != fixed.end() && (get || !it->second->mutating)) {
        serve(*shared, *it->second, req, "", res);
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    return refuse_wrong_method(req, res);
  });
  r.set_error_handler([](const Request& req, Response& res) {
    // Called for every status >= 400; only fill in answers that have no body yet.
    if (!res.body.empty()) return;
    if (res.status == 404) {
      // "/incident" and "/diagnostic/summary" are typos of a route: name it.
      const std::optional<std::string> under_hub = strip_hub_prefix(req.path);
      const auto meant = did_you_mean(under_hub.value_or(req.path), route_templates());
      MessageArgs args{{"method", req.method.substr(0, 10)}, {"path", req.path.substr(0, 80)}};
      if (meant) args.emplace_back("suggestion", std::string(under_hub ? kHubPrefix : "") + *meant);
      send_api_error(req, res,
                     api_error(404, "not_found", meant ? MessageId::route_not_found_did_you_mean : MessageId::route_not_found,
                               args));
    } else {
      send_api_error(req, res,
                     api_error(res.status, "http_error", MessageId::http_error, {{"status", std::to_string(res.status)}}));
    }
  });
  r.set_exception_handler([](const Request& req, Response& res, std::exception_ptr ep) {
    std::string what = "unknown error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    spdlog::error("{} {} failed: {}", req.method, req.path, what);
    send_api_error(req, res, api_error(500, "internal_error", MessageId::internal_error, {}));
  });
  // Counted in the teacher's metrics: the route label is bounded, and Prometheus scrapes the
  // teacher's lab (a label per student would multiply every series by the class size).
  r.set_logger([&labs](const Request& req, const Response& res) {
    labs.teacher().app.count_http(route_label(req.path), res.status);
  });
}

}  // namespace quote_lab
