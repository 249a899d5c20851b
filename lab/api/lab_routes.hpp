#pragma once
// The lab's HTTP API (SPEC.md, "Routes"): registers every route of the table
// (route_table.hpp) on an HttpServer, with the answers the table implies for a wrong
// method (405 + Allow), HEAD, unknown paths (JSON 404) and the per-route metric. Every route
// also answers under the course hub's prefix /04.

#include <string>

#include "lab/api/rate_limiting.hpp"
#include "lab/api/route_table.hpp"
#include "lab/base/clock.hpp"
#include "lab/base/lab_name.hpp"
#include "lab/http/api_error.hpp"

namespace quote_lab {

class HttpServer;
class LabRegistry;
struct LabLimits;
struct StaticRoots;

/// Why `?lab=RAW` reaches no lab, as the route answers it: 400 `invalid_lab_name` when the
/// name is refused (`bad_name`, lab_name_error), else 503 `too_many_labs` naming --max-labs
/// and the idle expiry of `limits`.
ApiError no_lab_error(LabNameProblem bad_name, std::string_view raw, const LabLimits& limits);

/// Registers every route of lab_route_table() on `server`: the API, the dashboard under
/// /ui/ (and at / for browsers) and the live event stream /events. Each request is served
/// by the lab its `?lab=NAME` selects (the teacher's without it; a bad name is a 400, one
/// past --max-labs a 503). `carrier_url` is shown by / and /health. Each lab serves at most
/// LabLimits::workers quotes (and /health) at once, on its own slots (Lab::slots): a legacy
/// storm exhausts its own lab's, never another's; other routes and event streams are not
/// counted: the server gives every connection a thread of its own (--max-connections). `labs` must outlive the server; `dashboard` is copied.
/// `rate_limit`: the per-client limit on the routes the table marks `rate_limited` (off when
/// its limiter is null); a refused request gets a 429 before it takes a worker, and counts in
/// the teacher's quote_lab_rate_limited_total.
/// Lab keys (lab_keys.hpp): a change to a student lab (needs_lab_key) whose owner has a key
/// needs it (`X-Lab-Key` or `lab_key=`) or `Authorization: Bearer admin_token` (when
/// `admin_token`, `serve --admin-token`, is set), else a 403 before the lab is touched; the
/// first JSON answer for a lab of an unclaimed owner carries the new key as `lab_key`.
void register_lab_routes(HttpServer& server, LabRegistry& labs, const StaticRoots& dashboard,
                         const std::string& carrier_url, RateLimitGate rate_limit = {},
                         std::string admin_token = {});


/// Seconds between heartbeats on an idle event stream. Behind a proxy the lab sees a
/// closed page only when a write fails (HAProxy keeps its side open until then), so the
/// heartbeat is what frees the slot there: 1 s.
inline constexpr int kEventHeartbeatS = 1;
/// How often an idle event stream checks that its page is still there: a closed tab
/// must free its slot within a second.
inline constexpr Millis kEventCheck{500};

/// The httplib pattern of a route path: "/health" → "(?:/04)?/health", "/ui/{file}" →
/// "(?:/04)?/ui/(.*)" (each {name} is the next match), "/" → "/|/04/?".
std::string route_pattern(const std::string& path);

}  // namespace quote_lab
