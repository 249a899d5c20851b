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
  // A Spanish class's teacher (serve --language es) reads it in Spanish only.
  const auto es = quote_lab::open_lab_warning("0.0.0.0", "", quote_lab::Language::es);
  REQUIRE(es);
  CHECK(es->starts_with("escuchando en 0.0.0.0 sin token del docente: cualquiera que llegue"));
  for (const char* word : {"/reset-lab", "--admin-token", "LAB_ADMIN_TOKEN", "docente"}) CHECK(es->find(word) != std::string::npos);
  for (const char* english : {"listening", "teacher", "anyone", "storms"}) CHECK(es->find(english) == std::string::npos);
}

}  // namespace test_classroom_rules
