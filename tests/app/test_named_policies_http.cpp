// Issue 14 through a real `quote-lab serve`: GET /quote/{policy} for the named policies of
// the policies file, its 404, the new per-request overrides and their 400s, the index and
// the diagnostics listing the named policies, the skipped-retry metric, and a bad policy
// file stopping start-up.
#include <doctest/doctest.h>

#include <fstream>

#include "support/lab_process.hpp"
#include "support/temp_dir.hpp"

using namespace quote_lab::testing;

TEST_CASE("GET /quote/adr0005 answers like /quote-resilient, under ADR-0005's numbers and its own breaker") {
  LabProcess lab;
  const Reply r = lab.get("/quote/adr0005?scenario=ok");
  CHECK(r.status == 200);
  CHECK(r.json["mode"] == "adr0005");
  CHECK(r.json["status"] == "completed");
  CHECK(r.json["policy"]["max_attempts"] == 3);
  CHECK(r.json["policy"]["retry_on"] == nlohmann::json::array({"5xx", "429", "timeout", "connect_error"}));
  CHECK(r.json["policy"]["breaker"]["failure_threshold"] == 5);
  CHECK(r.json["dependency"]["name"] == "carrier:adr0005");
  // The course routes are as they were: no issue-14 key in their policy objects.
  const Reply course = lab.get("/quote-resilient?scenario=ok");
  CHECK_FALSE(course.json["policy"].contains("retry_on"));
  CHECK(course.json["dependency"]["name"] == "carrier");

  const Reply index = lab.get("/");
  CHECK(index.json["policies"].contains("adr0005"));
  const Reply diag = lab.get("/diagnostics/summary");
  CHECK(diag.json["policies"].contains("adr0005"));
  CHECK(diag.json["modes"]["adr0005"]["requests"] == 1);
}

TEST_CASE("an unknown policy is a 404 naming the policies, with a did-you-mean, in English or Spanish") {
  LabProcess lab;
  const Reply r = lab.get("/quote/adr005");
  CHECK(r.status == 404);
  CHECK(r.json["error"] == "unknown_policy");
  CHECK(r.json["message"] == "there is no policy 'adr005'; did you mean 'adr0005'?");
  CHECK(r.json["allowed"] == nlohmann::json::array({"legacy", "resilient", "adr0005"}));
  const Reply es = lab.get("/quote/zzz", {{"Accept-Language", "es"}});
  CHECK(es.status == 404);
  CHECK(es.json["message"] == "no existe la política 'zzz'; usa uno de los nombres permitidos (GET / los lista)");
}

TEST_CASE("the new overrides: each bad value is a 400 naming it, a refused retry is counted by reason") {
  LabProcess lab;
  struct Row {
    const char* query;
    const char* says;
    std::size_t allowed;
  };
  for (const Row& row : {Row{"retry_budget_ratio=2", "retry_budget_ratio must be a number between 0 and 1", 0},
                         Row{"retry_budget_ratio=abc", "retry_budget_ratio must be a number between 0 and 1", 0},
                         Row{"retry_budget_min_per_s=-1", "retry_budget_min_per_s must be an integer between 0 and 1000", 0},
                         Row{"deadline_ms=5", "deadline_ms must be an integer between 10 and 5000", 0},
                         Row{"idempotency_key=twice", "idempotency_key must be one of the allowed values", 3},
                         Row{"circuit_breaker=maybe", "circuit_breaker must be one of the allowed values", 2}}) {
    CAPTURE(row.query);
    const Reply r = lab.get(std::string("/quote/adr0005?") + row.query);
    CHECK(r.status == 400);
    CHECK(r.json["message"].get<std::string>().find(row.says) == 0);
    if (row.allowed > 0) CHECK(r.json["allowed"].size() == row.allowed);
  }
  // No budget left for a retry (ratio 0, no floor) and no breaker: one call, then the fallback.
  const Reply r = lab.get("/quote-resilient?scenario=down&retry_budget_ratio=0&retry_budget_min_per_s=0&circuit_breaker=false");
  CHECK(r.status == 200);
  CHECK(r.json["attempts"] == 1);
  CHECK(r.json["events"][1]["event"] == "retry_skipped");
  CHECK(r.json["events"][1]["reason"] == "retry_budget");
  CHECK(r.json["dependency"]["circuit_status"] == "closed");
  const std::string metrics = lab.get("/metrics-prometheus").body;
  CHECK(metrics.find(R"(quote_lab_retries_skipped_total{mode="resilient",reason="retry_budget"} 1)") != std::string::npos);
}

