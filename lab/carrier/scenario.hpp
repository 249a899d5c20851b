#pragma once
// Scenarios are data: one JSON file each in scenarios/, loaded at start-up, so a teacher
// adds one without recompiling. A scenario says how the simulated carrier answers each
// attempt of one quote request (attempt = how many times the carrier has seen that
// request's Idempotency-Key).
//
// File shape (scenarios/provider_down.json is a full example):
//   { "name": "flaky_provider", "order": 3, "aliases": ["flaky"],
//     "description": {"es": "...", "en": "..."},
//     "attempts": [ {"latency_ms": [520, 560], "response": "ok"} ],   // attempt 1, 2, ...
//     "then":       {"latency_ms": [150, 195], "response": "ok"} }    // every later attempt
// "response" is "ok" (a priced quote, HTTP 200), "hang" (hold the connection for
// "hang_ms", default 5000, then 504) or an HTTP status code such as 503 or 429.

#include <filesystem>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lab/http/api_error.hpp"

namespace quote_lab {

/// How the carrier treats one attempt.
struct AttemptBehaviour {
  enum class Kind { answer, hang };
  int latency_min_ms = 0;  ///< inclusive range the carrier waits before answering
  int latency_max_ms = 0;
  Kind kind = Kind::answer;
  int status = 200;        ///< HTTP status of the answer (200 = a quote)
};

/// One scenario as loaded from its file.
struct Scenario {
  std::string name;                  ///< canonical name, the one reports use
  std::vector<std::string> aliases;  ///< short names also accepted
  std::string description_es;
  std::string description_en;
  std::vector<AttemptBehaviour> attempts;  ///< attempts 1..N
  AttemptBehaviour then;                   ///< attempts N+1 onwards
  int hang_ms = 5000;                      ///< how long a "hang" holds the connection
  int order = 100;                         ///< listing position (the course's order), then name
  std::string source;                      ///< file it came from

  /// The behaviour for `attempt` (1-based; values below 1 are treated as 1).
  const AttemptBehaviour& behaviour_for(int attempt) const;
};

/// The latency of one attempt from a uniform draw u in [0, 1): an integer number of
/// milliseconds in [latency_min_ms, latency_max_ms], both ends reachable.
int draw_latency_ms(const AttemptBehaviour& b, double u);

/// Thrown at start-up; `what()` names the file and every problem found in it.
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parses one scenario; `source` names the file in error messages. Throws ScenarioError.
Scenario scenario_from_json(const nlohmann::ordered_json& j, const std::string& source);

/// The scenarios the lab knows, looked up by canonical name or alias.
class ScenarioCatalog {
 public:
  ScenarioCatalog() = default;
  explicit ScenarioCatalog(std::vector<Scenario> scenarios);  // throws on duplicate names

  /// Loads every *.json in `dir`, listed by their "order" field, then name. Throws ScenarioError naming the
  /// file for a missing directory, unreadable file, bad JSON, bad field or a name or
  /// alias that two files claim.
  static ScenarioCatalog load_dir(const std::filesystem::path& dir);

  /// The scenario named `name_or_alias`, in any case ("OK", "Provider_Down"), or nullptr.
  /// Names are lower case (a-z, 0-9, '_', '-'), so no two differ only in case.
  const Scenario* find(std::string_view name_or_alias) const;
  /// Canonical names followed by aliases, for 400 errors (`allowed`).
  std::vector<std::string> accepted_names() const;
  const std::vector<Scenario>& all() const { return scenarios_; }

 private:
  std::vector<Scenario> scenarios_;
  std::map<std::string, std::size_t, std::less<>> index_;  // name or alias → position
};

/// The 400 for a scenario name the catalog lacks ("unknown_scenario", every accepted name
/// in `allowed`), with "did you mean" when `typed` is a near miss of one (base/did_you_mean).
ApiError unknown_scenario_error(const ScenarioCatalog& catalog, std::string_view typed);

/// JSON description of a scenario for `/` and the dashboard.
nlohmann::ordered_json to_json(const Scenario& s);

}  // namespace quote_lab
