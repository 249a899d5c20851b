#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "lab/carrier/scenario.hpp"
#include "support/temp_dir.hpp"
#include "support/paths.hpp"

namespace test_scenario {

using namespace quote_lab;
using quote_lab::testing::TempDir;
using quote_lab::testing::write_file;

namespace {
const std::filesystem::path kShipped = std::filesystem::path(quote_lab::testing::source_dir()) / "scenarios";

std::string load_error(const TempDir& dir) {
  try {
    ScenarioCatalog::load_dir(dir.path());
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

const char* kValid = R"({"name": "teapot", "aliases": ["tea"], "description": {"es": "x", "en": "y"},
                         "attempts": [], "then": {"latency_ms": [1, 2], "response": 418}})";
}  // namespace

TEST_CASE("the five shipped scenarios load with the course's names, aliases and numbers") {
  const auto catalog = ScenarioCatalog::load_dir(kShipped);
  struct Row {
    const char* name;
    const char* alias;
  };
  for (const Row& r : {Row{"ok", "stable"}, Row{"slow_provider", "slow"}, Row{"flaky_provider", "flaky"},
                       Row{"provider_down", "down"}, Row{"burst_then_recover", "burst"}}) {
    CAPTURE(r.name);
    REQUIRE(catalog.find(r.name) != nullptr);
    CHECK(catalog.find(r.alias) == catalog.find(r.name));
    CHECK(catalog.find(r.alias)->name == r.name);
    CHECK_FALSE(catalog.find(r.name)->description_es.empty());
  }
  CHECK(catalog.find("nope") == nullptr);
  // the course's five, the seven fault scenarios, the five that shed load and the three that lose capacity
  CHECK(catalog.all().size() == 20);

  const Scenario& ok = *catalog.find("ok");
  CHECK(ok.behaviour_for(1).latency_min_ms == 115);
  CHECK(ok.behaviour_for(1).latency_max_ms == 150);
  const Scenario& slow = *catalog.find("slow");
  CHECK(slow.behaviour_for(3).latency_min_ms == 640);
  CHECK(slow.behaviour_for(3).latency_max_ms == 730);
  const Scenario& flaky = *catalog.find("flaky");
  CHECK(flaky.behaviour_for(1).latency_min_ms == 520);
  CHECK(flaky.behaviour_for(1).latency_max_ms == 560);
  CHECK(flaky.behaviour_for(2).latency_min_ms == 150);
  CHECK(flaky.behaviour_for(9).latency_max_ms == 195);
  const Scenario& down = *catalog.find("down");
  CHECK(down.behaviour_for(1).kind == AttemptBehaviour::Kind::timeout);
  CHECK(down.behaviour_for(4).kind == AttemptBehaviour::Kind::timeout);
  const Scenario& burst = *catalog.find("burst");
  CHECK(burst.behaviour_for(1).latency_min_ms == 500);
  CHECK(burst.behaviour_for(2).latency_max_ms == 580);
  CHECK(burst.behaviour_for(3).latency_min_ms == 130);
  CHECK(burst.behaviour_for(3).latency_max_ms == 180);
}

TEST_CASE("names and aliases are found in any case and reported canonically") {
  const auto catalog = ScenarioCatalog::load_dir(kShipped);
  for (const char* typed : {"OK", "Ok", "STABLE", "Provider_Down", "DOWN", "Burst"}) {
    CAPTURE(typed);
    REQUIRE(catalog.find(typed) != nullptr);
  }
  CHECK(catalog.find("OK")->name == "ok");
  CHECK(catalog.find("DOWN")->name == "provider_down");
  CHECK(catalog.find("provider down") == nullptr);
}

TEST_CASE("an unknown scenario is a 400 listing every name, with a did-you-mean for a near miss") {
  const auto catalog = ScenarioCatalog::load_dir(kShipped);
  const ApiError typo = unknown_scenario_error(catalog, "provder_down");
  CHECK(typo.status == 400);
  CHECK(typo.error == "unknown_scenario");
  CHECK(typo.message == "scenario 'provder_down' does not exist; did you mean 'provider_down'?");
  CHECK(typo.message_in(Language::es) == "el escenario 'provder_down' no existe; ¿quisiste decir 'provider_down'?");
  CHECK(typo.allowed == catalog.accepted_names());
  const ApiError far = unknown_scenario_error(catalog, "nope");
  CHECK(far.message == "scenario 'nope' does not exist; use one of the allowed names");
  CHECK(unknown_scenario_error(catalog, "").message == "scenario '' does not exist; use one of the allowed names");
  // What is echoed stays short and printable.
  const ApiError odd = unknown_scenario_error(catalog, std::string("x\x01y") + std::string(100, 'z'));
  CHECK(odd.message.find('\x01') == std::string::npos);
  CHECK(odd.message.size() < 120);
}

TEST_CASE("latency draws cover the whole inclusive range") {
  AttemptBehaviour b;
  b.latency_min_ms = 115;
  b.latency_max_ms = 150;
  CHECK(draw_latency_ms(b, 0.0) == 115);
  CHECK(draw_latency_ms(b, 0.999999) == 150);
  for (double u = 0; u < 1; u += 0.001) {
    const int ms = draw_latency_ms(b, u);
    REQUIRE(ms >= 115);
    REQUIRE(ms <= 150);
  }
}

TEST_CASE("a teacher's new scenario file loads without recompiling") {
  TempDir dir;
  write_file(dir / "teapot.json", kValid);
  const auto catalog = ScenarioCatalog::load_dir(dir.path());
  REQUIRE(catalog.find("tea"));
  CHECK(catalog.find("tea")->behaviour_for(1).status == 418);
}

TEST_CASE("a malformed scenario file stops start-up with a message naming the file and the problem") {
  TempDir dir;
  struct Row {
    const char* content;
    const char* problem;
  };
  for (const Row& r : {
           Row{"{not json", "not valid JSON"},
           Row{R"({"name": "x", "description": {"es": "a", "en": "b"}})", "then is missing"},
           Row{R"({"name": "x", "description": {"es": "a", "en": "b"}, "then": {"latency_ms": [9, 1], "response": "ok"}})",
               "min <= max"},
           Row{R"({"name": "x", "description": {"es": "a", "en": "b"}, "then": {"latency_ms": [1, 2], "response": "maybe"}})",
               "response must be"},
           Row{R"({"name": "Bad Name", "description": {"es": "a", "en": "b"}, "then": {"response": "hang"}})", "name must use"},
           Row{R"({"name": "x", "description": {"es": "a"}, "then": {"response": "hang"}})", "both \"es\" and \"en\""},
           Row{R"({"name": "x", "description": {"es": "a", "en": "b"}, "then": {"response": "hang"}, "colour": 1})",
               "unknown key 'colour'"},
       }) {
    CAPTURE(r.content);
    write_file(dir / "broken.json", r.content);
    const std::string msg = load_error(dir);
    CHECK(msg.find("broken.json") != std::string::npos);
    CHECK(msg.find(r.problem) != std::string::npos);
  }
}

TEST_CASE("every problem of a file is reported at once") {
  TempDir dir;
  write_file(dir / "many.json", R"({"name": "", "then": {"latency_ms": "fast"}})");
  const std::string msg = load_error(dir);
  CHECK(msg.find("name must be") != std::string::npos);
  CHECK(msg.find("description must be") != std::string::npos);
  CHECK(msg.find("latency_ms must be") != std::string::npos);
  CHECK(msg.find("response is missing") != std::string::npos);
}

TEST_CASE("two files may not claim the same name or alias") {
  TempDir dir;
  write_file(dir / "a.json", kValid);
  auto other = nlohmann::ordered_json::parse(kValid);
  other["name"] = "other";  // keeps the alias "tea"
  write_file(dir / "b.json", other.dump());
  const std::string msg = load_error(dir);
  CHECK(msg.find("b.json") != std::string::npos);
  CHECK(msg.find("'tea' is already used by") != std::string::npos);
}

TEST_CASE("a missing or empty scenario folder is a clear start-up error") {
  TempDir dir;
  CHECK(load_error(dir).find("no *.json scenario files") != std::string::npos);
  try {
    ScenarioCatalog::load_dir(dir / "absent");
    FAIL("expected an error");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()).find("not found") != std::string::npos);
  }
}

