#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "lab/state_store.hpp"
#include "lab/time_format.hpp"
#include "support/temp_dir.hpp"

using namespace quote_lab;
using quote_lab::testing::read_file;
using quote_lab::testing::TempDir;
using quote_lab::testing::write_file;

namespace {

PersistedState sample(WallTime now) {
  PersistedState s;
  s.breaker.state = BreakerState::open;
  s.breaker.consecutive_failures = 2;
  s.breaker.opened_until = now + std::chrono::seconds(25);
  s.breaker.open_events = 4;
  s.fallback_seeded_at = now - std::chrono::seconds(60);
  s.fallback_quotes.push_back({7, 2, Quote{"Q-abc-1", 38.12, "USD", now - std::chrono::seconds(3)},
                               now - std::chrono::seconds(3), false});
  return s;
}

std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

const WallTime kNow = *parse_iso8601("2026-11-29T15:00:00.000Z");

}  // namespace

TEST_CASE("round trip: what is written is what is loaded") {
  TempDir dir;
  StateStore store(dir / "state.json");
  const PersistedState s = sample(kNow);
  CHECK(store.write(to_json(s).dump()).empty());
  const auto loaded = store.load(kNow);
  REQUIRE(loaded.state);
  CHECK(loaded.problem.empty());
  CHECK_FALSE(loaded.set_aside);
  CHECK(to_json(*loaded.state) == to_json(s));
  CHECK(loaded.state->breaker.opened_until == s.breaker.opened_until);
}

TEST_CASE("the write is atomic: no temp file is left and the folder is created") {
  TempDir dir;
  StateStore store(dir / "var" / "state.json");
  CHECK(store.write("{\"first\": 1}").empty());
  CHECK(store.write("{\"second\": 2}").empty());
  CHECK(names_in(dir / "var") == std::vector<std::string>{"state.json"});
  CHECK(read_file(dir / "var" / "state.json") == "{\"second\": 2}");
}

TEST_CASE("a missing file means a first start: seed state, nothing to report") {
  TempDir dir;
  const auto loaded = StateStore(dir / "state.json").load(kNow);
  CHECK_FALSE(loaded.state);
  CHECK(loaded.problem.empty());
  CHECK_FALSE(loaded.set_aside);
}

TEST_CASE("a corrupt file is set aside with its bytes and reported") {
  TempDir dir;
  struct Row {
    const char* content;
    const char* problem;
  };
  for (const Row& r : {Row{R"({"breaker": {"state": "op)", "not valid JSON"},
                       Row{R"({"version": 1, "breaker": {"state": "ajar", "consecutive_failures": 0}})", "breaker.state"},
                       Row{R"({"version": 1, "breaker": {"state": "open", "consecutive_failures": 2}, "fallback": {}})",
                           "needs opened_until"},
                       Row{R"([1, 2, 3])", "not a JSON object"}}) {
    CAPTURE(r.content);
    TempDir d;
    write_file(d / "state.json", r.content);
    const auto loaded = StateStore(d / "state.json").load(kNow);
    CHECK_FALSE(loaded.state);
    CHECK(loaded.problem.find(r.problem) != std::string::npos);
    REQUIRE(loaded.set_aside);
    CHECK(read_file(*loaded.set_aside) == r.content);
    CHECK_FALSE(std::filesystem::exists(d / "state.json"));
    CHECK(*loaded.set_aside == (d / "state.json").string() + ".corrupt-2026-11-29T15:00:00.000Z");
  }
}

TEST_CASE("two corrupt files set aside in the same millisecond keep both") {
  TempDir dir;
  write_file(dir / "state.json", "garbage 1");
  const auto first = StateStore(dir / "state.json").load(kNow);
  write_file(dir / "state.json", "garbage 2");
  const auto second = StateStore(dir / "state.json").load(kNow);
  REQUIRE(first.set_aside);
  REQUIRE(second.set_aside);
  CHECK(*first.set_aside != *second.set_aside);
  CHECK(read_file(*first.set_aside) == "garbage 1");
  CHECK(read_file(*second.set_aside) == "garbage 2");
}

TEST_CASE("the saver writes only when the content changed, at most once per interval") {
  TempDir dir;
  StateStore store(dir / "state.json");
  std::mutex m;
  PersistedState current = sample(kNow);
  std::vector<std::string> errors;
  {
    StateSaver saver(
        store,
        [&] {
          std::lock_guard lock(m);
          return current;
        },
        [&](const std::string& e) { errors.push_back(e); }, std::chrono::milliseconds(200));
    saver.flush();
    CHECK(saver.writes() == 1);
    saver.flush();                                           // nothing changed
    CHECK(saver.writes() == 1);
    for (int i = 0; i < 50; ++i) {                          // a burst of changes
      {
        std::lock_guard lock(m);
        current.breaker.open_events = 100 + static_cast<std::uint64_t>(i);
      }
      saver.mark_dirty();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    CHECK(saver.writes() <= 4);                              // ~100 ms of changes, 200 ms interval
  }                                                          // destruction flushes the last one
  const auto loaded = store.load(kNow);
  REQUIRE(loaded.state);
  CHECK(loaded.state->breaker.open_events == 149);
  CHECK(errors.empty());
}

TEST_CASE("a write that cannot happen is reported, not thrown") {
  TempDir dir;
  write_file(dir / "blocker", "a file where a folder should be");
  StateStore store(dir / "blocker" / "state.json");
  CHECK_FALSE(store.write("{}").empty());
}

TEST_CASE("a state file with nonsense fallback quotes is refused") {
  auto j = to_json(sample(kNow));
  for (const auto& [field, value] : std::vector<std::pair<std::string, nlohmann::ordered_json>>{
           {"customer_id", -7}, {"items", 999}}) {
    auto bad = j;
    bad["fallback"]["quotes"][0][field] = value;
    std::string problem;
    CHECK_FALSE(state_from_json(bad, problem).has_value());
    CHECK_MESSAGE(problem.find("out of range") != std::string::npos, problem);
  }
  auto bad = j;
  bad["fallback"]["quotes"][0]["quote"]["currency"] = "<script>";
  std::string problem;
  CHECK_FALSE(state_from_json(bad, problem).has_value());
}
