// Stopping the lab (lab/stop_signals.*), as a user does it: Ctrl-C, `docker stop`, a
// SIGTERM from a script. A stop is never lost, whenever it arrives; the first one ends the
// lab within a few seconds, storm or not, with its state saved; a second one exits at once.
#include <doctest/doctest.h>

#include <csignal>
#include <regex>
#include <thread>

#include "support/lab_process.hpp"

namespace test_stop_signals {

using namespace quote_lab::testing;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

using Steady = std::chrono::steady_clock;

double ms_since(Steady::time_point t0) {
  return std::chrono::duration<double, std::milli>(Steady::now() - t0).count();
}

// The state file holds the breaker as JSON (the lab saved it and did not leave it torn).
bool state_file_is_valid(const std::filesystem::path& file) {
  const auto j = nlohmann::json::parse(read_file(file), nullptr, false);
  return j.is_object() && j.contains("breaker");
}

// Calls the embedded carrier has received, asked on its own port (from the lab's log):
// it answers while a storm holds every worker of the lab.
long carrier_calls(const LabProcess& lab) {
  static const std::regex carrier(R"(carrier: http://127\.0\.0\.1:(\d+))");
  std::smatch m;
  const std::string log = lab.log();
  if (!std::regex_search(log, m, carrier)) return 0;
  httplib::Client client("127.0.0.1", std::stoi(m[1]));
  const auto res = client.Get("/stats");
  const auto j = res ? nlohmann::json::parse(res->body, nullptr, false) : nlohmann::json();
  return j.is_object() ? j.value("calls_total", 0L) : 0;
}

}  // namespace

TEST_CASE("a SIGTERM in the first milliseconds of serve or carrier is never lost") {
  TempDir dir;
  const auto log = dir / "out.log";
  for (const std::string command : {"serve", "carrier"}) {
    CAPTURE(command);
    std::vector<std::string> args{command, "--port", "0"};
    if (command == "serve")
      args.insert(args.end(), {"--carrier-port", "0", "--state-file", (dir / "state.json").string()});
    auto start = [&] {
      std::filesystem::remove(log);
      return LabProcess::launch(args, log);
    };
    // How long this machine takes from spawn to listening (~15-30 ms on 2 busy cores): the
    // signals below land all over that span, where a stop used to be lost.
    const auto t0 = Steady::now();
    const pid_t first = start();
    const bool listening = eventually([&] { return read_file(log).find("listening on") != std::string::npos; },
                                      seconds(10), milliseconds(1));
    const auto startup = std::chrono::duration_cast<std::chrono::microseconds>(Steady::now() - t0);
    ::kill(first, SIGTERM);
    REQUIRE_MESSAGE(listening, read_file(log));
    // 10 s: under ThreadSanitizer on two busy cores a clean stop can take seconds; a lost
    // signal never ends at all.
    const auto first_code = LabProcess::wait_pid(first, seconds(10));
    REQUIRE_MESSAGE(first_code.has_value(), command, " still runs 10 s after a SIGTERM:\n", read_file(log));
    REQUIRE_MESSAGE(*first_code == 0, "exit ", *first_code, "\n", read_file(log));
    MESSAGE(command, " listens ", startup.count() / 1000.0, " ms after spawn");

    for (int i = 0; i < 40; ++i) {
      const auto delay = std::max(std::chrono::microseconds(15000), startup * 5 / 4) * i / 39;
      const pid_t pid = start();
      // A fixed wait on purpose: the behaviour under test is a signal landing `delay` after
      // the start, whatever the program is doing then.
      std::this_thread::sleep_for(delay);
      ::kill(pid, SIGTERM);
      const auto code = LabProcess::wait_pid(pid, seconds(10));
      if (!code) {
        ::kill(pid, SIGKILL);
        LabProcess::wait_pid(pid, seconds(5));
      }
      REQUIRE_MESSAGE(code.has_value(), command, " still runs 10 s after a SIGTERM sent ", delay.count(),
                      " us after its start:\n", read_file(log));
      // 0: a clean stop. Killed by the SIGTERM: it came while the program was still loading,
      // before it takes signals itself (nothing started, nothing to save).
      CHECK_MESSAGE((*code == 0 || *code == -SIGTERM), "exit ", *code, "\n", read_file(log));
    }
  }
}

TEST_CASE("SIGTERM during a legacy storm started from the page: stopped within 3 s, state saved") {
  std::vector<std::string> extra;
  SUBCASE("default workers") {}
  SUBCASE("--workers 8") { extra = {"--workers", "8"}; }
  LabProcess lab(extra);
  // More clients than workers: requests queue for a worker, as in class.
  const Reply started =
      lab.request("POST", "/experiments/storm?mode=legacy&scenario=provider_down&clients=50&duration_s=30");
  REQUIRE(started.status == 202);
  REQUIRE(started.json["running"] == true);
  // In earnest: every worker is in a quote flow, some on their second attempt.
  REQUIRE(eventually([&] { return carrier_calls(lab) >= 20; }, seconds(15)));

  const auto t0 = Steady::now();
  lab.signal(SIGTERM);
  const auto code = lab.wait_exit(seconds(3));
  const double took_ms = ms_since(t0);
  if (!code) lab.kill(SIGKILL);
  REQUIRE_MESSAGE(code.has_value(), "still running 3 s after SIGTERM:\n", lab.log());
  CHECK(*code == 0);
  MESSAGE("stopped ", took_ms, " ms after SIGTERM");
  CHECK(state_file_is_valid(lab.state_file()));
  const std::string log = lab.log();
  CHECK_MESSAGE(log.find("storm experiment cancelled") != std::string::npos, log);
  CHECK_MESSAGE(log.find("saving the state to") != std::string::npos, log);
  CHECK_MESSAGE(log.find("stopped cleanly") != std::string::npos, log);
}

TEST_CASE("a second SIGTERM exits at once while the first stop waits for a request in flight") {
  LabProcess lab;
  // One attempt the carrier never answers, allowed 5 s: the first stop waits for it.
  std::thread client([&] { lab.get("/quote-legacy?scenario=provider_down&timeout_ms=5000&max_attempts=1"); });
  REQUIRE(eventually([&] { return lab.get("/carrier").json["stats"]["in_flight"] == 1; }, seconds(5)));
  lab.signal(SIGTERM);
  // Signals of one kind do not queue: the second is sent once the first has been taken.
  REQUIRE(eventually([&] { return lab.log().find("SIGTERM received") != std::string::npos ||
                                  lab.log().find("signal 15 received") != std::string::npos; }, seconds(3)));

  const auto t0 = Steady::now();
  lab.signal(SIGTERM);
  const auto code = lab.wait_exit(seconds(1));
  const double took_ms = ms_since(t0);
  if (!code) lab.kill(SIGKILL);
  client.join();
  REQUIRE_MESSAGE(code.has_value(), "the second SIGTERM did not end the lab:\n", lab.log());
  CHECK(*code == 128 + SIGTERM);  // documented: 128 + the signal, as a shell reports a killed program
  MESSAGE("exited ", took_ms, " ms after the second SIGTERM");
  CHECK(state_file_is_valid(lab.state_file()));
  CHECK_MESSAGE(lab.log().find("received again") != std::string::npos, lab.log());
}

}  // namespace test_stop_signals
