// GET /experiments/map: one point of the metastability map in simulated time over HTTP,
// what the dashboard's map draws; a point asked again is answered from the cache, bad input is
// a 400 in the asker's language naming the parameter.

#include <doctest/doctest.h>

#include <future>
#include <map>
#include <set>
#include <vector>

#include "support/in_process_lab.hpp"

namespace test_map_route {

using namespace quote_lab;
using namespace quote_lab::testing;

std::string header(const Reply& r, const std::string& name) {
  const auto it = r.headers.find(name);
  return it == r.headers.end() ? "" : it->second;
}

TEST_CASE("a point of the map over HTTP: the verdict and its timeline simulated once then answered from the cache") {
  InProcessLab lab;
  const std::string path = "/experiments/map?policy=legacy&depth=0.6&length_s=4&load=0.45";
  const Reply first = lab.get(path);
  REQUIRE(first.status == 200);
  CHECK(header(first, "X-Simulation-Cache") == "miss");
  CHECK(first.json["policy"] == "legacy");
  CHECK(first.json["recovered_after_s"].is_null());  // Huang et al.'s critical trigger: never
  CHECK(first.json["rate_per_s"] == 22.5);
  CHECK(first.json["window_s"] == 20);
  CHECK(first.json["theorem2_load"] == 0.25);
  CHECK(first.json["timeline"].size() == 27);
  const Reply again = lab.get("/experiments/map?load=0.450&length_s=4&depth=0.60&policy=legacy");
  CHECK(header(again, "X-Simulation-Cache") == "hit");
  CHECK(again.body == first.body);
  // The defaults are the critical point; a quote's overrides move it.
  CHECK(lab.get("/experiments/map").body == first.body);
  const Reply once = lab.get(path + "&max_attempts=1");
  CHECK(header(once, "X-Simulation-Cache") == "miss");
  CHECK(once.json["recovered_after_s"] == 0);
  CHECK(once.json["overrides"] == nlohmann::ordered_json{{"max_attempts", "1"}});
  // Nothing was stormed: the lab saw no quote.
  CHECK(lab.get("/incidents").json["incidents"].empty());
}

TEST_CASE("one policy written several ways is one point: its overrides are read as the policy they make") {
  InProcessLab lab;
  const std::string path = "/experiments/map?policy=legacy&depth=0.6&length_s=4&load=0.45";
  const Reply once = lab.get(path + "&max_attempts=1");
  CHECK(header(once, "X-Simulation-Cache") == "miss");
  // 01 and 1 are one value; the order of the parameters is not part of the point.
  const Reply padded = lab.get("/experiments/map?max_attempts=01&load=0.45&policy=legacy");
  CHECK(header(padded, "X-Simulation-Cache") == "hit");
  CHECK(padded.body == once.body);
  CHECK(padded.json["overrides"] == nlohmann::ordered_json{{"max_attempts", "1"}});
  // An override equal to the policy's own value changes nothing: legacy's own point.
  const Reply plain = lab.get(path);
  const Reply same = lab.get(path + "&max_attempts=4&timeout_ms=360");
  CHECK(header(same, "X-Simulation-Cache") == "hit");
  CHECK(same.body == plain.body);
  CHECK(same.json["overrides"] == nlohmann::ordered_json::object());
  // A small ratio is written as a plain decimal, which the overrides' parser reads.
  const Reply small = lab.get("/experiments/map?policy=resilient&retry_budget_ratio=0.00010");
  CHECK(small.status == 200);
  CHECK(small.json["overrides"] == nlohmann::ordered_json{{"retry_budget_ratio", "0.0001"}});
  // Far below a plain decimal's 32 characters, with an exponent; -0 is 0, for a setting as for the depth.
  const Reply tiny = lab.get("/experiments/map?policy=resilient&retry_budget_ratio=0.00000000000000000000000000000001");
  CHECK(tiny.status == 200);
  CHECK(tiny.json["overrides"] == nlohmann::ordered_json{{"retry_budget_ratio", "1e-32"}});
  const Reply zero = lab.get("/experiments/map?policy=resilient&retry_budget_ratio=0&depth=0");
  const Reply minus_zero = lab.get("/experiments/map?policy=resilient&retry_budget_ratio=-0&depth=-0");
  CHECK(header(minus_zero, "X-Simulation-Cache") == "hit");
  CHECK(minus_zero.body == zero.body);
  // Turning off a breaker the policy does not have changes nothing either.
  CHECK(lab.get(path + "&circuit_breaker=false").body == plain.body);
}

TEST_CASE("a point asked wrong is a 400 that names the parameter in the asker's language") {
  InProcessLab lab;
  struct Row {
    const char* path;
    const char* error;
    const char* says;
  };
  for (const Row& r : {
           Row{"/experiments/map?bogus=1", "unknown_parameter", "bogus"},
           Row{"/experiments/map?polcy=legacy", "unknown_parameter", "did you mean 'policy'"},
           Row{"/experiments/map?policy=legacy&policy=resilient", "invalid_parameter", "policy is given more than once"},
           Row{"/experiments/map?policy==legacy", "malformed_query", "policy==legacy"},
           Row{"/experiments/map?policy=legcy", "invalid_parameter", "legacy"},
           Row{"/experiments/map?depth=1.5", "invalid_parameter", "depth must be a number between 0 and 1"},
           Row{"/experiments/map?depth=x", "invalid_parameter", "depth must be a number between 0 and 1"},
           Row{"/experiments/map?load=0", "invalid_parameter", "load must be a number between 0.05 and 2"},
           Row{"/experiments/map?length_s=31", "invalid_parameter", "length_s must be an integer between 1 and 30"},
           Row{"/experiments/map?max_attempts=99", "invalid_parameter", "max_attempts must be an integer between 1 and 10"},
       }) {
    CAPTURE(r.path);
    const Reply reply = lab.get(r.path);
    CHECK(reply.status == 400);
    CHECK(reply.json["error"] == r.error);
    CHECK(reply.json["message"].get<std::string>().find(r.says) != std::string::npos);
  }
  const Reply es = lab.get("/experiments/map?load=0", {{"Accept-Language", "es"}});
  CHECK(es.json["message"] == "`load` debe ser un número entre 0.05 y 2 (se recibió '0')");
}

TEST_CASE("a class asking one point at once: one simulation, the others wait for it, every answer the same") {
  InProcessLab lab;
  REQUIRE(lab.get("/experiments/map?length_s=2").status == 200);  // the lab's first log lines, before the threads
  std::vector<std::future<Reply>> replies;
  for (int i = 0; i < 8; ++i)
    replies.push_back(std::async(std::launch::async, [&lab] {
      return lab.get("/experiments/map?policy=legacy&depth=0.8&length_s=4&load=0.6");
    }));
  std::map<std::string, int> how;
  std::set<std::string> bodies;
  for (auto& r : replies) {
    const Reply reply = r.get();
    REQUIRE(reply.status == 200);
    ++how[header(reply, "X-Simulation-Cache")];
    bodies.insert(reply.body);
  }
  // All eight from one address: without the coalescing only two would get a place in line.
  CHECK(how["miss"] == 1);
  CHECK(how["joined"] + how["hit"] == 7);
  CHECK(bodies.size() == 1);
}

}  // namespace test_map_route
