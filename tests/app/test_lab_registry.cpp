// The lab per student (lab/app/lab_registry.hpp), in-process on the fake clock: names,
// bounds, isolation from the teacher's lab, idle expiry and the state file, all exact and
// without sleeping.
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>

#include "lab/api/lab_routes.hpp"
#include "lab/app/lab_registry.hpp"
#include "support/fixed_random.hpp"
#include "support/poll.hpp"
#include "support/quote_answers.hpp"
#include "support/scripted_carrier.hpp"
#include "support/temp_dir.hpp"
#include "support/paths.hpp"

namespace test_lab_registry {

using namespace quote_lab;
using namespace quote_lab::testing;
using json = nlohmann::ordered_json;
using std::chrono::minutes;

namespace {

const ScenarioCatalog& shipped_scenarios() {
  static const ScenarioCatalog catalog =
      ScenarioCatalog::load_dir(std::filesystem::path(quote_lab::testing::source_dir()) / "scenarios");
  return catalog;
}

// The labs as `serve` composes them, at the default policies; the scripted carrier times
// out every call nobody scripted (a provider_down).
struct Class {
  explicit Class(LabLimits limits = {}, std::filesystem::path state = {})
      : state_file(state.empty() ? dir / "state.json" : state), labs(deps(), state_file, limits) {}
  LabDeps deps() {
    return LabDeps{.scenarios = shipped_scenarios(), .policies = default_policies(), .carrier = carrier,
                   .clock = clock, .random = random};
  }

  std::shared_ptr<Lab> lab(const std::string& name) {
    const auto found = labs.find(&name);
    REQUIRE(found.lab);
    return found.lab;
  }
  TempDir dir;
  FakeClock clock;
  ScriptedCarrier carrier{clock};
  FixedRandom random{0.5};
  std::filesystem::path state_file;
  LabRegistry labs;
};

ApiError refusal(LabRegistry& labs, const std::string& name) {
  const auto found = labs.find(&name);
  REQUIRE_FALSE(found.lab);
  REQUIRE((found.bad_name != LabNameProblem::none) != found.too_many_labs);  // one reason, never both
  return no_lab_error(found.bad_name, name, labs.limits());
}

}  // namespace

TEST_CASE("no name is the teacher's lab, a name is a student's, the same one however it is capitalised") {
  Class c;
  CHECK(c.labs.find(nullptr).lab.get() == &c.labs.teacher());
  CHECK(c.labs.find(nullptr).lab->app.name().empty());
  const auto ana = c.lab("ana");
  CHECK(ana.get() != &c.labs.teacher());
  CHECK(ana->app.name() == "ana");
  CHECK(c.lab("Ana") == ana);
  CHECK(c.lab("ANA") == ana);
  CHECK(c.lab("bruno") != ana);
  CHECK(c.labs.student_count() == 2);
}

TEST_CASE("a bad name is a 400 that says what a name may hold, and creates nothing") {
  Class c;
  for (const std::string& bad : std::vector<std::string>{"", "ana b", "a_b", "../x", std::string(33, 'a')}) {
    CAPTURE(bad);
    const ApiError e = refusal(c.labs, bad);
    CHECK(e.status == 400);
    CHECK(e.error == "invalid_lab_name");
  }
  CHECK(c.labs.student_count() == 0);
}

TEST_CASE("--max-labs bounds the labs: one more name is a 503 naming the flag, existing labs still answer") {
  Class c(LabLimits{2, minutes(120)});
  const auto ana = c.lab("ana");
  c.lab("bruno");
  const ApiError e = refusal(c.labs, "carla");
  CHECK(e.status == 503);
  CHECK(e.error == "too_many_labs");
  CHECK(e.message.find("2 student labs (--max-labs)") != std::string::npos);
  CHECK(c.lab("ana") == ana);
  CHECK(c.labs.find(nullptr).lab);  // the teacher's lab is never counted
  CHECK(c.labs.student_count() == 2);
}

TEST_CASE("a student's provider_down, carrier mode and reset change nothing in the teacher's lab") {
  Class c;
  LabApp& teacher = c.labs.teacher().app;
  c.carrier.succeed(130);
  teacher.quote(Mode::resilient, "ok", 42, 3);  // the teacher's lab has one incident, breaker closed
  const auto ana = c.lab("ana");
  // Ana's provider_down opens Ana's breaker (2 timed-out attempts) ...
  const json down = quote_answer(ana->app, ana->app.quote(Mode::resilient, "provider_down", 42, 3));
  CHECK(down["dependency"]["circuit_status"] == "open");
  CHECK(ana->app.dependency_view().breaker.state == BreakerState::open);
  // ... and the teacher's stays closed, with its own single incident.
  CHECK(teacher.dependency_view().breaker.state == BreakerState::closed);
  CHECK(teacher.incidents(10).size() == 1);
  CHECK(ana->app.incidents(10).size() == 1);
  // Ana's carrier mode is Ana's.
  REQUIRE(ana->app.set_carrier_mode("slow"));
  CHECK(ana->app.carrier_mode() == "slow_provider");
  CHECK(teacher.carrier_mode() == "ok");
  // Ana's reset empties Ana's lab only.
  ana->app.reset();
  CHECK(ana->app.incidents(10).empty());
  CHECK(ana->app.carrier_mode() == "ok");
  CHECK(teacher.incidents(10).size() == 1);
  // A quote naming no scenario uses its own lab's mode: the teacher's provider_down is not Ana's.
  REQUIRE(teacher.set_carrier_mode("provider_down"));
  c.carrier.succeed(130);
  CHECK(quote_answer(ana->app, ana->app.quote(Mode::resilient, "", 42, 3))["scenario"] == "ok");
  CHECK(c.carrier.requests().back().scenario == "ok");
}

TEST_CASE("a lab idle past --lab-idle-minutes is forgotten, unless it was used or is held") {
  Class c(LabLimits{60, minutes(30)});
  c.lab("ana");
  c.lab("bruno");
  auto held = c.lab("carla");  // e.g. its page's open event stream
  c.clock.advance(minutes(20));
  c.lab("bruno");  // used 20 minutes in
  c.clock.advance(minutes(11));  // ana idle 31 min, bruno 11, carla 31 but held
  CHECK(c.labs.expire_idle() == 1);
  CHECK(c.labs.student_count() == 2);
  std::vector<std::string> names;
  for (const auto& row : c.labs.class_rows()) names.push_back(row.name);
  CHECK(names == std::vector<std::string>{"bruno", "carla"});
  held.reset();
  c.clock.advance(minutes(1));
  CHECK(c.labs.expire_idle() == 1);  // carla, now that nothing holds her lab
  // A forgotten name is a fresh lab on its next use.
  CHECK(c.lab("ana")->app.incidents(10).empty());
}

TEST_CASE("the class view: fewest carrier calls per request first, labs without requests last") {
  Class c;
  c.lab("zoe");  // no requests
  const auto legacy = c.lab("legacy-fan");
  legacy->app.quote(Mode::legacy, "provider_down", 42, 3);  // 4 calls for 1 request
  const auto careful = c.lab("careful");
  careful->app.quote(Mode::resilient, "provider_down", 42, 3);  // 2 calls, opens the breaker
  careful->app.quote(Mode::resilient, "provider_down", 42, 3);  // 0 calls: short-circuited
  const auto rows = c.labs.class_rows();
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].name == "careful");
  CHECK(rows[0].calls_per_request() == 1.0);
  CHECK(rows[0].breaker == BreakerState::open);
  CHECK(rows[0].totals.requests == 2);
  CHECK(rows[1].name == "legacy-fan");
  CHECK(rows[1].calls_per_request() == 4.0);
  CHECK(rows[1].totals.p99_ms == 1440.0);  // 4 timeouts of 360 ms
  CHECK(rows[2].name == "zoe");
  CHECK_FALSE(rows[2].calls_per_request());
  CHECK_FALSE(rows[2].totals.p99_ms);
}

