#include "lab/app/route_table.hpp"

#include <algorithm>
#include <map>

#include "lab/app/route_handlers.hpp"
#include "lab/experiments/storm_experiment.hpp"
#include "lab/resilience/domain.hpp"

namespace quote_lab {

const std::vector<Route>& lab_route_table() {
  using namespace handlers;
  // Built once: every request consults the table (405s, teacher-only routes, labels).
  static const std::vector<Route> table = [] {
    const std::string limits = std::to_string(kIncidentsLimit.min) + "-" + std::to_string(kIncidentsLimit.max);
    const std::string storm_limits = "clients 1-" + std::to_string(kExperimentMaxClients) + ", duration_s 1-" +
                                     std::to_string(static_cast<int>(kExperimentMaxDurationS));
    // A path pasted from `GET /` must work as it is: every parameter with a value that works
    // (the defaults, on the carrier's mode), never "?scenario=&customer_id=", which is a 400.
    const std::string quote_example = "?scenario=" + std::string(kDefaultScenario) + "&" +
                                      std::string(kCustomerId.name) + "=" + std::to_string(kCustomerId.fallback) + "&" +
                                      std::string(kItems.name) + "=" + std::to_string(kItems.fallback);
    const std::string page = "; a browser (Accept: text/html) gets it as a page";
    // Listed in the order of the course material; routes added later come after.
    return std::vector<Route>{
        {{"GET"}, "/health", "", false, true, "liveness", health},
        {{"GET"}, "/quote-legacy", quote_example, true, true,
         "one quote with the legacy policy: long timeout, immediate retries, no breaker, no fallback", quote_legacy,
         false, true},
        {{"GET"}, "/quote-resilient", quote_example, true, true,
         "one quote with the resilient policy: short timeout, backoff with jitter, circuit breaker, fallback",
         quote_resilient, false, true},
        {{"GET"}, "/dependency/state", "", false, false, "the carrier's circuit breaker and the fallback quote" + page,
         dependency_state},
        {{"GET"}, "/incidents", "?limit=" + std::to_string(kIncidentsLimit.fallback), false, false,
         "the last quote flows, newest first (limit " + limits + ")" + page, incidents},
        {{"GET"}, "/diagnostics/summary", "", false, false, "per mode and scenario counters and latency percentiles" + page,
         diagnostics_summary},
        {{"GET"}, "/metrics", "", false, false, "telemetry as JSON, or Prometheus text when Accept asks for it" + page, metrics},
        {{"GET"}, "/metrics-prometheus", "", false, false, "Prometheus text exposition format 0.0.4", metrics_prometheus},
        {{"GET", "POST"}, "/reset-lab", "", true, false,
         "telemetry, breaker, fallback cache and carrier mode back to their seeds; cancels a running storm", reset_lab,
         true},
        {{"GET"}, "/carrier", "", false, false, "the carrier's mode and the calls it received", carrier},
        {{"PUT", "POST"}, "/carrier/mode", "?mode=provider_down", true, false,
         "the scenario for every request that names none (an outage for all clients)", carrier_mode, true},
        {{"GET"}, "/", "", false, false, "this index as JSON; a browser (Accept: text/html) gets the dashboard", index},
        {{"GET"}, "/ui", "", false, false, "redirects to /ui/", ui_redirect},
        {{"GET"}, "/ui/{file}", "", false, false, "the dashboard's files: index.html, app.js, vendor/chart.min.js, ...",
         ui_file},
        // Only quotes and /health hold a worker slot (--workers): /health waits behind a legacy
        // storm (the exhaustion lesson); the page's reads, scrapes, controls and event streams
        // answer meanwhile, each connection on a thread of its own (--max-connections).
        {{"GET"}, "/events", "", false, false,
         "live updates for dashboards (Server-Sent Events): quote, breaker, reset, carrier_mode", events},
        {{"GET"}, "/experiments/storm", "", false, false, "the storm the lab runs against itself: its progress or last result",
         storm_status},
        {{"POST"}, "/experiments/storm", "?mode=legacy&scenario=provider_down&clients=10&duration_s=10", true, false,
         "starts a storm against this lab (one at a time; " + storm_limits + " or requests)", storm_start, true},
        {{"DELETE"}, "/experiments/storm", "", true, false, "cancels the running storm", storm_cancel, true},
        {{"GET"}, "/class", "", false, false,
         "every student lab (?lab=NAME): breaker, requests, carrier calls per request, p99; a page for browsers",
         class_view},
        {{"POST"}, "/class/reset", "", true, false,
         "resets every student lab (not the teacher's) as /reset-lab does; teacher only", class_reset, true, false, true},
        {{"PUT", "POST"}, "/class/carrier-mode", "?mode=provider_down", true, false,
         "sets every student lab's carrier mode (not the teacher's); teacher only", class_carrier_mode, true, false, true},
        // No example query: a path with {policy} cannot be pasted; the description names one.
        {{"GET"}, "/quote/{policy}", "", true, true,
         "one quote with any policy of the policies file (GET / lists them under `policies`), e.g. "
         "/quote/adr0005" + quote_example + "; same parameters and answer as /quote-resilient",
         quote_named, false, true},
    };
  }();
  return table;
}

std::string route_template(const Route& route) {
  const auto brace = route.path.find("/{");
  return brace == std::string::npos ? route.path : route.path.substr(0, brace);
}

const std::vector<std::string>& route_templates() {
  static const std::vector<std::string> labels = [] {
    std::vector<std::string> out;
    for (const Route& r : lab_route_table())
      if (const auto t = route_template(r); std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    return out;
  }();
  return labels;
}

std::string route_label(const std::string& path) {
  std::string p = path;
  if (p == "/04") p = "/";
  else if (p.rfind("/04/", 0) == 0) p = p.substr(3);
  if (p.size() > 1 && p.back() == '/' && p != "/ui/") p.pop_back();
  if (p.rfind("/ui/", 0) == 0) p = "/ui";
  const auto& routes = route_templates();
  return std::find(routes.begin(), routes.end(), p) != routes.end() ? p : "other";
}

namespace {

// What the checks before every handler need per label, derived from the table once.
struct LabelFacts {
  AllowedMethods allowed;
  std::vector<std::string> teacher_only_methods;
  bool class_wide = false;
};

const std::map<std::string, LabelFacts>& label_facts() {
  static const std::map<std::string, LabelFacts> facts = [] {
    std::map<std::string, LabelFacts> out;
    for (const Route& r : lab_route_table()) {
      LabelFacts& f = out[route_template(r)];
      for (const auto& m : r.methods) {
        if (std::find(f.allowed.methods.begin(), f.allowed.methods.end(), m) == f.allowed.methods.end())
          f.allowed.methods.push_back(m);
        // A HEAD runs the GET handler without its body: never where the GET changes the lab.
        if (m == "GET" && !r.mutating) f.allowed.head = true;
        if (r.teacher_only) f.teacher_only_methods.push_back(m);
      }
      f.class_wide = f.class_wide || r.class_wide;
    }
    return out;
  }();
  return facts;
}

}  // namespace

const AllowedMethods& allowed_methods(const std::string& label) {
  static const AllowedMethods none;
  const auto& facts = label_facts();
  const auto it = facts.find(label);
  return it == facts.end() ? none : it->second.allowed;
}

bool teacher_only(const std::string& method, const std::string& path) {
  const auto& facts = label_facts();
  const auto it = facts.find(route_label(path));
  if (it == facts.end()) return false;
  const auto& methods = it->second.teacher_only_methods;
  return std::find(methods.begin(), methods.end(), method == "HEAD" ? "GET" : method) != methods.end();
}

bool class_wide(const std::string& path) {
  const auto& facts = label_facts();
  const auto it = facts.find(route_label(path));
  return it != facts.end() && it->second.class_wide;
}

std::vector<std::string> teacher_only_routes() {
  std::vector<std::string> out;
  for (const Route& r : lab_route_table()) {
    if (!r.teacher_only) continue;
    std::string methods;
    for (const auto& m : r.methods) methods += (methods.empty() ? "" : "|") + m;
    out.push_back(methods + " " + r.path);
  }
  return out;
}

}  // namespace quote_lab
