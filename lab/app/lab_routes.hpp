#pragma once
// The lab's HTTP API (SPEC.md, "Routes"): thin handlers that parse, call LabApp and
// render. Every route also answers under the course hub's prefix /04.

#include <filesystem>
#include <string>

#include "lab/app/lab_app.hpp"
#include "lab/experiments/storm_experiment.hpp"
#include "lab/http/http_server.hpp"
#include "lab/http/static_files.hpp"

namespace quote_lab {

/// Registers every route of the lab on `server`: the API, the dashboard under /ui/ (and
/// at / for browsers) and the live event stream /events. `carrier_url` is shown by / and
/// /health.
/// At most `workers` quotes (and /health) are served at once (a legacy storm exhausts
/// them); other routes and event streams are not counted: the server gives every
/// connection a thread of its own (--max-connections).
void register_lab_routes(HttpServer& server, LabApp& app, const StaticRoots& dashboard,
                         const std::string& carrier_url, StormExperiment& storm, int workers);

/// The largest --workers the lab accepts.
inline constexpr int kMaxWorkers = 1024;

/// Seconds between heartbeats on an idle event stream. Behind a proxy the lab sees a
/// closed page only when a write fails (HAProxy keeps its side open until then), so the
/// heartbeat is what frees the slot there: 1 s (issue 10, problem 8).
inline constexpr int kEventHeartbeatS = 1;
/// How often an idle event stream checks that its page is still there (issue 10: a closed
/// tab must free its slot within a second).
inline constexpr Millis kEventCheck{500};

/// The route template a request path counts under in metrics: "/04/health" → "/health",
/// unknown paths → "other".
std::string route_label(const std::string& path);

}  // namespace quote_lab
