#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "lab/base/time_format.hpp"
#include "lab/persistence/state_store.hpp"
#include "support/poll.hpp"
#include "support/temp_dir.hpp"

namespace test_state_store {

using namespace quote_lab;
using quote_lab::testing::eventually;
using quote_lab::testing::make_special_file;
using quote_lab::testing::read_file;
using quote_lab::testing::SmallDisk;
using quote_lab::testing::special_file_name;
using quote_lab::testing::SpecialFile;
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

TEST_CASE("student labs round-trip under \"labs\", by name, a file without them loads as before") {
  PersistedState s = sample(kNow);
  PersistedStudentLab ana;
  static_cast<PersistedLab&>(ana) = sample(kNow - std::chrono::seconds(10));
  ana.name = "ana";
  ana.last_active = kNow - std::chrono::seconds(5);
  s.labs.push_back(ana);
  const auto j = to_json(s);
  CHECK(j["labs"]["ana"]["last_active"] == "2026-11-29T14:59:55.000Z");
  CHECK(j["labs"]["ana"]["breaker"]["state"] == "open");
  std::string problem;
  const auto back = state_from_json(j, problem);
  REQUIRE(back);
  REQUIRE(back->labs.size() == 1);
  CHECK(back->labs[0].name == "ana");
  CHECK(back->labs[0].last_active == ana.last_active);
  CHECK(to_json(*back) == j);
  CHECK_FALSE(to_json(sample(kNow)).contains("labs"));  // no student labs: the file as it was before student labs
  CHECK(state_from_json(to_json(sample(kNow)), problem)->labs.empty());
}

TEST_CASE("a student lab with a bad name or no last_active makes the file corrupt, saying which") {
  SUBCASE("a name no one could have typed") {
    auto j = to_json(sample(kNow));
    j["labs"]["Ana B"] = to_json(sample(kNow));
    j["labs"]["Ana B"]["last_active"] = "2026-11-29T14:59:55.000Z";
    std::string problem;
    CHECK_FALSE(state_from_json(j, problem));
    CHECK(problem == "labs['Ana B'] needs a lab name (a-z, 0-9, '-') and last_active");
  }
  SUBCASE("a broken breaker inside a lab") {
    auto j = to_json(sample(kNow));
    j["labs"]["ana"] = to_json(sample(kNow));
    j["labs"]["ana"]["last_active"] = "2026-11-29T14:59:55.000Z";
    j["labs"]["ana"]["breaker"]["state"] = "ajar";
    std::string problem;
    CHECK_FALSE(state_from_json(j, problem));
    CHECK(problem == "labs['ana'].breaker.state must be closed, open or half_open");
  }
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
        [&](const std::optional<std::string>& e, int) { errors.push_back(e.value_or("recovered")); },
        std::chrono::milliseconds(200));
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
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // on purpose: a burst spread over ~100 ms
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

TEST_CASE("oversized integers in the state file are refused with the field and range, never wrapped") {
  struct Row {
    const char* field;  // in the file
    nlohmann::ordered_json value;
    const char* says;
  };
  for (const Row& r : {Row{"/breaker/consecutive_failures", 4294967298ULL,
                           "breaker.consecutive_failures must be an integer between 0 and 1000000 (got 4294967298)"},
                       Row{"/breaker/open_events", 18446744073709551615ULL,
                           "breaker.open_events must be an integer between 0 and 9007199254740991"},
                       Row{"/fallback/quotes/0/customer_id", 4294967303LL,  // int32 wrap: 7
                           "fallback.quotes[0].customer_id must be an integer between 1 and 5000 (got 4294967303)"},
                       Row{"/fallback/quotes/0/items", 4294967298LL,  // int32 wrap: 2
                           "fallback.quotes[0].items must be an integer between 1 and 50 (got 4294967298)"}}) {
    CAPTURE(r.field);
    auto j = to_json(sample(kNow));
    j[nlohmann::ordered_json::json_pointer(r.field)] = r.value;
    std::string problem;
    CHECK_FALSE(state_from_json(j, problem).has_value());
    CHECK_MESSAGE(problem.find(r.says) != std::string::npos, problem);
  }
}

TEST_CASE("save_retry_delay: 50 ms doubling up to 500 ms, never above") {
  CHECK(save_retry_delay(1) == Millis(50));
  CHECK(save_retry_delay(2) == Millis(100));
  CHECK(save_retry_delay(3) == Millis(200));
  CHECK(save_retry_delay(4) == Millis(400));
  CHECK(save_retry_delay(5) == Millis(500));
  Millis previous{0};
  for (int failures = 1; failures < 100000; failures += failures < 100 ? 1 : 997) {
    const Millis d = save_retry_delay(failures);
    REQUIRE(d >= previous);          // a longer fault never retries faster
    REQUIRE(d <= Millis(500));       // the file catches up within a second of the fault clearing
    previous = d;
  }
}

TEST_CASE("a failed save is reported once, retried, and the file catches up within a second of the fault clearing") {
  SmallDisk disk;
  if (!disk.mounted()) {
    MESSAGE("skipped: mounting a small tmpfs needs root");
    return;
  }
  // Each fault: what breaks the disk, what mends it, and the OS reason users should read.
  std::function<void()> break_disk, mend_disk;
  std::string reason;
  SUBCASE("the disk is full") {
    break_disk = [&] { disk.fill(); };
    mend_disk = [&] { disk.free_space(); };
    reason = "No space left on device";
  }
  SUBCASE("the folder is read-only") {
    break_disk = [&] { REQUIRE(disk.set_read_only(true)); };
    mend_disk = [&] { REQUIRE(disk.set_read_only(false)); };
    reason = "Read-only file system";
  }
  StateStore store(disk / "state.json");
  std::mutex m;
  PersistedState current = sample(kNow);
  std::vector<std::string> told;
  auto open_events_on_disk = [&] {
    const auto j = nlohmann::ordered_json::parse(read_file(disk / "state.json"), nullptr, false);
    return j.is_discarded() ? -1 : j["breaker"]["open_events"].get<int>();
  };
  {
    StateSaver saver(
        store,
        [&] {
          std::lock_guard lock(m);
          return current;
        },
        [&](const std::optional<std::string>& e, int failed) {
          std::lock_guard lock(m);
          told.push_back(e ? "failed: " + *e : "recovered after " + std::to_string(failed));
        });
    REQUIRE(saver.flush());
    CHECK(saver.last_error() == std::nullopt);

    break_disk();
    {
      std::lock_guard lock(m);
      current.breaker.open_events = 99;  // the breaker opened again: this must reach the disk
    }
    saver.mark_dirty();
    // The save fails and is retried with backoff: 50, 100, 200 ms ...
    CHECK(eventually([&] { return saver.failed_saves() >= 4; }, std::chrono::seconds(3)));
    REQUIRE(saver.last_error());
    CHECK_MESSAGE(saver.last_error()->find(reason) != std::string::npos, *saver.last_error());
    CHECK(open_events_on_disk() == 4);  // the previous state, intact
    {
      std::lock_guard lock(m);
      CHECK(told.size() == 1);  // once per episode, not once per retry
    }

    mend_disk();
    const auto mended = std::chrono::steady_clock::now();
    // Caught up = the file holds the new state and the saver no longer reports an error. The
    // saver clears its error just after the rename, so both are waited for: reading the error
    // the moment the file changed raced the saver's thread (failed once under ASan in CI).
    eventually([&] { return open_events_on_disk() == 99 && !saver.last_error(); }, std::chrono::seconds(3),
               std::chrono::milliseconds(5));
    const auto caught_up_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - mended).count();
    CHECK(open_events_on_disk() == 99);
    CHECK(saver.last_error() == std::nullopt);
    CHECK(caught_up_ms < 1000);  // the retry schedule says at most 500 ms (save_retry_delay above)
  }
  std::lock_guard lock(m);
  REQUIRE(told.size() == 2);
  CHECK(told[0].find("failed: ") == 0);
  CHECK(told[0].find(reason) != std::string::npos);
  CHECK(told[1].find("recovered after ") == 0);
}