TEST_CASE("a policy file with an unknown key or a value out of range stops start-up naming the file and the field") {
  TempDir dir;
  const auto file = dir.path() / "policies.json";
  std::ofstream(file) << R"({"strict": {"max_attempts": 3, "retry_on": ["5xx", "418"], "retries": 1}})";
  std::string log;
  try {
    LabProcess lab({"--policies", file.string()});
  } catch (const std::runtime_error& e) {
    log = e.what();  // "quote-lab exited at start: " and its log
  }
  CHECK(log.find(file.string() + ": invalid policies") != std::string::npos);
  CHECK(log.find("strict.retry_on must be a list of: 5xx, 429, timeout, connect_error, 4xx, bad_response") != std::string::npos);
  CHECK(log.find("strict: unknown key 'retries'") != std::string::npos);
}

TEST_CASE("POST /experiments/storm storms any named policy with the quote routes' overrides and refuses a bad value with a 400 naming it") {
  LabProcess lab;
  const std::string base = "/experiments/storm?mode=adr0005&scenario=provider_down&clients=2&requests=4&";
  struct Bad {
    const char* given;
    const char* named;
  };
  for (const auto& [given, named] : {Bad{"circuit_breaker=maybe", "circuit_breaker"}, Bad{"retry_budget_ratio=2", "retry_budget_ratio"},
                                     Bad{"retry_budget_min_per_s=-1", "retry_budget_min_per_s"}, Bad{"max_attempts=0", "max_attempts"},
                                     Bad{"deadline_ms=5", "deadline_ms"}, Bad{"idempotency_key=twice", "idempotency_key"},
                                     Bad{"jitter=wild", "jitter"}, Bad{"layers=4", "layers"}, Bad{"layers=0", "layers"}}) {
    CAPTURE(given);
    const Reply r = lab.request("POST", base + given);
    CHECK(r.status == 400);
    CHECK(r.json["error"] == "invalid_parameter");
    CHECK(r.json["message"].get<std::string>().find(named) != std::string::npos);
  }
  // A JSON body is read the same way: values of any JSON type, checked as the query's.
  httplib::Client client("127.0.0.1", lab.port());
  const auto body = client.Post("/experiments/storm", R"({"mode": "adr0005", "retry_budget_ratio": 1.5})", "application/json");
  REQUIRE(body);
  CHECK(body->status == 400);
  CHECK(nlohmann::json::parse(body->body)["message"] == "retry_budget_ratio must be a number between 0 and 1 (got '1.5')");
  // A policy the lab does not serve: every one it does is allowed.
  const Reply unknown = lab.request("POST", "/experiments/storm?mode=adr05");
  CHECK(unknown.status == 400);
  CHECK(unknown.json["allowed"] == nlohmann::json::array({"legacy", "resilient", "adr0005"}));
  CHECK(unknown.json["message"] == "there is no policy 'adr05'; did you mean 'adr0005'?");
  CHECK(lab.get("/experiments/storm").json["options"].is_null());  // none of them started a storm

  // ADR-0005 without its breaker against a carrier that never answers: 3 attempts per request.
  const Reply started = lab.request("POST", base + "circuit_breaker=false");
  REQUIRE(started.status == 202);
  CHECK(started.json["options"]["mode"] == "adr0005");
  CHECK(started.json["options"]["params"] == nlohmann::json{{"circuit_breaker", "false"}});
  CHECK(started.json["options"]["layers"] == 1);
  Reply done;
  REQUIRE(eventually([&] { return (done = lab.get("/experiments/storm")).json["running"] == false; }, std::chrono::seconds(60),
                     std::chrono::milliseconds(100)));
  const auto& result = done.json["last_result"];
  CHECK(result["mode"] == "adr0005");
  CHECK(result["params"] == nlohmann::json{{"circuit_breaker", "false"}});
  CHECK(result["requests"] == 4);
  CHECK(result["status_counts"] == nlohmann::json{{"degraded", 4}});  // fail soft: the fallback answers
  CHECK(result["carrier_calls"] == 12);
  CHECK(result["amplification"] == 3.0);
}
