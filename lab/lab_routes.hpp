#pragma once
// The lab's HTTP API (SPEC.md, "Routes"): thin handlers that parse, call LabApp and
// render. Every route also answers under the course hub's prefix /04.

#include <filesystem>
#include <string>

#include "lab/http_server.hpp"
#include "lab/lab_app.hpp"

namespace quote_lab {

/// Registers every route of the lab on `server`. `public_dir` holds the dashboard
/// (index.html); `carrier_url` is shown by / and /health.
void register_lab_routes(HttpServer& server, LabApp& app, const std::filesystem::path& public_dir,
                         const std::string& carrier_url);

/// The route template a request path counts under in metrics: "/04/health" → "/health",
/// unknown paths → "other".
std::string route_label(const std::string& path);

}  // namespace quote_lab
