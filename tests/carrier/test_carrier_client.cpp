// HttpCarrierClient (lab/carrier/carrier_client.hpp) against a tiny real HTTP carrier on a
// free 127.0.0.1 port: every way an answer can go wrong becomes the right CallError value,
// within the attempt's timeout, never an exception.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <optional>
#include <mutex>
#include <thread>

#include "lab/base/time_format.hpp"
#include "lab/carrier/carrier_client.hpp"
#include "lab/http/http_server.hpp"

namespace test_carrier_client {

using namespace quote_lab;
using namespace std::chrono_literals;

namespace {

const std::string kQuote =
    R"({"quote_id":"Q-1-1","amount":41.5,"currency":"USD","priced_at":"2026-11-29T10:00:00Z","scenario":"ok","attempt":1})";

/// A carrier whose /quote answers `status` with `body` after `delay`, and remembers what it was sent.
struct FakeCarrier {
  int status = 200;
  std::string body = kQuote;
  Millis delay{0};
  std::mutex mutex;  // guards seen
  httplib::Request seen;
  HttpServer server;
  int port = 0;

  FakeCarrier() {
    server.routes().Get("/quote", [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard lock(mutex);
        seen = req;
      }
      std::this_thread::sleep_for(delay);
      res.status = status;
      res.set_content(body, "application/json");
    });
    port = server.start("127.0.0.1", 0, 2);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
};

CarrierRequest request(Millis timeout = 500ms) {
  CarrierRequest r;
  r.request_id = "0123456789abcdef0123456789abcdef";
  r.trace_id = "fedcba9876543210fedcba9876543210";
  r.scenario = "flaky_provider";
  r.customer_id = 7;
  r.items = 2;
  r.attempt = 2;
  r.timeout = timeout;
  r.idempotency_key = r.request_id;  // per_flow, the default policy's
  return r;
}

/// A loopback port with nothing listening on it (bound, then closed).
int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

}  // namespace

TEST_CASE("a 200 with a quote is a success, and the call carries the request's id, attempt and deadline") {
  FakeCarrier carrier;
  SystemClock clock;
  HttpCarrierClient client(carrier.url(), clock);
  const auto before_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(clock.wall_now().time_since_epoch()).count();
  const CallOutcome out = client.call(request());
  REQUIRE(out.ok());
  CHECK(out.http_status == 200);
  REQUIRE(out.quote);
  CHECK(out.quote->quote_id == "Q-1-1");
  CHECK(out.quote->amount == 41.5);
  CHECK(out.quote->currency == "USD");
  CHECK(out.elapsed_ms < 500);

  std::lock_guard lock(carrier.mutex);
  const auto& r = carrier.seen;
  CHECK(r.get_header_value("Idempotency-Key") == "0123456789abcdef0123456789abcdef");
  CHECK(r.get_header_value("X-Attempt") == "2");
  CHECK(r.get_header_value("traceparent") == "00-fedcba9876543210fedcba9876543210-0123456789abcdef-01");
  const long long deadline = std::stoll(r.get_header_value("X-Deadline-Unix-Ms"));
  CHECK(deadline >= before_ms + 500);  // now + this attempt's timeout
  CHECK(deadline <= before_ms + 500 + 200);
  CHECK(r.get_param_value("customer_id") == "7");
  CHECK(r.get_param_value("items") == "2");
  CHECK(r.get_param_value("scenario") == "flaky_provider");
  CHECK(r.get_header_value("X-Priority") == "critical");  // a request that names none is critical
}

TEST_CASE("a sheddable quote's attempt says so in X-Priority") {
  FakeCarrier carrier;
  SystemClock clock;
  HttpCarrierClient client(carrier.url(), clock);
  auto r = request();
  r.priority = Priority::sheddable;
  REQUIRE(client.call(r).ok());
  std::lock_guard lock(carrier.mutex);
  CHECK(carrier.seen.get_header_value("X-Priority") == "sheddable");
}

TEST_CASE("without a scenario the call names none, so the carrier's mode plays") {
  FakeCarrier carrier;
  SystemClock clock;
  HttpCarrierClient client(carrier.url(), clock);
  auto r = request();
  r.scenario.clear();
  REQUIRE(client.call(r).ok());
  std::lock_guard lock(carrier.mutex);
  CHECK_FALSE(carrier.seen.has_param("scenario"));
}

TEST_CASE("each carrier status becomes its error: 5xx and 429 are carrier failures, other 4xx are not") {
  struct Row {
    int status;
    CallError error;
    bool carrier_failure;
  };
  FakeCarrier carrier;
  SystemClock clock;
  HttpCarrierClient client(carrier.url(), clock);
  for (const Row row : {Row{500, CallError::http_5xx, true}, Row{503, CallError::http_5xx, true},
                        Row{504, CallError::http_5xx, true}, Row{429, CallError::http_429, true},
                        Row{400, CallError::http_4xx, false}, Row{404, CallError::http_4xx, false},
                        Row{418, CallError::http_4xx, false}, Row{204, CallError::bad_response, true},
                        Row{302, CallError::bad_response, true}}) {
    CAPTURE(row.status);
    carrier.status = row.status;
    const CallOutcome out = client.call(request());
    CHECK(out.error == row.error);
    CHECK(out.http_status == row.status);
    CHECK(out.carrier_failure() == row.carrier_failure);
    CHECK_FALSE(out.quote);
  }
}

TEST_CASE("a 200 the lab cannot read is a bad_response: not JSON, missing fields, a bad date") {
  FakeCarrier carrier;
  SystemClock clock;
  HttpCarrierClient client(carrier.url(), clock);
  for (const std::string body : {"<html>busy</html>", "", "[]", R"({"quote_id":"Q","amount":"1","currency":"USD","priced_at":"2026-11-29T10:00:00Z"})",
                                 R"({"quote_id":"Q","amount":1,"currency":"USD"})",
                                 R"({"quote_id":"Q","amount":1,"currency":"USD","priced_at":"yesterday"})"}) {
    CAPTURE(body);
    carrier.body = body;
    const CallOutcome out = client.call(request());
    CHECK(out.error == CallError::bad_response);
    CHECK(out.http_status == 200);
    CHECK_FALSE(out.quote);
  }
}

TEST_CASE("an answer bigger than 64 KiB is a bad_response, however valid it starts") {
  FakeCarrier carrier;
  SystemClock clock;
  HttpCarrierClient client(carrier.url(), clock);
  carrier.body = kQuote.substr(0, kQuote.size() - 1) + R"(,"pad":")" + std::string(kMaxCarrierBodyBytes, 'x') + "\"}";
  const CallOutcome out = client.call(request());
  CHECK(out.error == CallError::bad_response);
  CHECK_FALSE(out.quote);
  // Just under the limit is still read.
  carrier.body = kQuote.substr(0, kQuote.size() - 1) + R"(,"pad":")" +
                 std::string(kMaxCarrierBodyBytes - kQuote.size() - 10, 'x') + "\"}";
  REQUIRE(carrier.body.size() <= kMaxCarrierBodyBytes);
  CHECK(client.call(request()).ok());
}