TEST_CASE("student labs live in the class's state file and come back after a restart, idle ones do not") {
  TempDir dir;
  const auto state = dir / "state.json";
  {
    Class c(LabLimits{60, minutes(30)}, state);
    c.lab("ana")->app.quote(Mode::resilient, "provider_down", 42, 3);  // Ana's breaker opens
    c.lab("bruno");
    c.labs.flush_state();
    const json file = json::parse(std::ifstream(state));
    CHECK(file["breaker"]["state"] == "closed");  // the teacher's
    CHECK(file["labs"]["ana"]["breaker"]["state"] == "open");
    CHECK(file["labs"]["bruno"]["breaker"]["state"] == "closed");
    CHECK(file["labs"]["ana"]["last_active"] == "2026-11-29T00:00:00.000Z");
  }
  {
    Class c(LabLimits{60, minutes(30)}, state);  // restarted 0 s later (fresh fake clock)
    CHECK(c.labs.student_count() == 2);
    CHECK(c.lab("ana")->app.dependency_view().breaker.state == BreakerState::open);
    CHECK(c.labs.teacher().app.dependency_view().breaker.state == BreakerState::closed);
  }
  {
    Class c(LabLimits{60, minutes(30)}, state);
    c.clock.advance_wall(minutes(31));  // the lab was down for 31 minutes: both labs are idle
    // A lab is forgotten only when nobody holds it: the state saver, writing what the
    // restart resumed, may hold both for a moment (seen under ASan), and they go at the
    // next pass, as they would in the lab.
    std::size_t forgotten = 0;
    CHECK(eventually([&] { return (forgotten += c.labs.expire_idle()) == 2; }, std::chrono::seconds(5)));
    c.labs.flush_state();
    CHECK_FALSE(json::parse(std::ifstream(state)).contains("labs"));
  }
}

TEST_CASE("a student lab keeps only its newest quotes in the file, so 60 labs stay small") {
  Class c;
  const auto ana = c.lab("ana");
  for (int customer = 1; customer <= 20; ++customer) {
    c.carrier.succeed(130);
    ana->app.quote(Mode::resilient, "ok", customer, 3);
  }
  c.labs.flush_state();
  const json file = json::parse(std::ifstream(c.state_file));
  const auto& quotes = file["labs"]["ana"]["fallback"]["quotes"];
  REQUIRE(quotes.size() == kMaxStudentPersistedQuotes);
  CHECK(quotes.back()["customer_id"] == 20);
  CHECK(quotes.front()["customer_id"] == 13);
}

}  // namespace test_lab_registry
