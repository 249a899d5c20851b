#include "lab/http/http_server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

#include "lab/http/accept.hpp"
#include "lab/http/growing_thread_pool.hpp"
#include "lab/http/httplib_statics.hpp"
#include "lab/http/request_guard.hpp"

namespace quote_lab {

namespace {
constexpr int kListenBacklog = 1024;
// Until set_limits() says otherwise (connection_limits.hpp explains the numbers).
constexpr time_t kKeepAliveTimeoutS = ConnectionLimits::kDefaultKeepAliveTimeoutMs / 1000;
constexpr int kKeepAliveMaxCount = ConnectionLimits::kDefaultKeepAliveMaxRequests;
// Threads beyond max_connections: they answer the connections past the bound with a 503.
constexpr int kRefusingThreads = 4;

// The connection the current thread serves (each connection is served by one thread), and
// the server it belongs to (whose default_language its messages fall back to).
struct CurrentConnection {
  ConnectionStream* stream = nullptr;
  bool close_after_answer = false;
  const HttpServer::Server* server = nullptr;
};
thread_local CurrentConnection current;

RequestFacts facts_of(const httplib::Request& req) {
  // Only the headers the framing check reads, looked up in httplib's own map (its names
  // compare case-insensitively): copying and lower-casing every header was a tenth of a
  // /health request's work (bench/changes.md).
  RequestFacts f{req.version, {}};
  for (const char* name : {"content-length", "transfer-encoding", "host"}) {
    const auto [first, last] = req.headers.equal_range(name);
    for (auto it = first; it != last; ++it) f.headers.emplace(name, it->second);
  }
  return f;
}
}  // namespace

bool client_gone() { return current.stream != nullptr && current.stream->peer_closed(); }

ClientWatch::Registration watch_client() {
  if (current.stream == nullptr || current.server == nullptr) return ClientWatch::unwatched();
  return current.server->client_watch.watch(current.stream->socket());
}

HttpServer::Server::Server() {
  httplib::Headers defaults;
  for (const auto& [name, value] : security_headers()) defaults.emplace(name, value);
  set_default_headers(defaults);
  httplib::Server::set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (const auto error = check_framing(facts_of(req))) {
      // The body (if any) is left unread: the connection closes after this answer, so
      // its bytes can never be taken for a next request.
      current.close_after_answer = true;
      send_error(req, res, ApiError{error->status, error->error, error->message, {}, error->message_es});
      return HandlerResponse::Handled;
    }
    if (access) {
      AccessFacts facts;
      facts.changes_lab = changes_lab && changes_lab(req);
      facts.host = req.get_header_value("Host");
      // Each lookup costs: Origin and Sec-Fetch-Site matter only on routes that change the
      // lab, the Authorization header only when a teacher token is set.
      if (facts.changes_lab) {
        facts.origin = req.get_header_value("Origin");
        facts.sec_fetch_site = req.get_header_value("Sec-Fetch-Site");
      }
      if (!access->admin_token.empty()) facts.authorization = req.get_header_value("Authorization");
      facts.student_lab = student_lab && student_lab(req);
      if (const auto status = admin_token_status(facts.authorization, *access); !status.empty() && !facts.student_lab)
        res.set_header("X-Admin-Token", status);
      if (const auto refusal = check_access(facts, *access)) {
        if (refusal->status == 401) res.set_header("WWW-Authenticate", "Bearer");
        send_error(req, res, ApiError{refusal->status, refusal->error, refusal->message, {}, refusal->message_es});
        return HandlerResponse::Handled;
      }
    }
    return lab_pre_routing_ ? lab_pre_routing_(req, res) : HandlerResponse::Unhandled;
  });
}

HttpServer::Server& HttpServer::Server::set_pre_routing_handler(HandlerWithResponse handler) {
  lab_pre_routing_ = std::move(handler);
  return *this;
}

bool HttpServer::Server::raise_backlog(int backlog) {
  // On Linux, listen() on a socket that already listens only updates its backlog.
  return ::listen(svr_sock_, backlog) == 0;
}

