// NameTable (lab/base/name_table.hpp): the one value <-> name mapping of a vocabulary.
#include <doctest/doctest.h>

#include "lab/base/name_table.hpp"

namespace test_name_table {

using namespace quote_lab;

namespace {
enum class Colour { red, green, blue, unlisted };
constexpr NameTable<Colour, 3> kColours{{{{Colour::red, "red"}, {Colour::green, "green"}, {Colour::blue, "blue"}}}};
}  // namespace

TEST_CASE("a name table renders and parses each value, and the two agree") {
  for (const Colour c : {Colour::red, Colour::green, Colour::blue}) {
    CAPTURE(static_cast<int>(c));
    REQUIRE(kColours.parse(kColours.name(c)) == c);
  }
  CHECK(kColours.name(Colour::green) == "green");
  CHECK(kColours.parse("blue") == Colour::blue);
}

TEST_CASE("a name table refuses what it does not list: no silent default") {
  CHECK(kColours.name(Colour::unlisted).empty());
  CHECK_FALSE(kColours.parse("Red").has_value());    // case-sensitive, as the JSON contract is
  CHECK_FALSE(kColours.parse("red ").has_value());   // exact: no trimming
  CHECK_FALSE(kColours.parse("").has_value());
  CHECK_FALSE(kColours.parse("purple").has_value());
}

TEST_CASE("parse_into sets the value it names, and leaves it alone for a name it does not list") {
  Colour c = Colour::red;
  CHECK(kColours.parse_into("blue", c));
  CHECK(c == Colour::blue);
  CHECK_FALSE(kColours.parse_into("purple", c));
  CHECK(c == Colour::blue);
}

TEST_CASE("a name table lists its names in declaration order, for the allowed list of a 400") {
  CHECK(kColours.names() == std::vector<std::string>{"red", "green", "blue"});
}

TEST_CASE("a name table works at compile time") {
  static_assert(kColours.name(Colour::blue) == "blue");
  static_assert(kColours.parse("green") == Colour::green);
  static_assert(!kColours.parse("grey").has_value());
  // The same lookups as constants: evaluated by the compiler, then read at run time.
  constexpr std::string_view blue = kColours.name(Colour::blue);
  constexpr std::string_view unlisted = kColours.name(Colour::unlisted);
  constexpr std::optional<Colour> green = kColours.parse("green");
  constexpr std::optional<Colour> grey = kColours.parse("grey");
  CHECK(blue == "blue");
  CHECK(unlisted.empty());
  REQUIRE(green.has_value());
  CHECK(*green == Colour::green);
  CHECK_FALSE(grey.has_value());
}

}  // namespace test_name_table
