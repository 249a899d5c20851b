// The lab as a process: persistence across restarts and crashes, clean stops, start-up errors.
#include <doctest/doctest.h>

#include "lab/base/time_format.hpp"
#include "support/lab_process.hpp"

namespace test_serve_process {

using namespace quote_lab::testing;
using Steady = std::chrono::steady_clock;

TEST_CASE("a restart resumes an open breaker with its remaining cooldown, not a fresh one") {
  TempDir dir;
  // No wait is needed: the stop and the start themselves spend cooldown, which the
  // restarted lab must count, to the millisecond the client can see.
  Steady::time_point opened_by;
  std::string opened_until;
  {
    LabProcess lab({}, dir.path());
    const Reply opened = lab.get("/quote-resilient?scenario=provider_down");
    opened_by = Steady::now();
    REQUIRE(opened.json["dependency"]["circuit_status"] == "open");
    opened_until = opened.json["dependency"]["opened_until"];
    CHECK(lab.stop(SIGTERM) == 0);                           // a clean stop
    CHECK(lab.log().find("stopped cleanly") != std::string::npos);
  }
  LabProcess again({}, dir.path());
  const auto asked_at = Steady::now();
  const Reply state = again.get("/dependency/state");
  const double spent_ms = std::chrono::duration<double, std::milli>(asked_at - opened_by).count();
  CAPTURE(spent_ms);
  CHECK(state.json["circuit_status"] == "open");
  // The same deadline, not a fresh one, to the millisecond: the breaker keeps the deadline it
  // set (or read from the file) instead of deriving it again from the monotonic clock, so no
  // gap between reading two clocks on a busy machine can move it.
  const auto resumed_until = quote_lab::parse_iso8601(state.json["opened_until"].get<std::string>());
  REQUIRE(resumed_until);
  CHECK(*resumed_until == *quote_lab::parse_iso8601(opened_until));
  // Remaining = 30 s - time since the breaker opened (before `opened_by`), give or take a
  // few ms between the wall clock the file keeps and the monotonic one the test reads.
  CHECK(state.json["cooldown_left_ms"].get<double>() <= 30000 - spent_ms + 5);
  CHECK(state.json["cooldown_left_ms"].get<double>() >= 30000 - spent_ms - state.elapsed_ms - 100);
  CHECK(state.json["state_file_set_aside"].is_null());
  CHECK(again.get("/quote-resilient?scenario=ok").json["attempts"] == 0);  // still short-circuits
}

TEST_CASE("kill -9 right after the breaker opens loses nothing already written") {
  TempDir dir;
  {
    LabProcess lab({}, dir.path());
    lab.get("/quote-resilient?scenario=ok&customer_id=5&items=5");
    lab.get("/quote-resilient?scenario=provider_down");
    // Killed as soon as the file holds the open breaker and the live quote: nothing the
    // lab wrote before a kill -9 may be lost.
    REQUIRE(eventually(
        [&] {
          const auto j = nlohmann::ordered_json::parse(read_file(lab.state_file()), nullptr, false);
          return !j.is_discarded() && j["breaker"]["state"] == "open" && j.dump().find("\"customer_id\":5") != std::string::npos;
        },
        std::chrono::seconds(5)));
    lab.kill(SIGKILL);
  }
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
  // What a kill -9 in the middle of a save leaves: a temp file that nothing else removes.
  write_file(dir / "state.json.tmp-99999", R"({"breaker": {"st)");
  LabProcess again({}, dir.path());
  CHECK_FALSE(std::filesystem::exists(dir / "state.json.tmp-99999"));
  CHECK(again.log().find("removed 1 temp file(s)") != std::string::npos);
  CHECK(again.get("/dependency/state").json["circuit_status"] == "open");
  const Reply fb = again.get("/quote-resilient?scenario=ok&customer_id=5&items=5");
  CHECK(fb.json["quote"]["source"] == "fallback");
  CHECK(fb.json["quote"]["seed"] == false);                  // the live quote survived
}

TEST_CASE("a corrupt state file is set aside, reported, and the lab starts closed") {
  TempDir dir;
  write_file(dir / "state.json", R"({"breaker": {"state": "op)");
  LabProcess lab({}, dir.path());
  const Reply state = lab.get("/dependency/state");
  CHECK(state.json["circuit_status"] == "closed");
  REQUIRE(state.json["state_file_set_aside"].is_string());
  const std::string aside = state.json["state_file_set_aside"];
  CHECK(read_file(aside) == R"({"breaker": {"state": "op)");
  CHECK(lab.log().find(aside) != std::string::npos);
}

TEST_CASE("start-up errors stop the lab with a message that says what to fix") {
  SUBCASE("a malformed scenario file is named") {
    TempDir dir;
    write_file(dir / "bad.json", R"({"name": "x"})");
    const auto [code, out] = LabProcess::run({"serve", "--port", "0", "--carrier-port", "0", "--scenarios-dir",
                                              dir.path().string(), "--state-file", (dir / "s.json").string()});
    CHECK(code == 1);
    CHECK(out.find("bad.json") != std::string::npos);
    CHECK(out.find("then is missing") != std::string::npos);
  }
  SUBCASE("a bad policy file lists every problem") {
    TempDir dir;
    write_file(dir / "p.json", R"({"resilient": {"max_attempts": 0, "jitter": "wild"}})");
    const auto [code, out] = LabProcess::run({"serve", "--port", "0", "--carrier-port", "0", "--policies",
                                              (dir / "p.json").string(), "--state-file", (dir / "s.json").string()});
    CHECK(code == 1);
    CHECK(out.find("resilient.max_attempts") != std::string::npos);
    CHECK(out.find("resilient.jitter") != std::string::npos);
  }
  SUBCASE("a policy file with an integer beyond an int names the file, the field and the range") {
    TempDir dir;
    write_file(dir / "p.json", R"({"resilient": {"max_attempts": 4294967298}})");  // int32 wrap: 2
    const auto [code, out] = LabProcess::run({"serve", "--port", "0", "--carrier-port", "0", "--policies",
                                              (dir / "p.json").string(), "--state-file", (dir / "s.json").string()});
    CHECK(code == 1);
    CHECK(out.find("p.json") != std::string::npos);
    CHECK(out.find("resilient.max_attempts must be between 1 and 10 (got 4294967298)") != std::string::npos);
  }
  SUBCASE("a port in use") {
    LabProcess first;
    TempDir dir;
    const auto [code, out] = LabProcess::run({"serve", "--port", std::to_string(first.port()), "--carrier-port", "0",
                                              "--state-file", (dir / "s.json").string()});
    CHECK(code == 1);
    CHECK(out.find("cannot bind 127.0.0.1:" + std::to_string(first.port())) != std::string::npos);
  }
  SUBCASE("a bad flag is a usage error") {
    const auto [code, out] = LabProcess::run({"serve", "--workers", "0"});
    CHECK(code == 2);
    CHECK(out.find("--workers") != std::string::npos);
  }
}

TEST_CASE("a policy file and --open-duration-s change the numbers without recompiling") {
  TempDir dir;
  write_file(dir / "p.json", R"({"legacy": {"max_attempts": 2}})");
  LabProcess lab({"--policies", (dir / "p.json").string(), "--open-duration-s", "5"});
  CHECK(lab.get("/quote-legacy?scenario=down").json["attempts"] == 2);
  const Reply opened = lab.get("/quote-resilient?scenario=down");
  CHECK(opened.json["dependency"]["cooldown_left_ms"].get<int>() <= 5000);   // read as it opened: 5 s, to a few ms
  CHECK(opened.json["dependency"]["cooldown_left_ms"].get<int>() >= 4900);
  CHECK(lab.get("/").json["policies"]["breaker"]["open_duration_s"] == 5.0);
}

TEST_CASE("a folder where the state file should be is set aside, not fatal") {
  TempDir dir;
  std::filesystem::create_directory(dir / "state.json");
  write_file(dir / "state.json" / "inside", "kept");
  LabProcess lab({}, dir.path());
  const Reply state = lab.get("/dependency/state");
  CHECK(state.json["circuit_status"] == "closed");
  REQUIRE(state.json["state_file_set_aside"].is_string());
  CHECK(read_file(std::filesystem::path(state.json["state_file_set_aside"].get<std::string>()) / "inside") == "kept");
  CHECK(lab.log().find("is not a regular file") != std::string::npos);
}

TEST_CASE("a state file with an integer beyond its range is set aside, the field and range named, never wrapped") {
  TempDir dir;
  write_file(dir / "state.json", R"({"version": 1, "breaker": {"state": "closed", "consecutive_failures": 4294967298,
      "opened_until": null, "open_events": 0}, "fallback": {"seeded_at": "2026-11-29T15:00:00.000Z", "quotes": []}})");
  LabProcess lab({}, dir.path());
  const Reply state = lab.get("/dependency/state");
  CHECK(state.json["consecutive_failures"] == 0);
  CHECK(state.json["state_file_set_aside"].is_string());
  const std::string log = lab.log();
  CHECK(log.find((dir / "state.json").string()) != std::string::npos);
  CHECK(log.find("breaker.consecutive_failures must be an integer between 0 and 1000000 (got 4294967298)") !=
        std::string::npos);
}