TEST_CASE("a carrier slower than the timeout is a timeout, given up at the timeout") {
  FakeCarrier carrier;
  carrier.delay = 200ms;
  SystemClock clock;
  HttpCarrierClient client(carrier.url(), clock);
  const CallOutcome out = client.call(request(60ms));
  CHECK(out.error == CallError::timeout);
  CHECK(out.http_status == 0);
  CHECK(out.elapsed_ms >= 58);
  CHECK(out.elapsed_ms < 150);
}

TEST_CASE("a carrier that trickles a byte at a time is still cut at the total deadline") {
  // The per-recv read timeout never fires here (a byte every 20 ms); only the deadline does.
  HttpServer server;
  server.routes().Get("/quote", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [](std::size_t offset, httplib::DataSink& sink) {
      if (offset > 100) return false;  // bounded: 2 s at most even if nobody hangs up
      std::this_thread::sleep_for(20ms);
      return sink.write(" ", 1);
    });
  });
  const int port = server.start("127.0.0.1", 0, 2);
  SystemClock clock;
  HttpCarrierClient client("http://127.0.0.1:" + std::to_string(port), clock);
  const CallOutcome out = client.call(request(120ms));
  CHECK(out.error == CallError::timeout);
  CHECK(out.elapsed_ms >= 118);
  CHECK(out.elapsed_ms < 400);
}

TEST_CASE("nothing listening is a connect_error, at once, not a timeout") {
  SystemClock clock;
  HttpCarrierClient client("http://127.0.0.1:" + std::to_string(closed_port()), clock);
  const CallOutcome out = client.call(request(500ms));
  CHECK(out.error == CallError::connect_error);
  CHECK(out.http_status == 0);
  CHECK(out.elapsed_ms < 100);
  CHECK(out.carrier_failure());
}

}  // namespace test_carrier_client

namespace test_carrier_client {
namespace {
// A resolver that answers once, then blocks every later lookup until released: a DNS that
// stopped answering after the lab started.
struct StalledDns {
  struct State {
    std::mutex mutex;
    std::condition_variable released_cv;
    bool released = false;
    int lookups = 0;
  };
  std::shared_ptr<State> state = std::make_shared<State>();
  ~StalledDns() {
    {
      std::lock_guard lock(state->mutex);
      state->released = true;
    }
    state->released_cv.notify_all();
  }
  HostResolver::Lookup lookup(std::optional<std::string> first) {
    return [s = state, first](const std::string&) -> std::optional<std::string> {
      std::unique_lock lock(s->mutex);
      if (s->lookups++ == 0) return first;
      s->released_cv.wait(lock, [&] { return s->released; });
      return std::nullopt;
    };
  }
};
}  // namespace

TEST_CASE("a carrier named by a host: its address is looked up off the quote path, so a DNS that stalls after start holds no attempt") {
  FakeCarrier carrier;
  StalledDns dns;
  SystemClock clock;
  HttpCarrierClient client("http://carrier.invalid:" + std::to_string(carrier.port), clock, {},
                           dns.lookup("127.0.0.1"));
  for (int i = 0; i < 3; ++i) {  // the resolver's next lookups (every 1-5 s) stall meanwhile
    const auto started = std::chrono::steady_clock::now();
    const CallOutcome out = client.call(request(300ms));
    CHECK(out.ok());
    CHECK(std::chrono::steady_clock::now() - started < 300ms);
  }
  std::lock_guard lock(carrier.mutex);
  CHECK(carrier.seen.get_header_value("Host").rfind("carrier.invalid", 0) == 0);  // the name, not the address
}

TEST_CASE("a carrier whose name was never found: each attempt fails at once as connect_error, no lookup on the quote path") {
  StalledDns dns;
  SystemClock clock;
  HttpCarrierClient client("http://carrier.invalid:8081", clock, {}, dns.lookup(std::nullopt));
  const auto started = std::chrono::steady_clock::now();
  const CallOutcome out = client.call(request(300ms));
  CHECK(out.error == CallError::connect_error);
  CHECK(std::chrono::steady_clock::now() - started < 100ms);
}

}  // namespace test_carrier_client
