// GET /experiments/simulate: a storm in simulated time over HTTP, answered at once, the same
// for the same seed, bad input a 400 in the asker's language, a full line a 503.

#include <doctest/doctest.h>

#include <future>
#include <thread>
#include <vector>

#include "support/in_process_lab.hpp"

namespace test_simulate_route {

using namespace quote_lab;
using namespace quote_lab::testing;

TEST_CASE("a simulated storm over HTTP: the storm's report, the same bytes for the same seed, nothing stormed") {
  InProcessLab lab;
  const std::string path = "/experiments/simulate?policy=legacy&scenario=provider_down&clients=10&requests=100&seed=1";
  const Reply first = lab.get(path);
  REQUIRE(first.status == 200);
  CHECK(first.json["target"] == "simulated");
  CHECK(first.json["mode"] == "legacy");
  CHECK(first.json["requests"] == 100);
  CHECK(first.json["amplification"] == 4.0);
  CHECK(lab.get(path).body == first.body);
  // The lab itself saw nothing: no quote, no incident, its breaker untouched.
  CHECK(lab.get("/incidents").json["incidents"].empty());
  // The quote routes' overrides apply as on a quote.
  const Reply no_breaker =
      lab.get("/experiments/simulate?policy=resilient&circuit_breaker=false&clients=10&requests=100&seed=1");
  CHECK(no_breaker.json["amplification"] == 2.0);
  const Reply open = lab.get("/experiments/simulate?policy=throttled&scenario=capacity_drop&rate=20&arrivals=uniform"
                             "&duration_s=12&seed=4&fallback_max_age_s=0");
  REQUIRE(open.status == 200);
  CHECK(open.json["load_model"] == "open");
  CHECK(open.json["arrivals"] == 240);
}

TEST_CASE("a simulation asked wrong is a 400 that names the parameter, in the asker's language") {
  InProcessLab lab;
  struct Row {
    const char* path;
    const char* error;
    const char* says;
  };
  for (const Row& r : {
           Row{"/experiments/simulate?bogus=1", "unknown_parameter", "bogus"},
           Row{"/experiments/simulate?seed=1&seed=abc", "invalid_parameter", "seed is given more than once"},
           Row{"/experiments/simulate?policy=legcy", "invalid_parameter", "legacy"},
           Row{"/experiments/simulate?scenario=dwn", "unknown_scenario", "does not exist"},
           Row{"/experiments/simulate?clients=501", "invalid_parameter", "clients must be an integer between 1 and 500"},
           Row{"/experiments/simulate?rate=10&clients=5", "invalid_parameter", "exclude each other"},
           Row{"/experiments/simulate?requests=0", "invalid_parameter", "requests must be an integer between 1 and 100000"},
           Row{"/experiments/simulate?max_attempts=99", "invalid_parameter", "max_attempts must be an integer between 1 and 10"},
           Row{"/experiments/simulate?rate=2000&duration_s=600", "invalid_parameter", "at most 100000 arrivals"},
           // As `quote-lab simulate` refuses --requests with --duration: neither is silently dropped.
           Row{"/experiments/simulate?requests=100&duration_s=5", "invalid_parameter", "`requests` and `duration_s` exclude each other"},
       }) {
    CAPTURE(r.path);
    const Reply reply = lab.get(r.path);
    CHECK(reply.status == 400);
    CHECK(reply.json["error"] == r.error);
    CHECK(reply.json["message"].get<std::string>().find(r.says) != std::string::npos);
  }
  const Reply es = lab.get("/experiments/simulate?rate=2000&duration_s=600", {{"Accept-Language", "es"}});
  CHECK(es.json["message"].get<std::string>().find("una simulación ejecuta como mucho 100000 llegadas") == 0);
}

TEST_CASE("a class of 30 asking at once: every simulation answered, one at a time on the runner's thread") {
  InProcessLab lab;
  // Each student asks for her own lab with her key: her share of the line, whatever machine
  // she asks from (here, all 30 from this one).
  std::vector<std::string> keys;
  for (int i = 0; i < 30; ++i)
    keys.push_back(lab.request("POST", "/claim?name=s" + std::to_string(i)).json["lab_key"].get<std::string>());
  std::vector<std::future<Reply>> replies;
  for (int i = 0; i < 30; ++i)
    replies.push_back(std::async(std::launch::async, [&lab, &keys, i] {
      return lab.get("/experiments/simulate?policy=throttled&scenario=tail_latency&clients=10&requests=300&seed=" +
                         std::to_string(i) + "&lab=s" + std::to_string(i),
                     {{"X-Lab-Key", keys[static_cast<std::size_t>(i)]}});
    }));
  for (auto& r : replies) {
    const Reply reply = r.get();
    CHECK(reply.status == 200);
    CHECK(reply.json["requests"] == 300);
  }
}

TEST_CASE("one machine asking without a key holds two places in line: the third waits its turn with a 429") {
  InProcessLab lab;
  // A lab created here first: the process's first log line makes spdlog's registry, which the
  // six requests below, each creating its lab, must not make at once (ThreadSanitizer, when
  // ctest runs this case in a process of its own).
  REQUIRE(lab.get("/dependency/state?lab=first-x").status == 200);
  std::vector<std::future<Reply>> replies;
  // 5,000 quotes of legacy on provider_down: about 0.1 s each (2 s under ThreadSanitizer), so the
  // first two still hold their places when the others, asked at the same time, arrive, and both
  // are answered well within the client's 15 s (20,000 were not, one behind the other, under
  // ThreadSanitizer on a loaded machine).
  for (int i = 0; i < 6; ++i)
    replies.push_back(std::async(std::launch::async, [&lab, i] {
      return lab.get("/experiments/simulate?policy=legacy&scenario=provider_down&clients=50&requests=5000&seed=" +
                         std::to_string(i) + "&lab=fake" + std::to_string(i) + "-x",
                     {{"Accept-Language", "es"}});
    }));
  int answered = 0, refused = 0;
  for (auto& r : replies) {
    const Reply reply = r.get();
    if (reply.status == 200) ++answered;
    if (reply.status == 429) {
      ++refused;
      CHECK(reply.json["error"] == "simulations_yours_busy");
      CHECK(reply.json["message"].get<std::string>().find("ya tienes 2 simulaciones en la fila") == 0);
      CHECK(reply.headers.count("Retry-After") == 1);
    }
  }
  CHECK(answered >= 2);
  CHECK(answered + refused == 6);
  CHECK(refused >= 1);
}

}  // namespace test_simulate_route

namespace test_simulate_route {

TEST_CASE("a closed loop by duration runs for its duration and one that would pass the bound is a 400 that says so") {
  InProcessLab lab;
  const Reply two_s = lab.get("/experiments/simulate?policy=resilient&scenario=provider_down&clients=10&duration_s=2&seed=1");
  REQUIRE(two_s.status == 200);
  CHECK(two_s.json["elapsed_s"].get<double>() <= 2.5);
  // The lab's 0.35 ms of its own work per quote on 2 cores: about 5,700 short circuits a second.
  CHECK(two_s.json["requests"].get<long>() > 10000);
  CHECK(two_s.json["requests"].get<long>() < 12000);
  const Reply too_long = lab.get("/experiments/simulate?policy=resilient&scenario=provider_down&clients=10&duration_s=60",
                                 {{"Accept-Language", "es"}});
  CHECK(too_long.status == 400);
  CHECK(too_long.json["error"] == "invalid_parameter");
  CHECK(too_long.json["message"].get<std::string>().find("la simulación llegó a 100000 cotizaciones") == 0);
}

}  // namespace test_simulate_route
