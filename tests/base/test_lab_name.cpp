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

TEST_CASE("a refused name: its first refused character whole, and a name the student can type instead") {
  CHECK(first_refused_character("begoña-paso0") == "ñ");
  CHECK(first_refused_character("ana b") == " ");
  CHECK(first_refused_character("ana_b") == "_");
  CHECK(first_refused_character("ana") == "");
  CHECK(suggested_lab_name("begoña-paso0") == "begona-paso0");
  CHECK(suggested_lab_name("José Luis") == "jose-luis");
  CHECK(suggested_lab_name("MARÍA_JOSÉ.Núñez") == "maria-jose-nunez");
  CHECK(suggested_lab_name("  ana  ") == "ana");
  CHECK(suggested_lab_name("李") == "");
  CHECK(suggested_lab_name(std::string(20, 'a') + " " + std::string(20, 'b')).size() == kMaxLabNameLength);
  LabNameProblem problem = LabNameProblem::none;
  for (const char* raw : {"begoña-paso0", "José Luis", "MARÍA_JOSÉ.Núñez"}) {
    CAPTURE(raw);
    CHECK(normalize_lab_name(suggested_lab_name(raw), problem).has_value());  // the suggestion is accepted
  }
}

}  // namespace test_lab_name
