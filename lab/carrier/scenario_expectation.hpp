#pragma once
// What a user sees when one policy meets one scenario, written in the scenario file under
// "expected" and checked for every scenario file and policy on a fake clock by
// tests/carrier/test_carrier_simulator_faults.cpp (what needs real sockets: test_fault_scenarios.py):
//   "expected": {"legacy":    {"status": "failed", "http_status": 503, "attempts": 4,
//                               "reasons": ["http_429", "http_429", "http_429", "http_429"]},
//                "resilient": {"status": "completed", "attempts": [2, 3], "source": "live"}}
// The observation: a fresh lab (POST /reset-lab), one GET /quote/{policy}?scenario=NAME
// (the course routes /quote-legacy and /quote-resilient for those two policies).
//   status       "completed" | "degraded" | "failed", or a list of those that may come
//                out (a seeded tail: ["completed", "degraded"]) (required)
//   http_status  the HTTP status of the lab's answer (optional)
//   attempts     an exact count, or [min, max] (required)
//   reasons      the attempt_failed reasons in order (optional; exact when given)
//   source       "live" | "fallback" | null (optional)

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace quote_lab {

/// One policy's expected outcome in one scenario.
struct Expectation {
  std::vector<std::string> statuses;  ///< any of these
  std::optional<int> http_status;
  int attempts_min = 1;
  int attempts_max = 1;
  std::optional<std::vector<std::string>> reasons;
  std::optional<std::string> source;  ///< "null" stands for a failed quote's null source
};

/// Parses "expected" (`where` prefixes each problem); problems are appended to `errors`.
std::map<std::string, Expectation> expectations_from_json(const nlohmann::ordered_json& j,
                                                          std::vector<std::string>& errors);

/// The same object back, for `/` and the tests.
nlohmann::ordered_json to_json(const Expectation& e);

}  // namespace quote_lab
