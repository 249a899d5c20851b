#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "lab/policy.hpp"

using namespace quote_lab;

TEST_CASE("the defaults are the numbers the course teaches") {
  const Policies p = default_policies();
  CHECK(p.legacy.timeout_ms == 360);
  CHECK(p.legacy.max_attempts == 4);
  CHECK(p.legacy.backoff_base_ms == 0);
  CHECK_FALSE(p.legacy.circuit_breaker);
  CHECK_FALSE(p.legacy.fallback);
  CHECK(p.resilient.timeout_ms == 220);
  CHECK(p.resilient.max_attempts == 2);
  CHECK(p.resilient.backoff_base_ms == 80);
  CHECK(p.resilient.jitter == Jitter::additive);
  CHECK(p.resilient.jitter_min_ms == 15);
  CHECK(p.resilient.jitter_max_ms == 45);
  CHECK(p.resilient.circuit_breaker);
  CHECK(p.resilient.fallback);
  CHECK(p.breaker.failure_threshold == 2);
  CHECK(p.breaker.open_duration_s == 30);
  CHECK(validate(p).empty());
}

TEST_CASE("docs/policies.json, the example teachers copy, says exactly the defaults") {
  std::ifstream in(std::string(QUOTE_LAB_SOURCE_DIR) + "/docs/policies.json");
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
    CHECK(msg.find("legacy.timeout_ms must be an integer") != std::string::npos);
    CHECK(msg.find("legacy.max_attempts must be between 1 and 10") != std::string::npos);
    CHECK(msg.find("resilient.jitter must be one of: none, additive, full, equal, decorrelated") != std::string::npos);
    CHECK(msg.find("jitter_min_ms must not exceed jitter_max_ms") != std::string::npos);
    CHECK(msg.find("unknown key 'retries'") != std::string::npos);
    CHECK(msg.find("breaker.open_duration_s must be between") != std::string::npos);
  }
}
