// Who a rate-limited client is (lab/api/rate_limiting.hpp), without a server: the peer
// address or a trusted proxy's header, and the limiter's key. What a refused client sees
// from a real lab is in test_rate_limiting.cpp.
#include <doctest/doctest.h>

#include <httplib.h>

#include "lab/api/rate_limiting.hpp"

namespace test_rate_limiting_rules {

using namespace quote_lab;

TEST_CASE("the client is the peer address unless a trusted header is configured and present") {
  httplib::Request req;
  req.remote_addr = "127.0.0.1";
  req.set_header("X-Forwarded-For", "1.2.3.4, 10.0.0.9");
  CHECK(client_address(req, "") == "127.0.0.1");
  CHECK(client_address(req, "X-Forwarded-For") == "10.0.0.9");
  CHECK(client_address(req, "X-Real-IP") == "127.0.0.1");  // configured but absent
  req.set_header("X-Real-IP", std::string(200, 'a'));
  CHECK(client_address(req, "X-Real-IP").size() == 64);  // bounded before it becomes a key
  CHECK(rate_limit_key("", "127.0.0.1") == "-|127.0.0.1");
  CHECK(rate_limit_key("ana", "127.0.0.1") == "ana|127.0.0.1");
}

}  // namespace test_rate_limiting_rules
