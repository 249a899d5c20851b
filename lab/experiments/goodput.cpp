#include "lab/experiments/goodput.hpp"

#include "lab/base/name_table.hpp"

namespace quote_lab {
namespace {

constexpr NameTable<AnswerVerdict, 5> kVerdictNames{{{
    {AnswerVerdict::no_answer, "no_answer"},
    {AnswerVerdict::not_a_quote, "not_a_quote"},
    {AnswerVerdict::late, "late"},
    {AnswerVerdict::stale_fallback, "stale_fallback"},
    {AnswerVerdict::useful, "useful"},
}}};

}  // namespace

std::string_view to_string(AnswerVerdict v) { return kVerdictNames.name(v); }

const std::vector<AnswerVerdict>& answer_verdicts() {
  static const std::vector<AnswerVerdict> all = [] {
    std::vector<AnswerVerdict> out;
    for (const auto& [v, _] : kVerdictNames.entries) out.push_back(v);
    return out;
  }();
  return all;
}

AnswerVerdict judge_answer(int http_status, const nlohmann::json& body, double latency_ms, const GoodputRule& rule) {
  if (http_status == 0) return AnswerVerdict::no_answer;
  const bool has_quote = body.is_object() && body.contains("quote") && body["quote"].is_object();
  if (http_status != 200 || !has_quote) return AnswerVerdict::not_a_quote;
  if (latency_ms > rule.deadline_ms) return AnswerVerdict::late;
  const auto& quote = body["quote"];
  if (quote.contains("source") && quote["source"] == "fallback") {
    const bool aged = quote.contains("age_s") && quote["age_s"].is_number();
    if (!aged || quote["age_s"].get<double>() > rule.fallback_max_age_s) return AnswerVerdict::stale_fallback;
  }
  return AnswerVerdict::useful;
}

}  // namespace quote_lab
