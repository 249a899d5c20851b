#pragma once
// `serve` flags for a lab shared with a class: how many connections it holds,
// how long and how large a request head may be, the teacher token and the host names it
// answers to. Kept apart from cli.cpp so the classroom's rules are read in one place.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lab/app/options.hpp"
#include "lab/http/connection_limits.hpp"
#include "lab/http/http_server.hpp"

namespace quote_lab {

/// Declares --max-connections, --head-timeout-s, --max-head-kb, --admin-token,
/// --allowed-hosts, --max-labs and --lab-idle-minutes (and their environment variables,
/// SPEC's last section) on `serve`.
void add_classroom_flags(CLI::App& serve, ClassroomOptions& options);

/// Declares --rate-limit (env RATE_LIMIT), --rate-window-s (RATE_WINDOW_S) and
/// --trusted-proxy-header (TRUSTED_PROXY_HEADER) on `serve`. Out-of-range values
/// are a usage error naming the flag, like every other serve flag.
void add_rate_limit_flags(CLI::App& serve, RateLimitOptions& options);

/// The connection bounds those flags give.
ConnectionLimits connection_limits(const ClassroomOptions& options);

/// Whether a request changes the lab for everyone (and so needs the teacher token and a
/// same-site origin): any POST, PUT or DELETE, and GET /reset-lab.
bool changes_lab(const httplib::Request& req);

/// Whether a request is for a student's own lab (it names one with `?lab=`): its reset,
/// carrier mode and storm are that student's, so they need no teacher token.
bool for_student_lab(const httplib::Request& req);

/// The start-up warning for a lab listening on `listen_host` with `admin_token`: set when
/// the address is not loopback and there is no token, naming the routes anyone can use, in
/// `language` (`serve --language`: a Spanish class's teacher reads it in Spanish).
std::optional<std::string> open_lab_warning(const std::string& listen_host, const std::string& admin_token,
                                            Language language = Language::en);

/// Applies the flags to `server` before it starts (bounds, token, Origin and Host checks)
/// and warns when the lab listens beyond loopback without a token, naming the routes
/// anyone who reaches it can use.
void apply_classroom(HttpServer& server, const std::string& listen_host, const ClassroomOptions& options,
                     Language language = Language::en);

}  // namespace quote_lab