TEST_CASE("scenarios are listed in the course's order, canonical names before aliases") {
  const auto names = ScenarioCatalog::load_dir(kShipped).accepted_names();
  CHECK(std::vector<std::string>(names.begin(), names.begin() + 20) ==
        std::vector<std::string>{"ok", "slow_provider", "flaky_provider", "provider_down", "burst_then_recover",
                                 "rate_limited", "server_errors", "bad_request", "connection_reset", "carrier_offline",
                                 "tail_latency", "metastable", "overloaded_fifo", "overloaded_lifo", "overloaded_codel",
                                 "overloaded_adaptive_lifo", "prioritized", "capacity_drop", "capacity_drop_shallow",
                                 "capacity_drop_short"});
  CHECK(std::vector<std::string>(names.begin() + 20, names.begin() + 25) ==
        std::vector<std::string>{"stable", "slow", "flaky", "down", "burst"});
}

TEST_CASE("integers beyond an int in a scenario file are refused with the file, field and range, never wrapped") {
  TempDir dir;
  struct Row {
    const char* then;      // the "then" behaviour, or a whole key/value when `extra`
    const char* extra;
    const char* says;
  };
  for (const Row& r : {
           Row{R"({"latency_ms": [4294967396, 4294967396], "response": "ok"})", "",  // int32 wrap: [100, 100]
               "then.latency_ms[0] must be an integer between 0 and 600000 (got 4294967396)"},
           Row{R"({"latency_ms": [1, 18446744073709551615], "response": "ok"})", "",
               "then.latency_ms[1] must be an integer between 0 and 600000"},
           Row{R"({"latency_ms": [1, 2], "response": 4294967496})", "",  // int32 wrap: 200
               "then.response must be \"ok\", \"timeout\""},
           Row{R"({"response": "hang"})", R"("hang_ms": 4294967297)",  // int32 wrap: 1
               "hang_ms must be an integer between 1 and 600000 (got 4294967297)"},
           Row{R"({"response": "hang"})", R"("order": 4294967297)", "order must be an integer between -1000000 and 1000000"},
       }) {
    CAPTURE(r.says);
    write_file(dir / "huge.json", std::string(R"({"name": "x", "description": {"es": "a", "en": "b"}, "then": )") + r.then +
                                      (*r.extra ? std::string(", ") + r.extra : "") + "}");
    const std::string msg = load_error(dir);
    CHECK(msg.find("huge.json") != std::string::npos);
    CHECK_MESSAGE(msg.find(r.says) != std::string::npos, msg);
  }
}

}  // namespace test_scenario