TEST_CASE("a device, FIFO or socket at the state path stops start-up and is left untouched") {
  TempDir dir;
  const auto path = dir / "state.json";
  std::string kind;
  SUBCASE("a character device, as --state-file /dev/null would be") {
    if (!make_special_file(path, SpecialFile::character_device)) {
      MESSAGE("skipped: mknod needs root");
      return;
    }
    kind = special_file_name(SpecialFile::character_device);
  }
  SUBCASE("a FIFO") {
    REQUIRE(make_special_file(path, SpecialFile::fifo));
    kind = special_file_name(SpecialFile::fifo);
  }
  SUBCASE("a socket") {
    REQUIRE(make_special_file(path, SpecialFile::socket));
    kind = special_file_name(SpecialFile::socket);
  }
  const auto type_before = std::filesystem::symlink_status(path).type();
  for (const auto& via : {path, dir / "link.json"}) {
    CAPTURE(via);
    if (via != path) std::filesystem::create_symlink("state.json", via);
    StateStore store(via);
    try {
      store.load(kNow);
      FAIL("expected a StateFileError");
    } catch (const StateFileError& e) {
      const std::string msg = e.what();
      CHECK(msg.find(via.string()) != std::string::npos);
      CHECK(msg.find(kind) != std::string::npos);
      CHECK(msg.find("left untouched") != std::string::npos);
    }
    CHECK(store.write("{}").find(kind) != std::string::npos);  // nor is it ever written over
    CHECK(std::filesystem::symlink_status(path).type() == type_before);
  }
  CHECK(names_in(dir.path()) == std::vector<std::string>{"link.json", "state.json"});  // nothing renamed or added
}

