// The JSON form of the policies: the --policies file (overlay, every error at once, no
// integer wrapped) and the objects shown by /, /diagnostics/summary and every quote answer.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "lab/formats/policy_json.hpp"
#include "lab/resilience/policy.hpp"
#include "support/paths.hpp"

namespace test_policy_json {

using namespace quote_lab;

TEST_CASE("docs/policies.json, the example teachers copy, says exactly the defaults") {
  std::ifstream in(quote_lab::testing::source_dir() + "/docs/policies.json");
  REQUIRE(in);
  const auto file = nlohmann::ordered_json::parse(in);
  CHECK(file == to_json(default_policies()));
  CHECK(to_json(policies_from_json(file, default_policies())) == to_json(default_policies()));
}

TEST_CASE("a policy file overrides only what it names") {
  const auto p = policies_from_json(
      nlohmann::ordered_json::parse(R"({"resilient": {"timeout_ms": 300, "jitter": "full"}, "breaker": {"open_duration_s": 5}})"),
      default_policies());
  CHECK(p.resilient.timeout_ms == 300);
  CHECK(p.resilient.jitter == Jitter::full);
  CHECK(p.resilient.max_attempts == 2);
  CHECK(p.breaker.open_duration_s == 5);
  CHECK(p.legacy.timeout_ms == 360);
}

TEST_CASE("every problem in a policy file is reported together") {
  const auto bad = nlohmann::ordered_json::parse(R"({
      "legacy": {"timeout_ms": "long", "max_attempts": 0},
      "resilient": {"jitter": "wild", "jitter_min_ms": 50, "jitter_max_ms": 10, "retries": 3},
      "breaker": {"open_duration_s": -1}})");
  try {
    policies_from_json(bad, default_policies());
    FAIL("expected a PolicyError");
  } catch (const PolicyError& e) {
    const std::string msg = e.what();
    CHECK(msg.find(R"(legacy.timeout_ms must be an integer between 10 and 10000 (got "long"))") != std::string::npos);
    CHECK(msg.find("legacy.max_attempts must be between 1 and 10") != std::string::npos);
    CHECK(msg.find(R"(resilient.jitter must be one of: none, additive, full, equal, decorrelated (got "wild"))") !=
          std::string::npos);
    CHECK(msg.find("jitter_min_ms must not exceed jitter_max_ms") != std::string::npos);
    CHECK(msg.find("unknown key 'retries'") != std::string::npos);
    CHECK(msg.find("breaker.open_duration_s must be between") != std::string::npos);
  }
}

TEST_CASE("integers beyond an int in a policy file are refused with the field and range, never wrapped") {
  struct Row {
    const char* file;
    const char* says;
  };
  for (const Row& r : {
           Row{R"({"resilient": {"max_attempts": 4294967298}})",  // int32 wrap: 2
               "resilient.max_attempts must be between 1 and 10 (got 4294967298)"},
           Row{R"({"legacy": {"timeout_ms": -4294966936}})",  // int32 wrap: 360
               "legacy.timeout_ms must be between 10 and 10000 (got -4294966936)"},
           Row{R"({"resilient": {"backoff_max_ms": 18446744073709551615}})",
               "resilient.backoff_max_ms must be between 0 and 60000 (got 18446744073709551615)"},
           Row{R"({"breaker": {"failure_threshold": 4294967298}})",
               "breaker.failure_threshold must be between 1 and 100 (got 4294967298)"},
           Row{R"({"resilient": {"max_attempts": 1e3}})", "resilient.max_attempts must be an integer between 1 and 10 (got 1000.0)"},
       }) {
    CAPTURE(r.file);
    try {
      policies_from_json(nlohmann::ordered_json::parse(r.file), default_policies());
      FAIL("expected a PolicyError");
    } catch (const PolicyError& e) {
      CHECK_MESSAGE(std::string(e.what()).find(r.says) != std::string::npos, e.what());
    }
  }
}

TEST_CASE("a policy file that is not an object, or whose sections are not objects, is refused") {
  CHECK_THROWS_WITH_AS(policies_from_json(nlohmann::ordered_json::parse("[1, 2]"), default_policies()),
                       "the policy file must hold a JSON object", PolicyError);
  try {
    policies_from_json(nlohmann::ordered_json::parse(R"({"legacy": 3, "breaker": "open", "canary": 5})"),
                       default_policies());
    FAIL("expected a PolicyError");
  } catch (const PolicyError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("legacy must be an object") != std::string::npos);
    CHECK(msg.find("breaker must be an object") != std::string::npos);
    // Any other key is a named policy, so it must be an object too.
    CHECK(msg.find("canary must be an object") != std::string::npos);
  }
}

