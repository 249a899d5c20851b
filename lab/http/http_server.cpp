#include "lab/http/http_server.hpp"

#include <sys/socket.h>

#include <stdexcept>

#include "lab/http/httplib_statics.hpp"

namespace quote_lab {

namespace {
constexpr int kListenBacklog = 1024;
constexpr time_t kKeepAliveTimeoutS = 2;
}  // namespace

bool HttpServer::Server::raise_backlog(int backlog) {
  // On Linux, listen() on a socket that already listens only updates its backlog.
  return ::listen(svr_sock_, backlog) == 0;
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
}

HttpServer::~HttpServer() { stop(); }

int HttpServer::start(const std::string& host, int port, int workers) {
  const std::size_t pool = static_cast<std::size_t>(std::max(1, workers));
  server_.new_task_queue = [pool] { return new httplib::ThreadPool(pool); };
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
      read([&](const char* data, std::size_t n) {
        too_big = body.size() + n > kMaxBodyBytes;
        if (!too_big) body.append(data, n);
        return !too_big;
      });
      if (too_big)
        return send_error(res, 413, "body_too_large", "the request body is larger than 64 KiB");
    }
    handler(req, body, res);
  };
  server.Post(pattern, wrapped);
  server.Put(pattern, wrapped);
}

void send_json(httplib::Response& res, int status, const nlohmann::ordered_json& body) {
  res.status = status;
  // replace invalid UTF-8 rather than throw: a student's odd query must never be a 500
  res.set_content(body.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n",
                  "application/json; charset=utf-8");
}

void send_error(httplib::Response& res, int status, const std::string& error,
                const std::string& message, const std::vector<std::string>& allowed) {
  nlohmann::ordered_json body = {{"error", error}, {"message", message}};
  if (!allowed.empty()) body["allowed"] = allowed;
  send_json(res, status, body);
}

}  // namespace quote_lab