TEST_CASE("a symlinked state file: the link stays a link, its target is replaced atomically in its own folder") {
  TempDir dir;
  std::filesystem::create_directory(dir / "real");
  std::filesystem::create_directory(dir / "conf");
  write_file(dir / "real" / "state.json", to_json(sample(kNow)).dump());
  std::filesystem::create_symlink("../real/state.json", dir / "conf" / "state.json");
  StateStore store(dir / "conf" / "state.json");

  const auto loaded = store.load(kNow);
  REQUIRE(loaded.state);
  CHECK(to_json(*loaded.state) == to_json(sample(kNow)));

  CHECK(store.write("{\"second\": 2}").empty());
  CHECK(std::filesystem::is_symlink(dir / "conf" / "state.json"));
  CHECK(std::filesystem::read_symlink(dir / "conf" / "state.json") == "../real/state.json");
  CHECK(read_file(dir / "real" / "state.json") == "{\"second\": 2}");
  CHECK(names_in(dir / "conf") == std::vector<std::string>{"state.json"});
  CHECK(names_in(dir / "real") == std::vector<std::string>{"state.json"});  // no temp file left behind

  // A corrupt target is what gets set aside; the link stays and the next save recreates it.
  write_file(dir / "real" / "state.json", "garbage");
  const auto corrupt = store.load(kNow);
  REQUIRE(corrupt.set_aside);
  CHECK(*corrupt.set_aside == (dir / "real" / "state.json").string() + ".corrupt-2026-11-29T15:00:00.000Z");
  CHECK(read_file(*corrupt.set_aside) == "garbage");
  CHECK(std::filesystem::is_symlink(dir / "conf" / "state.json"));
  CHECK(store.write("{}").empty());
  CHECK(read_file(dir / "real" / "state.json") == "{}");
}

TEST_CASE("a symlink loop at the state path stops start-up") {
  TempDir dir;
  std::filesystem::create_symlink("b", dir / "a");
  std::filesystem::create_symlink("a", dir / "b");
  StateStore store(dir / "a");
  CHECK_THROWS_AS(store.load(kNow), StateFileError);
  CHECK_FALSE(store.write("{}").empty());
}

TEST_CASE("temp files a crash left beside the state file are removed at start-up, and nothing else") {
  TempDir dir;
  for (const char* name : {"state.json", "state.json.tmp-123", "state.json.tmp-4567", "state.json.tmp-abc",
                           "state.json.tmp-", "state.json.tmpx", "other.json.tmp-12", "state.json.corrupt-x"})
    write_file(dir / name, "x");
  std::filesystem::create_directory(dir / "state.json.tmp-99");  // not a file: not ours
  CHECK(StateStore(dir / "state.json").remove_stale_temp_files() == 2);
  CHECK(names_in(dir.path()) == std::vector<std::string>{"other.json.tmp-12", "state.json", "state.json.corrupt-x",
                                                         "state.json.tmp-", "state.json.tmp-99", "state.json.tmp-abc",
                                                         "state.json.tmpx"});
  SUBCASE("through a symlink, beside its target") {
    std::filesystem::create_directory(dir / "real");
    write_file(dir / "real" / "s.json.tmp-77", "x");
    std::filesystem::create_symlink(dir / "real" / "s.json", dir / "link.json");
    CHECK(StateStore(dir / "link.json").remove_stale_temp_files() == 1);
    CHECK(names_in(dir / "real").empty());
  }
}

}  // namespace test_state_store
