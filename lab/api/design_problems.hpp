#pragma once
// Why a posted design (POST /experiments/scorecard) was refused, one problem at a time, in
// the student's language. The policies parser writes each problem once, in English, for a
// policies file read at start-up ("design.pipeline[1] (retry): max_attempts must be between 1
// and 10 (got 0)"); this reads those lines back into where the problem is (the list's index,
// the strategy, the setting) and says it again in Spanish, with the same values.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lab/http/accept.hpp"

namespace quote_lab {

struct DesignProblem {
  std::string at;                      ///< "pipeline[1]", "pipeline", or "" (the body itself)
  std::optional<std::string> strategy; ///< the entry's strategy, when the parser knew it
  std::optional<std::string> setting;  ///< the setting at fault, when there is one
  std::string message_en;              ///< the parser's sentence, without the place
  std::string message_es;              ///< the same in Spanish
};

/// One parser line (PolicyError::problems()) read back; `policy` is the name the design ran
/// under ("design"), which each line starts with. A line of a shape this does not know keeps
/// its English text in both languages, quoted in the Spanish one.
DesignProblem read_design_problem(const std::string& line, const std::string& policy);

/// {"at", "strategy", "setting", "message"} in `language`.
nlohmann::ordered_json to_json(const DesignProblem& p, Language language);

}  // namespace quote_lab
