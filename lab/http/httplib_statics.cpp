#include "lab/http/httplib_statics.hpp"

#include <httplib.h>

#include <algorithm>
#include <mutex>
#include <string>

namespace quote_lab {

namespace {

/// A connection that delivers `incoming` and swallows whatever is written to it.
class CannedStream : public httplib::Stream {
 public:
  explicit CannedStream(std::string incoming) : incoming_(std::move(incoming)) {}
  bool is_readable() const override { return true; }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    const size_t n = std::min(size, incoming_.size() - read_);
    incoming_.copy(ptr, n, read_);
    read_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char*, size_t size) override { return static_cast<ssize_t>(size); }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { ip = "127.0.0.1", port = 0; }
  void get_local_ip_and_port(std::string& ip, int& port) const override { ip = "127.0.0.1", port = 0; }
  socket_t socket() const override { return INVALID_SOCKET; }

 private:
  std::string incoming_;
  size_t read_ = 0;
};

// process_request is protected: these subclasses exist only to reach it.
struct PrimingServer : httplib::Server {
  void prime() {
    serve("BREW / HTTP/1.1\r\n\r\n");  // an unknown method: a 400, no handler
    // A Range header is parsed (a regex) on any route a client sends it to.
    Get("/plain", [](const httplib::Request&, httplib::Response& res) { res.set_content("x", "text/plain"); });
    serve("GET /plain HTTP/1.1\r\nHost: a\r\nRange: bytes=0-0\r\n\r\n");
    // A chunked answer's end marker is a static string built when the first stream ends
    // (seen by TSan when two live streams ended at once at shutdown).
    Get("/chunked", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/plain", [](size_t, httplib::DataSink& sink) {
        sink.write("x", 1);
        sink.done();
        return true;
      });
    });
    // A server with no listening socket counts as shutting down and skips the provider:
    // pretend to listen (no socket is touched), then stop pretending.
    svr_sock_ = 0;
    serve("GET /chunked HTTP/1.1\r\nHost: a\r\n\r\n");
    svr_sock_ = INVALID_SOCKET;
  }

 private:
  void serve(std::string request) {
    CannedStream stream(std::move(request));
    bool connection_closed = false;
    process_request(stream, true, connection_closed, nullptr);
  }
};
struct PrimingClient : httplib::ClientImpl {
  PrimingClient() : httplib::ClientImpl("127.0.0.1", 9) {}
  void prime() {
    CannedStream stream("HTTP/1.1 204 No Content\r\n\r\n");
    httplib::Request req;
    req.method = "GET";
    req.path = "/";
    httplib::Response res;
    httplib::Error error = httplib::Error::Success;
    process_request(stream, req, res, false, error);
  }
};

}  // namespace

void prime_httplib_statics() {
  static std::once_flag once;
  std::call_once(once, [] {
    PrimingServer().prime();
    PrimingClient().prime();
    httplib::Client url_parsed("http://127.0.0.1:9");  // no connection until a request
    httplib::append_query_params("/", {{"a", "b"}});
  });
}

}  // namespace quote_lab
