// Student lab names (lab/base/lab_name.hpp): what a student may type after ?lab=.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "lab/base/lab_name.hpp"

namespace test_lab_name {

using namespace quote_lab;

TEST_CASE("a lab name is 1-32 characters of a-z, 0-9 and '-', capitals fold to lower case") {
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
    LabNameProblem problem = LabNameProblem::none;
    const auto name = normalize_lab_name(c.raw, problem);
    CHECK(name == c.expected);
    CHECK((problem == LabNameProblem::none) == c.expected.has_value());
  }
}

TEST_CASE("the refusal says which rule the name broke (the message table words it for the student)") {
  LabNameProblem problem = LabNameProblem::none;
  CHECK_FALSE(normalize_lab_name("ana b", problem));
  CHECK(problem == LabNameProblem::characters);
  CHECK_FALSE(normalize_lab_name(std::string(40, 'a'), problem));
  CHECK(problem == LabNameProblem::length);
  CHECK_FALSE(normalize_lab_name("", problem));
  CHECK(problem == LabNameProblem::length);
}

}  // namespace test_lab_name
