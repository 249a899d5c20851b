// Counters and metrics: /diagnostics/summary, /metrics (JSON or Prometheus text, by Accept)
// and /metrics-prometheus.
#include <httplib.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/api/route_handlers.hpp"
#include "lab/api/route_support.hpp"
#include "lab/api/json_views.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/http/accept.hpp"
#include "lab/http/http_server.hpp"
#include "lab/observability/metric_help_es.hpp"

namespace quote_lab::handlers {
namespace {

void prometheus_text(LabApp& app, httplib::Response& res) {
  res.status = 200;
  res.set_content(Metrics::to_text(app.metric_families()), "text/plain; version=0.0.4; charset=utf-8");
}

// `family=NAME` (repeated, or NAME,NAME): only the families named, for a page that reads a
// few of them every second (the whole JSON of a busy lab is some 300 KB). None: every family.
std::vector<prometheus::MetricFamily> named_families(std::vector<prometheus::MetricFamily> families,
                                                     const httplib::Request& req) {
  std::set<std::string, std::less<>> wanted;
  for (std::size_t i = 0; i < req.get_param_value_count("family"); ++i) {
    const std::string list = req.get_param_value("family", i);
    for (std::size_t from = 0; from <= list.size();) {
      const std::size_t comma = std::min(list.find(',', from), list.size());
      if (comma > from) wanted.insert(list.substr(from, comma - from));
      from = comma + 1;
    }
  }
  if (wanted.empty()) return families;
  std::erase_if(families, [&](const prometheus::MetricFamily& f) { return !wanted.contains(f.name); });
  return families;
}

}  // namespace

void diagnostics_summary(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  if (serve_page_to_browser(req, res, ctx.dashboard.public_dir / kViewPage)) return;
  send_json(res, 200, diagnostics_json(ctx.app.mode_summary(), ctx.app.diagnostics_view()));
}

void metrics(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  LabApp& app = ctx.app;
  // Prometheus first: whatever preferred its text before the page existed still gets it.
  if (prefers_prometheus_text(req.get_header_value("Accept"))) {
    res.set_header("Vary", "Accept");
    return prometheus_text(app, res);
  }
  if (serve_page_to_browser(req, res, ctx.dashboard.public_dir / kViewPage)) return;
  const auto stats = app.carrier_stats();
  auto families = Metrics::to_json(named_families(app.metric_families(), req));
  // The page reads this JSON in Spanish; Prometheus's text above keeps its English HELP.
  if (request_language(req) == Language::es)
    for (auto& family : families)
      if (const auto help = metric_help_es(family["name"].get<std::string>())) family["help"] = std::string(*help);
  res.set_header("Vary", "Accept-Language");
  send_json(res, 200, {{"metrics", families},
                       {"dependency", dependency_json(app.dependency_view())},
                       {"carrier", stats ? to_json(*stats) : nlohmann::ordered_json(nullptr)}});
}

void metrics_prometheus(RouteContext& ctx, const httplib::Request&, const std::string&, httplib::Response& res) {
  prometheus_text(ctx.app, res);
}

}  // namespace quote_lab::handlers
