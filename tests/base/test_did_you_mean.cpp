// "Did you mean" (lab/base/did_you_mean.hpp): the typos students make, and no wild guesses.
#include <doctest/doctest.h>

#include "lab/base/did_you_mean.hpp"

namespace test_did_you_mean {

using namespace quote_lab;

namespace {
const std::vector<std::string> kScenarios{"ok",   "slow_provider", "flaky_provider", "provider_down", "burst_then_recover",
                                          "stable", "slow",        "flaky",          "down",          "burst"};
}  // namespace

TEST_CASE("edit distance counts insertions, deletions and substitutions") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("down", "down") == 0);
  CHECK(edit_distance("", "ok") == 2);
  CHECK(edit_distance("provder_down", "provider_down") == 1);   // one letter left out
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("flaky", "flkay") == 2);                  // a swap is two edits
  CHECK(edit_distance("OK", "ok") == 2);                        // byte-wise: case counts here
  // Symmetric, and never more than the longer length.
  for (const auto& a : kScenarios)
    for (const auto& b : kScenarios) {
      CAPTURE(a);
      CAPTURE(b);
      CHECK(edit_distance(a, b) == edit_distance(b, a));
      CHECK(edit_distance(a, b) <= std::max(a.size(), b.size()));
    }
}

TEST_CASE("did you mean: the students' typos find the scenario they meant") {
  struct Row {
    const char* typed;
    const char* meant;
  };
  for (const Row& r : {Row{"provder_down", "provider_down"}, Row{"provider-down", "provider_down"},
                       Row{"PROVIDER_DOWN", "provider_down"}, Row{"flaky_provder", "flaky_provider"},
                       Row{"slow_provier", "slow_provider"}, Row{"bursts", "burst"}, Row{"dwn", "down"},
                       Row{"stabel", "stable"}, Row{"Ok", "ok"}, Row{"burst_then_recovr", "burst_then_recover"}}) {
    CAPTURE(r.typed);
    CHECK(did_you_mean(r.typed, kScenarios) == std::optional<std::string>(r.meant));
  }
}

TEST_CASE("did you mean: nothing when no name is close, rather than a wild guess") {
  for (const char* typed : {"", "nope", "x", "timeout", "provider", "outage", "okay_provider"}) {
    CAPTURE(typed);
    CHECK_FALSE(did_you_mean(typed, kScenarios).has_value());
  }
  CHECK_FALSE(did_you_mean("down", {}).has_value());
}

}  // namespace test_did_you_mean
