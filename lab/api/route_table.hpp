#pragma once
// The lab's routes in ONE table (SPEC.md, "Routes"). Each entry says which methods and path
// it answers, whether it changes the lab, whether it holds a worker slot, what it is for,
// and which handler serves it. Everything else is derived from the table, so that a new
// route cannot be served without being listed: registration with the HTTP server
// (lab_routes), the 405 + Allow answer and HEAD, the `route` label of
// quote_lab_http_requests_total, and the `GET /` index.

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lab/http/httplib_fwd.hpp"
#include "lab/http/static_files.hpp"

namespace quote_lab {

class LabApp;
class LabRegistry;
class PolicyViews;
class StormExperiment;

/// What a handler may reach: the lab the request's `?lab=` selects (the teacher's without
/// it) and its storm runner, every lab (GET /class), the dashboard's files and the
/// carrier's URL (shown by / and /health). Made for each request by lab_routes.
class SimulationRunner;
class DesignJudge;
class MapPointCache;

struct RouteContext {
  LabApp& app;
  StormExperiment& storm;
  const StaticRoots& dashboard;  // the server's: nothing is copied per request
  const std::string& carrier_url;
  LabRegistry& labs;
  /// /health's answer for one carrier mode, rendered again only when the mode changes:
  /// rendering it on every request was a fifth of the request's work (bench/changes.md). One for
  /// every lab (the server's), so it is a reference.
  struct RenderedHealth {
    std::mutex mutex;
    std::string carrier_mode;
    std::string body;  // empty until the first /health
  };
  RenderedHealth& health;
  /// Every policy's `policy` object and note, built once for every lab.
  const PolicyViews& policy_views;
  /// Keeps the selected lab alive while something outlives the handler (an event stream):
  /// an idle student lab is forgotten only once nothing holds it.
  std::shared_ptr<void> hold;
  /// How long the request waited for a worker slot, in ms (0 on routes that take none).
  double queue_ms = 0;
  /// The request carries the teacher's token (`serve --admin-token`).
  bool teacher = false;
  /// Where simulations run, one at a time for every lab (GET /experiments/simulate).
  SimulationRunner* simulations = nullptr;
  /// Where the class challenge's designs are scored (POST /experiments/scorecard).
  DesignJudge* designs = nullptr;
  /// The metastability map's points already simulated (GET /experiments/map).
  MapPointCache* map_points = nullptr;
  /// Who asks, for a route that `simulates` (its share of the simulation runner's line): the
  /// lab's owner when the request carries that owner's key, else the client's address (the
  /// rate limit's rule); "" for the teacher (token), who has no share to fill.
  std::string asker{};
};

/// Serves one request. `body` is the request body of POST and PUT (empty for GET and for
/// a POST without one); errors are answered on `res` (4xx JSON), never thrown.
using RouteHandler = void (*)(RouteContext& ctx, const httplib::Request& req, const std::string& body,
                              httplib::Response& res);

/// One entry of the table, written with designated initializers: a flag left out keeps the
/// default below.
struct Route {
  std::vector<std::string> methods;  ///< "GET", "POST", "PUT", "DELETE"; HEAD follows GET unless `mutating`
  std::string path;                  ///< template: "/health", "/ui/{file}" ({name}: any rest of the path)
  std::string example_query{};       ///< appended to the path in `GET /`, e.g. "?limit=10"
  bool mutating = false;             ///< changes the lab (a quote flow, a reset, a mode): no HEAD
  bool worker_slot = true;           ///< holds one of --workers while served: quotes and /health
                                     ///< only (the exhaustion lesson); the rest answer meanwhile
  /// One line for `GET /`, in English and in Spanish (the glossary's terms): the index
  /// speaks the language the request's Accept-Language prefers.
  struct Description {
    std::string en, es;
  } description;
  RouteHandler handler = nullptr;
  bool teacher_only = false;         ///< changes the lab for everyone (reset, carrier mode, storms):
                                     ///< needs the teacher token when one is set, and a same-site caller
  bool rate_limited = false;         ///< counted against `serve --rate-limit` per client (the quote
                                     ///< routes only: never /health, scrapes, pages or the teacher's)
  bool class_wide = false;           ///< acts on every student lab (/class/...): takes no ?lab=, and
                                     ///< a ?lab= never stands in for the teacher token
  bool student_action = false;       ///< a student's own change outside any lab (claiming a name):
                                     ///< no teacher token, a same-site caller
  bool simulates = false;            ///< runs on the simulation runner: the request's asker
                                     ///< (RouteContext::asker) is worked out for its share
};

/// Every route the lab answers, in the order `GET /` lists them. Each also answers under
/// the course hub's prefix /04.
const std::vector<Route>& lab_route_table();

/// The metric label of a route: its path up to the first "{...}" segment ("/ui/{file}" and
/// "/ui" are both "/ui").
std::string route_template(const Route& route);

/// The distinct labels of the table, in table order: the bounded `route` label set of
/// quote_lab_http_requests_total.
const std::vector<std::string>& route_templates();

/// The prefix the course's hub serves every route under as well: "/04/health" is "/health".
inline constexpr std::string_view kHubPrefix = "/04";

/// `path` without the hub prefix ("/04" and "/04/" → "/", "/04/health" → "/health"), or
/// nullopt when it does not start with it.
std::optional<std::string> strip_hub_prefix(std::string_view path);

/// The label a request path counts under: "/04/health" → "/health", "/ui/app.js" → "/ui",
/// unknown paths → "other".
std::string route_label(const std::string& path);

/// The methods a label answers, in table order without repeats ("GET, POST" for
/// /reset-lab), and whether HEAD is allowed (some GET route under it changes nothing).
struct AllowedMethods {
  std::vector<std::string> methods;
  bool head = false;
};
/// Empty `methods` when `label` is not a route of the table.
const AllowedMethods& allowed_methods(const std::string& label);

/// Whether `method` on `path` is a teacher-only route of the table (HEAD counts as GET).
bool teacher_only(const std::string& method, const std::string& path);

/// Whether `path` is a class-wide route of the table (any method): one that acts on every
/// student lab at once.
bool class_wide(const std::string& path);
/// Whether `path` is a route the table marks `student_action`.
bool student_action(const std::string& path);

/// Whether `route`, on a student's lab (`?lab=NAME`), needs the owner's key or the teacher's
/// token (lab_keys.hpp): the changes a student makes to their own lab (reset, carrier mode,
/// storms). Quotes and reads never do; class-wide routes take no lab.
inline bool needs_lab_key(const Route& route) { return route.mutating && !route.class_wide; }

/// The teacher-only routes as "METHOD /path" lines, for the start-up warning and `GET /`.
std::vector<std::string> teacher_only_routes();

}  // namespace quote_lab
