// The classroom's rules (lab/main/classroom.hpp) that need no server: what the lab says at
// start-up when it listens beyond loopback without a teacher token. What a class sends to a
// real lab is in test_classroom.cpp.
#include <doctest/doctest.h>

#include "lab/main/classroom.hpp"

namespace test_classroom_rules {

TEST_CASE("problem 6: listening beyond loopback without a token is said at start-up, naming the routes") {
  const auto warning = quote_lab::open_lab_warning("0.0.0.0", "");
  REQUIRE(warning);
  for (const char* route : {"/reset-lab", "/carrier/mode", "/experiments/storm", "--admin-token"})
    CHECK(warning->find(route) != std::string::npos);
  CHECK_FALSE(quote_lab::open_lab_warning("0.0.0.0", "s3cret"));
  CHECK_FALSE(quote_lab::open_lab_warning("127.0.0.1", ""));
}

}  // namespace test_classroom_rules
