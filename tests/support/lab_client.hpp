#pragma once
// One request to a lab on 127.0.0.1 as curl sends it, and its answer: shared by the
// in-process lab (in_process_lab.hpp) and the real process (lab_process.hpp), so a case
// moved from one to the other reads and checks the same answer.

#include <httplib.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace quote_lab::testing {

/// One HTTP answer, its body parsed as JSON when it is JSON, and the client-side time.
struct Reply {
  int status = 0;  ///< 0: no answer
  nlohmann::ordered_json json;
  std::string body;
  std::string content_type;
  httplib::Headers headers;
  double elapsed_ms = 0;
};

/// Sends `method path` to 127.0.0.1:`port` with `headers` (a POST or PUT with `body`, as JSON;
/// empty by default) on a fresh connection and waits up to 15 s for the answer.
inline Reply http_request(int port, const std::string& method, const std::string& path,
                          const httplib::Headers& headers = {}, const std::string& body = "") {
  httplib::Client client("127.0.0.1", port);
  client.set_tcp_nodelay(true);
  client.set_read_timeout(std::chrono::seconds(15));
  const auto t0 = std::chrono::steady_clock::now();
  auto res = method == "POST"     ? client.Post(path, headers, body, "application/json")
             : method == "PUT"    ? client.Put(path, headers, body, "application/json")
             : method == "DELETE" ? client.Delete(path, headers)
             : method == "HEAD"   ? client.Head(path, headers)
                                  : client.Get(path, headers);
  Reply r;
  r.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!res) return r;
  r.status = res->status;
  r.body = res->body;
  r.content_type = res->get_header_value("Content-Type");
  r.headers = res->headers;
  r.json = nlohmann::ordered_json::parse(res->body, nullptr, false);
  return r;
}

/// Sends `raw` bytes as they are to 127.0.0.1:`port` (e.g. a request without
/// Content-Length, as `curl -X POST URL` sends it) and returns the status line's code, or 0
/// after `wait`.
inline int raw_status(int port, const std::string& raw, std::chrono::milliseconds wait = std::chrono::milliseconds(2000)) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{static_cast<time_t>(wait.count() / 1000), static_cast<suseconds_t>((wait.count() % 1000) * 1000)};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  int code = 0;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::send(fd, raw.data(), raw.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(raw.size())) {
    // The status line may arrive in more than one segment (seen under ThreadSanitizer): read
    // until "HTTP/1.1 200" is whole, the peer closes, or the wait ends.
    char buf[64] = {};
    std::size_t got = 0;
    while (got < 12) {
      const ssize_t n = ::recv(fd, buf + got, sizeof buf - 1 - got, 0);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    if (got >= 12) code = std::atoi(buf + 9);
  }
  ::close(fd);
  return code;
}

/// Event names of a quote response, in order.
inline std::vector<std::string> events_of(const nlohmann::ordered_json& quote) {
  std::vector<std::string> names;
  for (const auto& e : quote.value("events", nlohmann::ordered_json::array())) names.push_back(e.value("event", ""));
  return names;
}

}  // namespace quote_lab::testing