TEST_CASE("a device or FIFO at the state path stops start-up with a message, and is left untouched") {
  TempDir dir;
  const auto path = dir / "state.json";
  std::string kind;
  // A device node of our own, never /dev/null itself: a lab without this fix would rename it.
  SUBCASE("a character device, as --state-file /dev/null is") {
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
  const auto type = std::filesystem::symlink_status(path).type();
  for (const char* mode : {"--check", "--log-level=info"}) {  // `serve --check` says so as well
    CAPTURE(mode);
    const auto [code, out] =
        LabProcess::run({"serve", mode, "--port", "0", "--carrier-port", "0", "--state-file", path.string()});
    CHECK(code == 1);
    CHECK_MESSAGE(out.find("state file " + path.string() + " is " + kind) != std::string::npos, out);
  }
  CHECK(std::filesystem::symlink_status(path).type() == type);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  CHECK(entries == 1);  // not renamed, nothing written beside it
}

TEST_CASE("a full disk: /dependency/state says why nothing is saved, and the file catches up within a second of space returning") {
  SmallDisk disk;  // declared first: unmounted after the labs have stopped
  if (!disk.mounted()) {
    MESSAGE("skipped: mounting a small tmpfs needs root");
    return;
  }
  const auto file = disk / "state.json";
  auto file_says = [&](const char* status) {
    const auto j = nlohmann::ordered_json::parse(read_file(file), nullptr, false);
    return !j.is_discarded() && j["breaker"]["state"] == status;
  };
  auto wait_until = [](const auto& done) { return eventually(done, std::chrono::seconds(5), std::chrono::milliseconds(5)); };
  TempDir logs;
  {
    LabProcess lab({"--state-file", file.string()}, logs.path());  // its log stays off the small disk
    REQUIRE(wait_until([&] { return file_says("closed"); }));
    CHECK(lab.get("/dependency/state").json["state_file_error"].is_null());

    disk.fill();
    CHECK(lab.get("/quote-resilient?scenario=provider_down").json["dependency"]["circuit_status"] == "open");
    REQUIRE(wait_until([&] { return lab.get("/dependency/state").json["state_file_error"].is_string(); }));
    const std::string error = lab.get("/dependency/state").json["state_file_error"];
    CHECK_MESSAGE(error.find("No space left on device") != std::string::npos, error);
    CHECK(file_says("closed"));  // the previous state, whole

    disk.free_space();
    const auto freed = std::chrono::steady_clock::now();
    CHECK(wait_until([&] { return file_says("open"); }));
    CHECK(std::chrono::steady_clock::now() - freed < std::chrono::seconds(1));
    CHECK(lab.get("/dependency/state").json["state_file_error"].is_null());
    const std::string log = lab.log();
    std::size_t reports = 0;
    for (auto at = log.find("cannot save state"); at != std::string::npos; at = log.find("cannot save state", at + 1))
      ++reports;
    CHECK(reports == 1);  // once per episode, not per retry
    CHECK(log.find("saved to " + file.string() + " again") != std::string::npos);
    lab.kill(SIGKILL);  // what used to lose the open breaker
  }
  LabProcess again({"--state-file", file.string()}, logs.path());
  CHECK(again.get("/dependency/state").json["circuit_status"] == "open");
}

TEST_CASE("student labs come back after a restart with their own breaker, the teacher's stays closed") {
  TempDir dir;
  {
    LabProcess lab({}, dir.path());
    CHECK(lab.get("/quote-resilient?scenario=down&lab=ana").json["dependency"]["circuit_status"] == "open");
    REQUIRE(lab.get("/dependency/state").json["circuit_status"] == "closed");
  }
  LabProcess again({}, dir.path());
  const auto ana = again.get("/dependency/state?lab=ana").json;
  CHECK(ana["circuit_status"] == "open");
  CHECK(ana["cooldown_left_ms"].get<double>() > 20000);
  CHECK(again.get("/dependency/state").json["circuit_status"] == "closed");
  CHECK(again.get("/class").json["labs"][0]["name"] == "ana");
}

}  // namespace test_serve_process