bool HttpServer::Server::process_and_close_socket(socket_t sock) {
  ConnectionLimits l = limits;
  l.keep_alive_timeout_ms = static_cast<int>(keep_alive_timeout_sec_ * 1000);
  ConnectionStream stream(sock, l);
  bool ok = false;
  if (l.max_connections > 0 && ++open_connections > l.max_connections) {
    const std::string refusal = connection_refused_response(l.max_connections);
    stream.write(refusal.data(), refusal.size());
  } else {
    if (l.max_connections <= 0) ++open_connections;
    current = {&stream, false, this};
    const auto stopping = [this] { return svr_sock_ == INVALID_SOCKET; };
    for (auto left = keep_alive_max_count_; left > 0 && stream.wait_for_request(stopping); --left) {
      bool closed = false;
      ok = process_request(stream, left == 1, closed, [&stream](httplib::Request&) { stream.end_head(); });
      if (!ok || closed || current.close_after_answer || !stream.head_complete()) break;
    }
    current = {};
  }
  stream.flush();
  --open_connections;
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

HttpServer::HttpServer() {
  // Before any worker exists, so ThreadSanitizer sees every worker's use ordered after it.
  prime_httplib_statics();
  // cpp-httplib's default also sets SO_REUSEPORT, which lets a second lab bind the same
  // port and silently share its traffic; SO_REUSEADDR alone still allows quick restarts.
  server_.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server_.set_tcp_nodelay(true);
  server_.set_keep_alive_timeout(kKeepAliveTimeoutS);
  server_.set_keep_alive_max_count(kKeepAliveMaxCount);
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::set_limits(const ConnectionLimits& limits) {
  server_.limits = limits;
  server_.set_keep_alive_timeout(std::max<time_t>(1, limits.keep_alive_timeout_ms / 1000));
  server_.set_keep_alive_max_count(static_cast<std::size_t>(std::max(1, limits.keep_alive_max_requests)));
}

int HttpServer::start(const std::string& host, int port, int workers) {
  const int threads = server_.limits.max_connections > 0 ? server_.limits.max_connections + kRefusingThreads : workers;
  const std::size_t pool = static_cast<std::size_t>(std::max(1, threads));
  server_.new_task_queue = [pool] { return new GrowingThreadPool(pool); };
  int bound = port;
  if (port == 0) {
    bound = server_.bind_to_any_port(host);
    if (bound < 0) throw std::runtime_error("cannot bind " + host + " on any port");
  } else if (!server_.bind_to_port(host, port)) {
    throw std::runtime_error("cannot bind " + host + ":" + std::to_string(port) +
                             " (in use, or not an address of this machine?)");
  }
  server_.raise_backlog(kListenBacklog);
  listen_returned_ = false;
  thread_ = std::thread([this] {
    server_.listen_after_bind();
    listen_returned_ = true;
  });
  // is_running() turns true as the listen loop's first step, microseconds from now; from
  // then on httplib's stop() shuts the socket. (Newer cpp-httplib has wait_until_ready().)
  while (!server_.is_running() && !listen_returned_) std::this_thread::yield();
  return bound;
}

void HttpServer::stop_accepting() {
  // A no-op before start() and after the listener has stopped.
  server_.stop();
}

void HttpServer::stop() {
  stop_accepting();
  if (thread_.joinable()) thread_.join();
}

void on_post_or_put(httplib::Server& server, const std::string& pattern, BodyHandler handler) {
  auto wrapped = [handler](const httplib::Request& req, httplib::Response& res,
                           const httplib::ContentReader& read) {
    const std::string length = req.get_header_value("Content-Length");
    const bool chunked = req.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos;
    std::string body;
    if (chunked || (!length.empty() && length != "0")) {
      bool too_big = false;
      const bool complete = read([&](const char* data, std::size_t n) {
        too_big = body.size() + n > kMaxBodyBytes;
        if (!too_big) body.append(data, n);
        return !too_big;
      });
      if (too_big)
        return send_error(req, res, api_error(413, "body_too_large", MessageId::body_too_large, {}));
      // A body shorter than its Content-Length, or broken chunking: the handler must not
      // act on half a request.
      if (!complete)
        return send_error(req, res, api_error(400, "incomplete_body", MessageId::incomplete_body, {}));
    }
    handler(req, body, res);
  };
  server.Post(pattern, wrapped);
  server.Put(pattern, wrapped);
}

std::string render_json(const nlohmann::ordered_json& body) {
  // replace invalid UTF-8 rather than throw: a student's odd query must never be a 500
  return body.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

void send_rendered_json(httplib::Response& res, int status, std::string rendered) {
  // As Response::set_content, which copies: a quote answer is moved in (bench/changes.md).
  res.status = status;
  res.body = std::move(rendered);
  res.headers.erase("Content-Type");
  res.set_header("Content-Type", "application/json; charset=utf-8");
}

void send_json(httplib::Response& res, int status, const nlohmann::ordered_json& body) {
  send_rendered_json(res, status, render_json(body));
}

void send_error(httplib::Response& res, int status, const std::string& error,
                const std::string& message, const std::vector<std::string>& allowed) {
  nlohmann::ordered_json body = {{"error", error}, {"message", message}};
  if (!allowed.empty()) body["allowed"] = allowed;
  send_json(res, status, body);
}

Language message_language(const httplib::Request& req) {
  return preferred_language(req.get_header_value("Accept-Language"),
                            current.server != nullptr ? current.server->default_language : Language::en);
}

void send_error(const httplib::Request& req, httplib::Response& res, const ApiError& e) {
  send_error(res, e.status, e.error, e.message_in(message_language(req)), e.allowed);
  res.set_header("Vary", "Accept-Language");
}

}  // namespace quote_lab
