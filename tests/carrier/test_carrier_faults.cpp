// The fault kinds end to end: a real CarrierServer on 127.0.0.1:0 plays each fault, and the
// lab's HttpCarrierClient turns what arrives into the CallError a policy sees (reset and
// refused → connect_error, malformed and truncated → bad_response, a trickle past the
// deadline → timeout, 429/503 with Retry-After → retry_after).
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <nlohmann/json.hpp>

#include "lab/carrier/carrier_client.hpp"
#include "lab/carrier/carrier_server.hpp"
#include "support/running_carrier.hpp"
#include "support/temp_dir.hpp"

namespace test_carrier_faults {

using namespace quote_lab;
using namespace std::chrono_literals;
using quote_lab::testing::RunningCarrier;
using quote_lab::testing::TempDir;
using quote_lab::testing::write_file;

namespace {

/// One scenario per fault, each answering after 1 ms.
std::filesystem::path fault_scenarios(const TempDir& dir) {
  {
    auto add = [&dir](const std::string& name, const std::string& attempts, const std::string& then) {
      write_file(dir / (name + ".json"), R"({"name": ")" + name + R"(", "description": {"es": "x", "en": "y"}, "attempts": )" +
                                             attempts + R"(, "then": )" + then + "}");
    };
    const std::string ok = R"({"latency_ms": [1, 1], "response": "ok"})";
    add("ok", "[]", ok);
    add("limited", "[]", R"({"latency_ms": [1, 1], "response": 429, "retry_after": 2})");
    add("dated", "[]", R"({"latency_ms": [1, 1], "response": 503, "retry_after": "Sun, 06 Nov 1994 08:49:37 GMT"})");
    add("bad", "[]", R"({"latency_ms": [1, 1], "response": 400, "body": "{\"error\": \"invalid_items\"}"})");
    add("reset", "[]", R"({"latency_ms": [1, 1], "response": "reset_peer"})");
    add("offline", R"([{"response": "refused"}])", ok);
    add("trickle", "[]", R"({"latency_ms": [1, 1], "response": "slicer", "slice_bytes": 4, "slice_delay_ms": 50})");
    add("quick_slices", "[]", R"({"latency_ms": [1, 1], "response": "bandwidth", "slice_bytes": 40, "slice_delay_ms": 5})");
    add("malformed", "[]", R"({"latency_ms": [1, 1], "response": "malformed"})");
    add("truncated", "[]", R"({"latency_ms": [1, 1], "response": "truncated"})");
  }
  return dir.path();
}

struct FaultCarrier : RunningCarrier {
  // The folder is only read while the base loads the catalog: a temporary is enough.
  FaultCarrier() : RunningCarrier(fault_scenarios(TempDir())) {}
};

CarrierRequest request(const std::string& scenario, Millis timeout = 500ms, const std::string& trace = "0123456789abcdef0123456789abcdef") {
  CarrierRequest r;
  r.request_id = "fedcba9876543210fedcba9876543210";
  r.trace_id = trace;
  r.scenario = scenario;
  r.timeout = timeout;
  r.idempotency_key = r.request_id;
  return r;
}

}  // namespace

TEST_CASE("statuses: 429 and 503 carry Retry-After as a wait, a 400 with its body is an http_4xx") {
  FaultCarrier carrier;
  HttpCarrierClient client(carrier.url(), carrier.clock);
  const CallOutcome limited = client.call(request("limited"));
  CHECK(limited.error == CallError::http_429);
  CHECK(limited.retry_after == std::optional<Millis>(2000ms));
  const CallOutcome dated = client.call(request("dated"));  // a date in the past: retry now
  CHECK(dated.error == CallError::http_5xx);
  CHECK(dated.http_status == 503);
  CHECK(dated.retry_after == std::optional<Millis>(0ms));
  const CallOutcome bad = client.call(request("bad"));
  CHECK(bad.error == CallError::http_4xx);
  CHECK(bad.http_status == 400);
  CHECK_FALSE(bad.retry_after);
  CHECK_FALSE(bad.carrier_failure());
  httplib::Client raw(carrier.url());
  const auto res = raw.Get("/quote?scenario=bad");
  REQUIRE(res);
  CHECK(res->body == R"({"error": "invalid_items"})");
  CHECK(res->get_header_value("Content-Type") == "application/json");
}

TEST_CASE("reset_peer cuts the answer with a real RST: a connect_error at once, not a timeout") {
  FaultCarrier carrier;
  HttpCarrierClient client(carrier.url(), carrier.clock);
  const CallOutcome out = client.call(request("reset", 2000ms));
  CHECK(out.error == CallError::connect_error);
  CHECK(out.http_status == 0);
  CHECK(out.elapsed_ms < 1000);

  // On the wire: the headers and part of the body arrive, then recv fails with ECONNRESET
  // (an orderly close would read 0 instead).
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(carrier.port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  const std::string req = "GET /quote?scenario=reset HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  REQUIRE(::send(fd, req.data(), req.size(), 0) == static_cast<ssize_t>(req.size()));
  std::string got;
  char buf[512];
  ssize_t n = 0;
  int err = 0;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) got.append(buf, static_cast<std::size_t>(n));
  if (n < 0) err = errno;
  ::close(fd);
  CHECK(got.find("HTTP/1.1 200") == 0);
  CHECK(got.find("\"quote_id\"") != std::string::npos);
  CHECK(n < 0);
  CHECK(err == ECONNRESET);
}

TEST_CASE("refused: the embedded carrier's route sends that attempt to a port nobody listens on") {
  FaultCarrier carrier;
  HttpCarrierClient client(carrier.url(), carrier.clock, refusing_route(*carrier.simulator, *carrier.server));
  const CallOutcome first = client.call(request("offline", 2000ms));
  CHECK(first.error == CallError::connect_error);
  CHECK(first.elapsed_ms < 1000);
  const auto stats = carrier.simulator->stats();
  CHECK(stats.refused_calls == 1);
  CHECK(stats.calls_total == 1);  // the carrier counts the attempt it never saw
  // The same logical quote's next attempt reaches the carrier as attempt 2 ("then": ok).
  auto second_request = request("offline", 2000ms);
  second_request.attempt = 2;
  const CallOutcome second = client.call(second_request);
  REQUIRE(second.ok());
  CHECK(carrier.simulator->stats().refused_calls == 1);
  // Without the route (a carrier reached by URL) the refused attempt arrives and is reset.
  HttpCarrierClient by_url(carrier.url(), carrier.clock);
  CHECK(by_url.call(request("offline", 2000ms, "11111111111111111111111111111111")).error == CallError::connect_error);
}

TEST_CASE("a body that trickles past the deadline is a timeout, cut at the deadline, a quick one is read") {
  FaultCarrier carrier;
  HttpCarrierClient client(carrier.url(), carrier.clock);
  const CallOutcome slow = client.call(request("trickle", 300ms));  // ~4 bytes / 50 ms: seconds for a quote
  CHECK(slow.error == CallError::timeout);
  CHECK(slow.elapsed_ms >= 295);
  CHECK(slow.elapsed_ms < 1500);
  const CallOutcome quick = client.call(request("quick_slices", 2000ms));
  CHECK(quick.ok());
  REQUIRE(quick.quote);
}

TEST_CASE("a malformed or truncated 200 is a bad_response") {
  FaultCarrier carrier;
  HttpCarrierClient client(carrier.url(), carrier.clock);
  for (const char* scenario : {"malformed", "truncated"}) {
    CAPTURE(scenario);
    const CallOutcome out = client.call(request(scenario));
    CHECK(out.error == CallError::bad_response);
    CHECK(out.http_status == 200);
    CHECK_FALSE(out.quote);
  }
}

TEST_CASE("the flow's total deadline travels as X-Request-Deadline-Unix-Ms, only when set") {
  httplib::Headers seen;
  HttpServer server;
  server.routes().Get("/quote", [&seen](const httplib::Request& req, httplib::Response& res) {
    seen = req.headers;
    res.status = 503;
  });
  const int port = server.start("127.0.0.1", 0, 1);
  SystemClock clock;
  HttpCarrierClient client("http://127.0.0.1:" + std::to_string(port), clock);
  auto r = request("ok");
  client.call(r);
  CHECK(seen.count("X-Request-Deadline-Unix-Ms") == 0);
  r.deadline = WallTime(std::chrono::milliseconds(1793000000123));
  client.call(r);
  REQUIRE(seen.count("X-Request-Deadline-Unix-Ms") == 1);
  CHECK(seen.find("X-Request-Deadline-Unix-Ms")->second == "1793000000123");
  server.stop();
}

}  // namespace test_carrier_faults
