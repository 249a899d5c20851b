// serve --rate-limit as a process: bad flags stop start-up with a usage error.
// Which routes are limited and what a refused client sees are checked in-process
// (test_rate_limiting_routes.cpp), the limiter's arithmetic in resilience/test_rate_limiter.cpp.
#include <doctest/doctest.h>

#include "support/lab_process.hpp"

namespace test_rate_limiting {

using namespace quote_lab;
using namespace quote_lab::testing;

TEST_CASE("bad rate-limit flags stop the lab with a message naming the flag") {
  struct Case {
    std::vector<std::string> args;
    const char* names;
  };
  for (const Case& c : {Case{{"--rate-limit", "-1"}, "--rate-limit"}, Case{{"--rate-limit", "many"}, "--rate-limit"},
                        Case{{"--rate-limit", "10001"}, "--rate-limit"}, Case{{"--rate-window-s", "0"}, "--rate-window-s"},
                        Case{{"--rate-window-s", "86401"}, "--rate-window-s"}}) {
    std::vector<std::string> args{"serve", "--port", "0", "--carrier-port", "0"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto [code, out] = LabProcess::run(args);
    CAPTURE(c.args[1]);
    CHECK(code == 2);  // a usage error, like every other bad serve flag
    CHECK(out.find(c.names) != std::string::npos);
  }
}

}  // namespace test_rate_limiting
