// The dashboard: its files under /ui/ (a whitelist resolver, static_files.hpp) and its live
// event stream /events (Server-Sent Events).
#include <httplib.h>

#include "lab/api/lab_routes.hpp"
#include "lab/api/route_handlers.hpp"
#include "lab/api/route_support.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/http/http_server.hpp"
#include "lab/http/static_files.hpp"

namespace quote_lab::handlers {

void ui_redirect(RouteContext&, const httplib::Request& req, const std::string&, httplib::Response& res) {
  res.set_redirect(req.path + "/", 301);
}

void ui_file(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  const std::string asked = req.matches[1].str();
  const StaticFile f = resolve_static(ctx.dashboard, asked);
  // The student's words, not the resolver's reason (f.error, English): the path as asked,
  // shortened, said in the language the request prefers.
  const MessageArgs file{{"file", asked.substr(0, 80)}};
  if (f.status == 400)
    return send_api_error(req, res, api_error(400, "invalid_path", MessageId::dashboard_path_invalid, file));
  if (f.status != 200 || !serve_file(res, f.file, f.content_type.c_str()))
    return send_api_error(req, res, api_error(404, "not_found", MessageId::dashboard_file_not_found, file));
  res.set_header("Cache-Control", "no-cache");
}

void events(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  auto& hub = ctx.app.events();
  auto sub = hub.subscribe();
  if (!sub)
    return send_api_error(req, res, api_error(503, "too_many_event_clients", MessageId::too_many_event_clients, {}));
  res.set_header("Cache-Control", "no-cache");
  // The content type must be exactly text/event-stream: with a charset cpp-httplib
  // compresses the stream for Chromium and nothing arrives.
  res.set_chunked_content_provider(
      "text/event-stream",
      // `hold` keeps a student's lab (and so `hub`) alive as long as its page listens.
      [&hub, sub, hold = ctx.hold, greeted = false, quiet = Millis{0}](std::size_t, httplib::DataSink& sink) mutable {
        std::string out;
        if (!greeted) {
          greeted = true;
          out = "retry: 2000\n: connected\n\n";
        } else {
          bool closed = false;
          // Short waits, and a look at the connection between them: a closed tab frees its
          // slot within kEventCheck, not at the next heartbeat.
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
      [&hub, sub, hold = ctx.hold](bool) { hub.unsubscribe(sub); });
}

}  // namespace quote_lab::handlers
