// Named policies through a real `quote-lab serve`: a bad policy file, flat or as pipelines,
// stopping start-up. GET /quote/{policy}, its 404, the new overrides and their 400s, and
// storms of a named policy are checked in-process (test_lab_routes.cpp).
#include <doctest/doctest.h>

#include <fstream>

#include "support/lab_process.hpp"
#include "support/temp_dir.hpp"

namespace test_named_policies_http {

using namespace quote_lab::testing;

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

TEST_CASE("a pipeline with an unknown strategy or a setting out of range stops start-up naming the file, the index and the setting") {
  TempDir dir;
  const auto file = dir.path() / "policies.json";
  std::ofstream(file) << R"({"strict": {"pipeline": [{"strategy": "fallback"}, {"strategy": "retyr"},
                                                      {"strategy": "bulkhead", "max_concurrent": 0},
                                                      {"strategy": "timeout", "timeout_ms": 220}]}})";
  std::string log;
  try {
    LabProcess lab({"--policies", file.string()});
  } catch (const std::runtime_error& e) {
    log = e.what();
  }
  CHECK(log.find(file.string() + ": invalid policies") != std::string::npos);
  CHECK(log.find("strict.pipeline[1]: unknown strategy 'retyr'; did you mean 'retry'?") != std::string::npos);
  CHECK(log.find("strict.pipeline[2] (bulkhead): max_concurrent must be between 1 and 1000 (got 0)") != std::string::npos);
}

}  // namespace test_named_policies_http
