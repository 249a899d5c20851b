#pragma once
// Small helpers the route handlers share: query parameters with the domain's ranges, the
// lab's 4xx shape for an ApiError, and a file answered whole.

#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "lab/http/httplib_fwd.hpp"
#include "lab/app/simulation_runner.hpp"
#include "lab/http/params.hpp"
#include "lab/resilience/domain.hpp"

namespace quote_lab {

/// The query parameter that selects a student lab on every route (SPEC.md, last section).
inline constexpr std::string_view kLabParam = "lab";

/// The raw value of query parameter `name`, or null when absent.
const std::string* query_param(const httplib::Request& req, std::string_view name);

/// Reads integer parameter `p` with the range and default domain.hpp gives it.
std::optional<ApiError> parse_domain_param(const httplib::Request& req, const IntParam& p, int& out);

/// check_query() on the request's target and parameters; `lab` and `lab_key` are always known.
std::optional<ApiError> check_known_params(const httplib::Request& req, const std::set<std::string>& known);

/// `typed` (shortened, control bytes shown as '?') names no policy of `policies`: the error
/// `status` and `error` (404 "unknown_policy" when a path names it, 400 "invalid_parameter"
/// for a parameter), a near miss suggested, `allowed` listing every name.
ApiError unknown_policy_error(const Policies& policies, const std::string& typed, int status, const std::string& error);

/// The language of the request's messages: the one its Accept-Language prefers of Spanish
/// and English, else the lab's `serve --language` (English by default); message_language()
/// in http_server.hpp.
Language request_language(const httplib::Request& req);

/// Answers `e` as the lab's error JSON {"error", "message", "allowed"?} with its status,
/// the message in request_language(req) (api_error.hpp).
void send_api_error(const httplib::Request& req, httplib::Response& res, const ApiError& e);

/// The carrier mode a PUT/POST asks for: `?mode=NAME`, else a JSON body's "mode" string,
/// else "" (the caller answers that with a 400).
std::string carrier_mode_asked(const httplib::Request& req, const std::string& body);

/// Answers 200 with the whole of `file`; false (and `res` untouched) when it cannot be read.
bool serve_file(httplib::Response& res, const std::filesystem::path& file, const char* content_type);

/// Content negotiation of the routes that are also pages (`/`, /incidents,
/// /diagnostics/summary, /metrics, /dependency/state): a browser (Accept prefers text/html,
/// accept.hpp) gets the HTML `page` and true; any other client gets false and its JSON as
/// before. Either way the answer says it varies by Accept, so no cache mixes the two.
/// False too when `page` cannot be read: the JSON is still an answer.
bool serve_page_to_browser(const httplib::Request& req, httplib::Response& res, const std::filesystem::path& page);

/// A simulation the runner did not take (app/simulation_runner.hpp): 503 `simulations_busy`
/// when the class's line is full, 429 `simulations_yours_busy` when the asker's share is, each
/// with Retry-After.
void refuse_simulation(const httplib::Request& req, httplib::Response& res, const SimulationRunner& runner,
                       SimulationRunner::Admission admission);

/// The page that shows /incidents, /diagnostics/summary, /metrics and /dependency/state
/// to a browser: one page that reads the route's JSON and draws it (public/pages.html).
inline constexpr const char* kViewPage = "pages.html";

}  // namespace quote_lab
