// Student lab names (lab/base/lab_name.hpp): what a student may type after ?lab=.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "lab/base/lab_name.hpp"

using namespace quote_lab;

TEST_CASE("a lab name is 1-32 characters of a-z, 0-9 and '-'; capitals fold to lower case") {
  struct Case {
    std::string raw;
    std::optional<std::string> expected;  // nullopt: refused
  };
  const Case cases[] = {
      {"ana", "ana"},
      {"Ana", "ana"},                 // a capital reaches the same lab
      {"TEAM-3", "team-3"},
      {"0", "0"},
      {std::string(32, 'z'), std::string(32, 'z')},  // the longest accepted
      {std::string(33, 'z'), std::nullopt},
      {"", std::nullopt},
      {"ana b", std::nullopt},
      {"a_b", std::nullopt},
      {"../etc", std::nullopt},
      {"ana%20", std::nullopt},
      {"jos\xc3\xa9", std::nullopt},  // "josé": non-ASCII letters are refused, not folded
  };
  for (const auto& c : cases) {
    CAPTURE(c.raw);
    std::string problem;
    const auto name = normalize_lab_name(c.raw, problem);
    CHECK(name == c.expected);
    if (c.expected) {
      CHECK(problem.empty());
    } else {
      CHECK_FALSE(problem.empty());
    }
  }
}

TEST_CASE("the refusal says what a name may hold, for the student who typed it") {
  std::string problem;
  CHECK_FALSE(normalize_lab_name("ana b", problem));
  CHECK(problem == "a lab name uses only letters a-z, digits and '-' (e.g. ?lab=ana or ?lab=team-3)");
  CHECK_FALSE(normalize_lab_name(std::string(40, 'a'), problem));
  CHECK(problem == "a lab name has 1 to 32 characters (got 40)");
}
