// The lab as a process: persistence across restarts and crashes, clean stops, start-up errors.
#include <doctest/doctest.h>

#include <thread>

#include "support/lab_process.hpp"

using namespace quote_lab::testing;

TEST_CASE("a restart resumes an open breaker with its remaining cooldown, not a fresh one") {
  TempDir dir;
  {
    LabProcess lab({}, dir.path());
    lab.get("/quote-resilient?scenario=provider_down");
    CHECK(lab.get("/dependency/state").json["circuit_status"] == "open");
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    CHECK(lab.stop(SIGTERM) == 0);                           // a clean stop
    CHECK(lab.log().find("stopped cleanly") != std::string::npos);
  }
  LabProcess again({}, dir.path());
  const Reply state = again.get("/dependency/state");
  CHECK(state.json["circuit_status"] == "open");
  CHECK(state.json["cooldown_left_ms"].get<int>() > 20000);
  CHECK(state.json["cooldown_left_ms"].get<int>() <= 28500);   // 1.5 s already spent
  CHECK(state.json["state_file_set_aside"].is_null());
  CHECK(again.get("/quote-resilient?scenario=ok").json["attempts"] == 0);  // still short-circuits
}

TEST_CASE("kill -9 right after the breaker opens loses nothing already written") {
  TempDir dir;
  {
    LabProcess lab({}, dir.path());
    lab.get("/quote-resilient?scenario=ok&customer_id=5&items=5");
    lab.get("/quote-resilient?scenario=provider_down");
    std::this_thread::sleep_for(std::chrono::milliseconds(400));  // > one write interval
    lab.kill(SIGKILL);
  }
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
  LabProcess again({}, dir.path());
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
  lab.get("/quote-resilient?scenario=down");
  CHECK(lab.get("/dependency/state").json["cooldown_left_ms"].get<int>() <= 5000);
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
