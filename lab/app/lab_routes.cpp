#include "lab/app/lab_routes.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "lab/app/json_views.hpp"
#include "lab/formats/policy_json.hpp"
#include "lab/http/accept.hpp"
#include "lab/http/params.hpp"
#include "lab/http/worker_slots.hpp"
#include "lab/resilience/domain.hpp"
#include "lab/resilience/vocabulary.hpp"

namespace quote_lab {
namespace {

using httplib::Request;
using httplib::Response;

// "(?:/04)?/health": the course's hub serves this case under /04.
std::string prefixed(const std::string& path) { return "(?:/04)?" + path; }

const std::string* param(const Request& req, const char* name) {
  const auto it = req.params.find(name);
  return it == req.params.end() ? nullptr : &it->second;
}

// An integer parameter with the range and default domain.hpp gives it.
std::optional<ApiError> parse_domain_param(const Request& req, const IntParam& p, int& out) {
  return parse_int_param(p.name, param(req, std::string(p.name).c_str()), p.min, p.max, p.fallback, out);
}

void send_api_error(Response& res, const ApiError& e) { send_error(res, e.status, e.error, e.message, e.allowed); }

// Query strings are checked before their values are used: a typo such as "scenaro=down"
// must not quietly run the default scenario, and cpp-httplib reads "scenario=nope=ok" as
// "ok" and keeps the first of two "scenario=" values, so those shapes are refused too.
std::optional<ApiError> check_known_params(const Request& req, const std::set<std::string>& known) {
  const auto q = req.target.find('?');
  std::string_view query = q == std::string::npos ? std::string_view{} : std::string_view(req.target).substr(q + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view piece = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (piece.empty()) continue;
    const auto eq = piece.find('=');
    if (eq == 0 || piece.find('=', eq == std::string_view::npos ? 0 : eq + 1) != std::string_view::npos ||
        piece.find(';') != std::string_view::npos)
      return ApiError{400, "malformed_query",
                      "'" + std::string(piece.substr(0, 40)) + "' is not a name=value pair (use & between parameters)",
                      {}};
  }
  for (const auto& [name, _] : req.params) {
    if (!known.count(name))
      return ApiError{400, "unknown_parameter",
                      "unknown query parameter '" + name.substr(0, 40) + "'",
                      std::vector<std::string>(known.begin(), known.end())};
    if (req.params.count(name) > 1)
      return ApiError{400, "invalid_parameter", name.substr(0, 40) + " is given more than once", {}};
  }
  return std::nullopt;
}

nlohmann::ordered_json index_json(LabApp& app, const std::string& carrier_url, const std::string& host) {
  const std::string base = "http://" + (host.empty() ? std::string("127.0.0.1:8080") : host.substr(0, 100));
  const std::string example = "?scenario=provider_down&customer_id=" + std::to_string(kCustomerId.fallback) +
                              "&items=" + std::to_string(kItems.fallback);
  nlohmann::ordered_json scenarios = nlohmann::ordered_json::array();
  for (const auto& s : app.scenarios().all()) scenarios.push_back(to_json(s));
  const nlohmann::ordered_json routes = nlohmann::ordered_json::array({
      {{"method", "GET"}, {"path", "/health"}, {"description", "liveness"}},
      {{"method", "GET"}, {"path", "/quote-legacy?scenario=&customer_id=&items="},
       {"description", "one quote with the legacy policy: long timeout, immediate retries, no breaker, no fallback"}},
      {{"method", "GET"}, {"path", "/quote-resilient?scenario=&customer_id=&items="},
       {"description", "one quote with the resilient policy: short timeout, backoff with jitter, circuit breaker, fallback"}},
      {{"method", "GET"}, {"path", "/dependency/state"}, {"description", "the carrier's circuit breaker and the fallback quote"}},
      {{"method", "GET"}, {"path", "/incidents?limit=" + std::to_string(kIncidentsLimit.fallback)},
       {"description", "the last quote flows, newest first (limit " + std::to_string(kIncidentsLimit.min) + "-" +
                           std::to_string(kIncidentsLimit.max) + ")"}},
      {{"method", "GET"}, {"path", "/diagnostics/summary"}, {"description", "per mode and scenario counters and latency percentiles"}},
      {{"method", "GET"}, {"path", "/metrics"}, {"description", "telemetry as JSON, or Prometheus text when Accept asks for it"}},
      {{"method", "GET"}, {"path", "/metrics-prometheus"}, {"description", "Prometheus text exposition format 0.0.4"}},
      {{"method", "GET|POST"}, {"path", "/reset-lab"}, {"description", "telemetry, breaker, fallback cache and carrier mode back to their seeds"}},
      {{"method", "GET"}, {"path", "/carrier"}, {"description", "the carrier's mode and the calls it received"}},
      {{"method", "PUT|POST"}, {"path", "/carrier/mode?mode=provider_down"},
       {"description", "the scenario for every request that names none (an outage for all clients)"}},
  });
  return {{"service", "quote-lab"},
          {"description",
           {{"es", "Laboratorio de resiliencia: la misma cotización con una política legacy (reintentos agresivos) y una resiliente (timeout corto, backoff con jitter, circuit breaker y fallback)."},
            {"en", "Resilience lab: the same quote with a legacy policy (aggressive retries) and a resilient one (short timeout, backoff with jitter, circuit breaker and fallback)."}}},
          {"routes", routes},
          {"also_under_prefix", "/04"},
          {"parameters",
           {{"scenario", app.scenarios().accepted_names()},
            {kCustomerId.name, kCustomerId.describe()},
            {kItems.name, kItems.describe()},
            {"timeout_ms", "per-request override, integer 10-5000"},
            {"max_attempts", "per-request override, integer 1-10"},
            {"backoff_base_ms", "per-request override, integer 0-5000"},
            {"jitter", jitter_names()}}},
          {"scenarios", scenarios},
          {"carrier_mode", app.carrier_mode()},
          {"carrier_url", carrier_url},
          {"policies", to_json(app.policies())},
          {"try",
           {"curl '" + base + "/quote-legacy" + example + "'",
            "curl '" + base + "/quote-resilient" + example + "'",
            "curl " + base + "/dependency/state"}}};
}

// The embedded carrier's counters without the mode (shown once, at the top).
nlohmann::ordered_json carrier_stats_json(const LabApp& app) {
  const auto stats = app.carrier_stats();
  if (!stats) return nullptr;
  auto j = to_json(*stats);
  j.erase("mode");
  return j;
}

bool serve_file(Response& res, const std::filesystem::path& file, const char* content_type) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::stringstream buffer;
  buffer << in.rdbuf();
  res.status = 200;
  res.set_content(buffer.str(), content_type);
  return true;
}

// The methods each route answers. HEAD is allowed where GET is, except on routes whose GET
// changes something (a quote flow, a reset): a HEAD must never have effects.
struct Methods {
  std::vector<std::string> allowed;
  bool get_has_effects = false;
};
const std::map<std::string, Methods>& route_methods() {
  static const std::map<std::string, Methods> table{
      {"/", {{"GET"}}},          {"/health", {{"GET"}}},
      {"/quote-legacy", {{"GET"}, true}}, {"/quote-resilient", {{"GET"}, true}},
      {"/dependency/state", {{"GET"}}}, {"/incidents", {{"GET"}}}, {"/diagnostics/summary", {{"GET"}}},
      {"/metrics", {{"GET"}}}, {"/metrics-prometheus", {{"GET"}}}, {"/reset-lab", {{"GET", "POST"}, true}},
      {"/carrier", {{"GET"}}}, {"/carrier/mode", {{"PUT", "POST"}}}, {"/events", {{"GET"}}},
      {"/experiments/storm", {{"GET", "POST", "DELETE"}}}, {"/ui", {{"GET"}}}};
  return table;
}

}  // namespace

