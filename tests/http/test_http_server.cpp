// HttpServer (lab/http_server.hpp): the cpp-httplib server as the lab sets it up.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "lab/http/http_server.hpp"
#include "support/poll.hpp"

namespace test_http_server {

using namespace std::chrono_literals;

namespace {
/// Polls `count` until it reaches `n` (or 5 s pass). Relaxed on purpose: ThreadSanitizer
/// takes acquire/release atomics as ordering one worker's work before the other's, which
/// would hide the race the test below guards against.
void wait_for(const std::atomic<int>& count, int n) {
  quote_lab::testing::eventually([&] { return count.load(std::memory_order_relaxed) >= n; }, 5s, 1ms);
}
}  // namespace

TEST_CASE("a fresh server parses the first requests of two clients at once, on two workers") {
  quote_lab::HttpServer server;
  std::atomic<int> in_handler{0};
  // Each request waits in its handler until the other one has been parsed too, so the two
  // are parsed side by side, as when a lab starts and a dashboard and curl arrive at once.
  server.routes().Get("/meet", [&in_handler](const httplib::Request&, httplib::Response& res) {
    in_handler.fetch_add(1, std::memory_order_relaxed);
    wait_for(in_handler, 2);
    res.set_content(std::to_string(in_handler.load(std::memory_order_relaxed)), "text/plain");
  });
  const int port = server.start("127.0.0.1", 0, 2);

  std::optional<httplib::Result> second;  // httplib::Result has no empty state
  std::thread second_client([&] {
    wait_for(in_handler, 1);  // the first request is parsed and in its handler
    httplib::Client client("127.0.0.1", port);
    second.emplace(client.Get("/meet"));
  });
  httplib::Client client("127.0.0.1", port);
  const auto first = client.Get("/meet");
  second_client.join();

  // Under ThreadSanitizer the second request's parse on the server, or the second
  // response's parse in the clients, was reported as racing with the first, inside httplib,
  // until HttpServer primed the library's statics (lab/httplib_statics.hpp).
  REQUIRE(first);
  REQUIRE((second && *second));
  CHECK(first->status == 200);
  CHECK((*second)->status == 200);
  CHECK(first->body == "2");  // both requests met: they really were served at once
  CHECK((*second)->body == "2");
  server.stop();
}

}  // namespace test_http_server
