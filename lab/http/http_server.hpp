#pragma once
// cpp-httplib server set up the way this lab needs it (measured on cpp-httplib 0.11.4, see docs/stack-notes.md): TCP_NODELAY (else
// every keep-alive answer waits ~44 ms for Nagle), a listen backlog of 1024 instead of the
// compiled-in 5 (else connection bursts are dropped and retried after 1–7 s), a worker
// pool of a chosen size, a short keep-alive so stop() returns quickly, and the JSON
// helpers every route uses to answer.

#include <httplib.h>

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lab/http/accept.hpp"
#include "lab/http/api_error.hpp"
#include "lab/http/client_watch.hpp"
#include "lab/http/connection_limits.hpp"
#include "lab/http/request_guard.hpp"

namespace quote_lab {

/// An httplib::Server running on its own thread. Register routes on `routes()` before
/// `start()`; `stop()` (or the destructor) stops it and joins the thread.
class HttpServer {
 public:
  HttpServer();
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The httplib::Server with the lab's connection loop (lab/http/connection_limits.hpp)
  // and framing checks (lab/http/request_guard.hpp) in front of every handler.
  class Server : public httplib::Server {
   public:
    Server();
    bool raise_backlog(int backlog);
    /// Hides httplib's: `handler` runs after the framing check, which refuses malformed
    /// requests (400 JSON, connection closed) before any route sees them.
    Server& set_pre_routing_handler(HandlerWithResponse handler);
    ConnectionLimits limits;  // set before start()
    std::atomic<int> open_connections{0};
    /// Set before start(): who may change the lab (request_guard.hpp); unset, every
    /// request is allowed (the embedded carrier).
    std::optional<AccessPolicy> access;
    std::function<bool(const httplib::Request&)> changes_lab;
    std::function<bool(const httplib::Request&)> student_lab;
    /// Set before start(): the language of this server's messages for requests whose
    /// Accept-Language names neither Spanish nor English (curl sends none). English unless
    /// set: `serve --language es` sets it on the lab's server for a Spanish class; the
    /// embedded carrier keeps English.
    Language default_language = Language::en;
    /// Watches the clients of requests that asked (watch_client()): one thread, started by
    /// the first.
    mutable ClientWatch client_watch;

   private:
    bool process_and_close_socket(socket_t sock) override;
    HandlerWithResponse lab_pre_routing_;
  };

  Server& routes() { return server_; }

  /// Bounds every connection (head time and size, connections at once). Call before
  /// start(); with `limits.max_connections` > 0 the worker pool has that many threads
  /// (plus a few to refuse the ones past it): `workers` then bounds nothing, and the
  /// routes bound concurrent work themselves (WorkerSlots).
  void set_limits(const ConnectionLimits& limits);
  /// Checks Host on every request and, on those `changes_lab` says change the lab for
  /// others, the Origin / Sec-Fetch-Site and the teacher token (request_guard.hpp);
  /// refusals are 401/403 JSON answers. Requests `student_lab` says are for a student's own
  /// lab need no token, and their answers carry no X-Admin-Token (the page shows that
  /// student every control of their lab). Call before start().
  void set_access(AccessPolicy policy, std::function<bool(const httplib::Request&)> changes_lab,
                  std::function<bool(const httplib::Request&)> student_lab = nullptr) {
    server_.access = std::move(policy);
    server_.changes_lab = std::move(changes_lab);
    server_.student_lab = std::move(student_lab);
  }
  /// The language of messages for requests that name neither Spanish nor English in
  /// Accept-Language (Server::default_language; English unless set). Call before start().
  void set_default_language(Language language) { server_.default_language = language; }
  /// Connections open now.
  int open_connections() const { return server_.open_connections; }

  /// Binds `host:port` (port 0 picks a free one), serves with `workers` threads and
  /// returns the bound port once the listener runs, so that a stop() right after start()
  /// is never lost (cpp-httplib 0.11.4 ignores a stop that comes before its listen loop has
  /// begun). Throws std::runtime_error naming the address if it cannot bind.
  int start(const std::string& host, int port, int workers);
  /// Closes the listening socket and returns at once: new connections are refused, and
  /// connections already open end after the request they are serving.
  void stop_accepting();
  /// stop_accepting(), then waits for running handlers to finish and joins. Safe to call twice.
  void stop();

 private:
  Server server_;
  std::atomic<bool> listen_returned_{false};
  std::thread thread_;
};

/// True when the client of the request this thread is serving has closed its connection
/// (for answers that stream for long: a live-events stream ends at once, not at its next
/// write). False outside a request.
bool client_gone();

/// Watches the client of the request this thread is serving (client_watch.hpp): the
/// registration's token stops once that client has gone, while the handler still works.
/// An empty registration (never stopped) outside a request.
ClientWatch::Registration watch_client();

/// A handler for a route that may carry a small body (at most kMaxBodyBytes).
using BodyHandler = std::function<void(const httplib::Request&, const std::string& body, httplib::Response&)>;
inline constexpr std::size_t kMaxBodyBytes = 64 * 1024;

/// Registers `handler` for POST and PUT on `pattern`, reading a body only when the
/// request declares one (Content-Length or chunked). cpp-httplib 0.11.4 otherwise waits
/// for a body that `curl -X POST URL` never sends and answers 400 after its 5 s read timeout.
void on_post_or_put(httplib::Server& server, const std::string& pattern, BodyHandler handler);

/// Writes `body` as UTF-8 JSON with `status`.
void send_json(httplib::Response& res, int status, const nlohmann::ordered_json& body);
/// The text send_json() writes for `body` (pretty, two-space indent, invalid UTF-8
/// replaced, final newline): for answers rendered once and sent many times.
std::string render_json(const nlohmann::ordered_json& body);
/// Writes `rendered` (from render_json) as UTF-8 JSON with `status`.
void send_rendered_json(httplib::Response& res, int status, std::string rendered);

/// Writes the lab's error shape: {"error": code, "message": text[, "allowed": [...]]}.
void send_error(httplib::Response& res, int status, const std::string& error,
                const std::string& message,
                const std::vector<std::string>& allowed = {});

/// The language of every message answered to `req`, the one place a request becomes a
/// language: the one its Accept-Language prefers of Spanish and English, else the
/// default_language of the HttpServer serving it on this thread (`serve --language`;
/// English for the embedded carrier, and outside a request).
Language message_language(const httplib::Request& req);

/// Writes `e` in the lab's error shape with its message in message_language(req), and says
/// the answer varies by Accept-Language.
void send_error(const httplib::Request& req, httplib::Response& res, const ApiError& e);

}  // namespace quote_lab