std::string route_label(const std::string& path) {
  std::string p = path;
  if (p == "/04") p = "/";
  else if (p.rfind("/04/", 0) == 0) p = p.substr(3);
  if (p.size() > 1 && p.back() == '/' && p != "/ui/") p.pop_back();
  if (p.rfind("/ui/", 0) == 0 || p == "/ui/") p = "/ui";
  const auto& routes = route_templates();
  return std::find(routes.begin(), routes.end(), p) != routes.end() ? p : "other";
}

void register_lab_routes(HttpServer& server, LabApp& app, const StaticRoots& dashboard,
                         const std::string& carrier_url, StormExperiment& storm, int workers) {
  auto& r = server.routes();
  // Quotes and /health run while holding one of `workers` slots: the pool has a thread per
  // connection (idle keep-alive, event streams), and those must not lend a legacy storm
  // extra workers.
  const auto slots = std::make_shared<WorkerSlots>(std::clamp(workers, 1, kMaxWorkers));
  const auto limited = [slots, &app](auto handler) {
    return [slots, &app, handler](auto&... args) {
      if (!slots->acquire(app.shutdown_token())) {
        Response& res = std::get<sizeof...(args) - 1>(std::tie(args...));  // every handler ends with it
        return send_error(res, 503, "shutting_down", "the lab is shutting down; try again once it is back");
      }
      struct Release {
        WorkerSlots& s;
        ~Release() { s.release(); }
      } release{*slots};
      handler(args...);
    };
  };
  // Issue 10: only quotes and /health take one of the `workers` slots (/health waits behind
  // a storm: the worker-exhaustion lesson); the page's reads, scrapes, resets and storm
  // controls answer while every quote worker is busy.
  const auto uses_quote_worker = [](const std::string& pattern) {
    return pattern.find("/quote-") != std::string::npos || pattern.find("/health") != std::string::npos;
  };
  const auto get = [&r, &limited, uses_quote_worker](const std::string& pattern, httplib::Server::Handler h) {
    if (uses_quote_worker(pattern)) r.Get(pattern, limited(std::move(h)));
    else r.Get(pattern, std::move(h));
  };
  const auto post = [&r](const std::string& pattern, BodyHandler h) { on_post_or_put(r, pattern, std::move(h)); };

  get(prefixed("/experiments/storm"), [&storm](const Request&, Response& res) { send_json(res, 200, storm.status()); });
  // Issue 10: a storm started from the lab can be stopped (no worker slot: it must not
  // wait behind the storm's own quotes).
  r.Delete(prefixed("/experiments/storm"), [&storm](const Request&, Response& res) {
    const bool was_running = storm.cancel();
    send_json(res, 200, {{"cancelled", was_running}, {"storm", storm.status()}});
  });
  post(prefixed("/experiments/storm"), [&app, &storm](const Request& req, const std::string& raw, Response& res) {
    // Parameters from the query string or a JSON body ({"mode": "legacy", "clients": 20, ...}).
    std::map<std::string, std::string> given;
    for (const auto& [k, v] : req.params) given.emplace(k, v);
    if (!raw.empty()) {
      const auto body = nlohmann::ordered_json::parse(raw, nullptr, false);
      if (!body.is_object()) return send_error(res, 400, "invalid_body", "the body must be a JSON object");
      for (const auto& [k, v] : body.items()) given.emplace(k, v.is_string() ? v.get<std::string>() : v.dump());
    }
    const std::set<std::string> known{"mode", "scenario", "clients", "duration_s", "requests"};
    for (const auto& [k, _] : given)
      if (!known.count(k))
        return send_error(res, 400, "unknown_parameter", "unknown parameter '" + k.substr(0, 40) + "'",
                          std::vector<std::string>(known.begin(), known.end()));
    auto lookup = [&given](const char* name) -> const std::string* {
      const auto it = given.find(name);
      return it == given.end() ? nullptr : &it->second;
    };
    StormOptions o;
    if (const auto* m = lookup("mode")) o.mode = *m;
    if (!parse_mode(o.mode))
      return send_error(res, 400, "invalid_parameter", "mode must be legacy or resilient", mode_names());
    if (const auto* sc = lookup("scenario")) {
      const Scenario* s = app.scenarios().find(*sc);
      if (!s) return send_error(res, 400, "unknown_scenario", "scenario '" + sc->substr(0, 40) + "' does not exist",
                                app.scenarios().accepted_names());
      o.scenario = s->name;
    }
    int clients = 0, duration = 0, requests = 0;
    if (auto e = parse_int_param("clients", lookup("clients"), 1, kExperimentMaxClients, 10, clients)) return send_api_error(res, *e);
    if (auto e = parse_int_param("duration_s", lookup("duration_s"), 1, static_cast<int>(kExperimentMaxDurationS), 10, duration))
      return send_api_error(res, *e);
    if (auto e = parse_int_param("requests", lookup("requests"), 1, 100000, 1, requests)) return send_api_error(res, *e);
    o.clients = clients;
    o.duration_s = duration;
    if (lookup("requests")) o.requests = requests;
    std::vector<std::string> errors;
    switch (storm.start(o, errors)) {
      case StormExperiment::Start::busy:
        return send_error(res, 409, "storm_running", "a storm is already running; GET /experiments/storm shows its progress");
      case StormExperiment::Start::invalid:
        return send_error(res, 400, "invalid_parameter", errors.empty() ? "invalid storm" : errors.front());
      case StormExperiment::Start::started:
        return send_json(res, 202, storm.status());
    }
  });

  get("/|/04/?", [&app, dashboard, carrier_url](const Request& req, Response& res) {
    if (prefers_html(req.get_header_value("Accept")) &&
        serve_file(res, dashboard.public_dir / "index.html", "text/html; charset=utf-8"))
      return;
    send_json(res, 200, index_json(app, carrier_url, req.get_header_value("Host")));
  });

  get("(/04)?/ui", [](const Request& req, Response& res) {
    res.set_redirect(req.path + "/", 301);
  });
  get("(?:/04)?/ui/(.*)", [dashboard](const Request& req, Response& res) {
    const StaticFile f = resolve_static(dashboard, req.matches[1].str());
    if (f.status != 200)
      return send_error(res, f.status, f.status == 400 ? "invalid_path" : "not_found", f.error);
    if (!serve_file(res, f.file, f.content_type.c_str()))
      return send_error(res, 404, "not_found", "the file could not be read");
    res.set_header("Cache-Control", "no-cache");
  });

  // No worker slot: each stream has a thread of its own (--max-event-clients).
  r.Get(prefixed("/events"), [&app](const Request&, Response& res) {
    auto& hub = app.events();
    auto sub = hub.subscribe();
    if (!sub)
      return send_error(res, 503, "too_many_event_clients",
                        "too many open dashboards for live updates; the page falls back to polling");
    res.set_header("Cache-Control", "no-cache");
    // The content type must be exactly text/event-stream: with a charset cpp-httplib
    // compresses the stream for Chromium and nothing arrives.
    res.set_chunked_content_provider(
        "text/event-stream",
        [&hub, sub, greeted = false, quiet = Millis{0}](std::size_t, httplib::DataSink& sink) mutable {
          std::string out;
          if (!greeted) {
            greeted = true;
            out = "retry: 2000\n: connected\n\n";
          } else {
            bool closed = false;
            // Short waits, and a look at the connection between them: a closed tab frees its
            // slot within kEventCheck, not at the next heartbeat (issue 10, problem 8).
            const auto events = hub.wait(*sub, kEventCheck, closed);
            if (closed) {
              sink.done();
              return true;
            }
            if (events.empty() && client_gone()) return false;
            if (events.empty() && (quiet += kEventCheck) < std::chrono::seconds(kEventHeartbeatS)) return true;
            quiet = Millis{0};
            // A heartbeat keeps proxies from closing an idle stream.
            out = events.empty() ? std::string(": heartbeat\n\n") : format_sse(events);
          }
          return sink.write(out.data(), out.size());
        },
        [&hub, sub](bool) { hub.unsubscribe(sub); });
  });

  get(prefixed("/health"), [&app, carrier_url](const Request&, Response& res) {
    send_json(res, 200, {{"status", "ok"}, {"service", "quote-lab"}, {"carrier_url", carrier_url},
                         {"carrier_mode", app.carrier_mode()}});
  });

  for (const Mode mode : kModes) {
    get(prefixed("/quote-" + std::string(to_string(mode))), [&app, mode](const Request& req, Response& res) {
      static const std::set<std::string> known{"scenario", "customer_id", "items", "timeout_ms",
                                               "max_attempts", "backoff_base_ms", "jitter"};
      if (auto e = check_known_params(req, known))
        return send_api_error(res, *e);
      std::string scenario;
      if (const auto* raw = param(req, "scenario")) {
        const Scenario* s = app.scenarios().find(*raw);
        if (s == nullptr)
          return send_error(res, 400, "unknown_scenario",
                            "scenario '" + raw->substr(0, 40) + "' does not exist; use one of the allowed names",
                            app.scenarios().accepted_names());
        scenario = s->name;
      }
      int customer_id = 0;
      int items = 0;
      if (auto e = parse_domain_param(req, kCustomerId, customer_id)) return send_api_error(res, *e);
      if (auto e = parse_domain_param(req, kItems, items)) return send_api_error(res, *e);
      RetryPolicy policy = app.policy(mode);
      std::vector<std::string> overrides;
      if (auto e = apply_policy_overrides([&req](const char* name) { return param(req, name); }, policy, overrides))
        return send_api_error(res, *e);
      const auto result = app.quote(mode, scenario, customer_id, items, &policy, overrides);
      send_json(res, quote_http_status(result.trace), result.body);
    });
  }

  get(prefixed("/dependency/state"), [&app](const Request&, Response& res) {
    send_json(res, 200, app.dependency_state());
  });

  get(prefixed("/incidents"), [&app](const Request& req, Response& res) {
    static const std::set<std::string> known{"limit"};
    if (auto e = check_known_params(req, known)) return send_api_error(res, *e);
    int limit = 0;
    if (auto e = parse_domain_param(req, kIncidentsLimit, limit)) return send_api_error(res, *e);
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& i : app.incidents(static_cast<std::size_t>(limit))) list.push_back(incident_json(i));
    send_json(res, 200, {{"limit", limit}, {"incidents", list}});
  });

  get(prefixed("/diagnostics/summary"), [&app](const Request&, Response& res) {
    send_json(res, 200, app.diagnostics());
  });

  const auto prometheus_text = [&app](Response& res) {
    res.status = 200;
    res.set_content(Metrics::to_text(app.metric_families()), "text/plain; version=0.0.4; charset=utf-8");
  };
  get(prefixed("/metrics"), [&app, prometheus_text](const Request& req, Response& res) {
    if (prefers_prometheus_text(req.get_header_value("Accept"))) return prometheus_text(res);
    send_json(res, 200, {{"metrics", Metrics::to_json(app.metric_families())},
                         {"dependency", app.dependency_state()},
                         {"carrier", app.carrier_stats() ? to_json(*app.carrier_stats()) : nlohmann::ordered_json(nullptr)}});
  });
  get(prefixed("/metrics-prometheus"), [prometheus_text](const Request&, Response& res) {
    prometheus_text(res);
  });

  const auto reset = [&app, &storm](const Request&, const std::string&, Response& res) {
    storm.cancel();  // issue 10: a reset also stops a storm started from the lab
    storm.forget_result();
    app.reset();
    send_json(res, 200, {{"status", "reset"},
                         {"message", "telemetry, metrics, breaker, fallback cache and carrier mode are back to their seeds"},
                         {"dependency", app.dependency_state()}});
  };
  get(prefixed("/reset-lab"), [reset](const Request& req, Response& res) { reset(req, "", res); });
  post(prefixed("/reset-lab"), reset);

  const auto carrier_view = [&app, carrier_url] {
    return nlohmann::ordered_json{{"url", carrier_url},
                          {"mode", app.carrier_mode()},
                          {"embedded", app.carrier_stats().has_value()},
                          {"stats", carrier_stats_json(app)},
                          {"scenarios", app.scenarios().accepted_names()}};
  };
  get(prefixed("/carrier"), [carrier_view](const Request&, Response& res) {
    send_json(res, 200, carrier_view());
  });
  const auto set_mode = [&app, carrier_view](const Request& req, const std::string& raw, Response& res) {
    std::string wanted = req.get_param_value("mode");
    if (wanted.empty() && !raw.empty()) {
      const auto body = nlohmann::ordered_json::parse(raw, nullptr, false);
      if (body.is_object() && body.contains("mode") && body["mode"].is_string())
        wanted = body["mode"].get<std::string>();
    }
    if (!app.set_carrier_mode(wanted))
      return send_error(res, 400, "unknown_scenario",
                        "mode must be a scenario name (got '" + wanted.substr(0, 40) + "')",
                        app.scenarios().accepted_names());
    send_json(res, 200, carrier_view());
  };
  post(prefixed("/carrier/mode"), set_mode);

  // A known route asked with a method it does not answer gets 405 and the methods it does.
  r.set_pre_routing_handler([](const Request& req, Response& res) {
    const auto it = route_methods().find(route_label(req.path));
    if (it == route_methods().end()) return httplib::Server::HandlerResponse::Unhandled;
    const auto& m = it->second;
    const bool listed = std::find(m.allowed.begin(), m.allowed.end(), req.method) != m.allowed.end();
    const bool head_ok = req.method == "HEAD" && !m.get_has_effects &&
                         std::find(m.allowed.begin(), m.allowed.end(), "GET") != m.allowed.end();
    if (listed || head_ok) return httplib::Server::HandlerResponse::Unhandled;
    std::string allow;
    for (const auto& a : m.allowed) allow += (allow.empty() ? "" : ", ") + a;
    res.set_header("Allow", allow);
    send_error(res, 405, "method_not_allowed", req.method.substr(0, 10) + " is not allowed on " + it->first + "; use " + allow);
    return httplib::Server::HandlerResponse::Handled;
  });
  r.set_error_handler([](const Request& req, Response& res) {
    // Called for every status >= 400; only fill in answers that have no body yet.
    if (!res.body.empty()) return;
    if (res.status == 404)
      send_error(res, 404, "not_found", "no route " + req.method + " " + req.path.substr(0, 80) + "; GET / lists the routes");
    else
      send_error(res, res.status, "http_error", "the request could not be served (HTTP " + std::to_string(res.status) + ")");
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
    send_error(res, 500, "internal_error", "the lab hit an unexpected error; see its log");
  });
  r.set_logger([&app](const Request& req, const Response& res) {
    app.count_http(route_label(req.path), res.status);
  });
}

}  // namespace quote_lab