TEST_CASE("every field a policy object shows reads back to the same policy") {
  Policies p = default_policies();
  p.resilient.timeout_ms = 250;
  p.resilient.max_attempts = 3;
  p.resilient.backoff_base_ms = 40;
  p.resilient.backoff_max_ms = 500;
  p.resilient.jitter = Jitter::decorrelated;
  p.resilient.jitter_min_ms = 5;
  p.resilient.jitter_max_ms = 9;
  switch_strategy(p.resilient, Strategy::fallback, false);
  switch_strategy(p.legacy, Strategy::circuit_breaker, true);
  p.breaker.failure_threshold = 5;
  p.breaker.open_duration_s = 2.5;
  for (const bool with_pipelines : {false, true}) {
    CAPTURE(with_pipelines);  // /diagnostics/summary shows the keys; GET / the pipeline beside them
    const auto shown = policies_shown_json(p, with_pipelines);
    auto keys = shown["resilient"];
    keys.erase("pipeline");
    CHECK(keys == to_json(p.resilient));
    CHECK(shown["resilient"]["jitter"] == "decorrelated");
    CHECK(shown["breaker"]["open_duration_s"] == 2.5);
    // Read over the defaults, the shown form gives back exactly p: no field is lost or renamed.
    CHECK(policies_shown_json(policies_from_json(shown, default_policies()), with_pipelines) == shown);
  }
  // And so does the file's form, where each policy is its pipeline.
  CHECK(to_json(policies_from_json(to_json(p), default_policies())) == to_json(p));
}

TEST_CASE("a boolean field must be true or false, not a string") {
  CHECK_THROWS_WITH_AS(
      policies_from_json(nlohmann::ordered_json::parse(R"({"resilient": {"fallback": "yes"}})"), default_policies()),
      doctest::Contains("resilient.fallback must be true or false"), PolicyError);
}

TEST_CASE("named policies: any number besides the course's two, each from the resilient defaults, shown whole") {
  const auto p = policies_from_json(nlohmann::ordered_json::parse(R"({
      "budgeted": {"max_attempts": 3, "retry_budget_ratio": 0.1, "deadline_ms": 900, "idempotency_key": "per_attempt",
                   "retry_on": ["5xx", "4xx"]},
      "adr0005": {"breaker": {"failure_threshold": 7}}})"),
                                    default_policies());
  // The named policies that ship keep their place; a new one comes after them.
  REQUIRE(p.names() == std::vector<std::string>{"legacy", "resilient", "adr0005", "throttled", "adaptive_limit",
                                                "bulkhead", "hedged", "aws_adaptive", "budgeted"});
  const RetryPolicy& b = *p.find("budgeted");
  CHECK(b.timeout_ms == 220);  // the resilient defaults underneath
  CHECK(b.max_attempts == 3);
  CHECK(b.retry_budget_ratio == 0.1);
  CHECK(b.deadline_ms == 900);
  CHECK(b.idempotency_key == IdempotencyKey::per_attempt);
  CHECK(b.retry_on == (kRetryOn5xx | kRetryOn4xx));
  CHECK_FALSE(p.find_named("budgeted")->breaker);  // shares the course breaker
  CHECK(p.find_named("adr0005")->breaker->failure_threshold == 7);
  CHECK(p.find_named("adr0005")->breaker->open_duration_s == 30);
  const auto shown = policies_shown_json(p, true);
  CHECK(shown["budgeted"]["retry_on"] == nlohmann::ordered_json::array({"5xx", "4xx"}));
  CHECK(shown["budgeted"]["retry_budget_ratio"] == 0.1);
  CHECK_FALSE(shown["budgeted"].contains("breaker"));
  CHECK_FALSE(shown["resilient"].contains("retry_on"));  // the course's answers are unchanged
}

TEST_CASE("bad named policies: unknown keys, values out of range, bad names and near misses, all at once") {
  const auto bad = nlohmann::ordered_json::parse(R"({
      "strict": {"retry_budget_ratio": 1.5, "deadline_ms": 70000, "idempotency_key": "twice", "retries": 2,
                 "breaker": {"failure_threshold": 0, "cooldown": 3}},
      "resilent": {"max_attempts": 3},
      "Bad Name": {},
      "legacy": {"breaker": {"failure_threshold": 3}}})");
  try {
    policies_from_json(bad, default_policies());
    FAIL("expected a PolicyError");
  } catch (const PolicyError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("strict.retry_budget_ratio must be between 0 and 1 (got 1.5)") != std::string::npos);
    CHECK(msg.find("strict.deadline_ms must be between 0 and 60000 (got 70000)") != std::string::npos);
    CHECK(msg.find("strict.idempotency_key must be one of: per_flow, per_attempt, none") != std::string::npos);
    CHECK(msg.find("strict: unknown key 'retries'") != std::string::npos);
    CHECK(msg.find("strict.breaker.failure_threshold must be between 1 and 100") != std::string::npos);
    CHECK(msg.find("strict.breaker: unknown key 'cooldown'") != std::string::npos);
    CHECK(msg.find("unknown key 'resilent'; did you mean 'resilient'?") != std::string::npos);
    CHECK(msg.find("'Bad Name' is not a valid policy name") != std::string::npos);
    CHECK(msg.find("legacy.breaker: only a named policy has a breaker of its own") != std::string::npos);
  }
}

}  // namespace test_policy_json
