// Goodput as a client judges an answer (lab/experiments/goodput.hpp): a table of answers,
// each with the verdict it must get, at the default rule and at changed bounds.
#include <doctest/doctest.h>

#include <string>

#include "lab/experiments/goodput.hpp"

namespace test_goodput {

using namespace quote_lab;
using nlohmann::json;

namespace {

json answer(const std::string& source, double age_s = 0) {
  json quote = {{"quote_id", "Q-1"}, {"amount", 59.7}, {"currency", "USD"}, {"source", source}};
  if (source == "fallback") quote["age_s"] = age_s;
  return {{"status", source == "live" ? "completed" : "degraded"}, {"quote", quote}};
}

}  // namespace

TEST_CASE("the defaults: a 2 s deadline and a fallback at most 60 s old") {
  const GoodputRule rule;
  CHECK(rule.deadline_ms == 2000);
  CHECK(rule.fallback_max_age_s == 60);
}

TEST_CASE("each answer's verdict, in the order the checks run") {
  const GoodputRule rule;
  struct Case {
    const char* what;
    int status;
    json body;
    double latency_ms;
    AnswerVerdict verdict;
  };
  const Case cases[] = {
      {"a live quote in time", 200, answer("live"), 150, AnswerVerdict::useful},
      {"a live quote at the deadline itself", 200, answer("live"), 2000, AnswerVerdict::useful},
      {"a live quote 1 ms late", 200, answer("live"), 2001, AnswerVerdict::late},
      {"a fresh fallback in time", 200, answer("fallback", 12.5), 3, AnswerVerdict::useful},
      {"a fallback exactly 60 s old", 200, answer("fallback", 60), 3, AnswerVerdict::useful},
      {"a fallback 60.1 s old", 200, answer("fallback", 60.1), 3, AnswerVerdict::stale_fallback},
      {"a stale fallback that is also late: late first", 200, answer("fallback", 600), 2500, AnswerVerdict::late},
      {"a fallback that states no age", 200, json{{"quote", {{"source", "fallback"}}}}, 3, AnswerVerdict::stale_fallback},
      {"a 503 without a quote (legacy failed)", 503, json{{"status", "failed"}, {"quote", nullptr}}, 1440,
       AnswerVerdict::not_a_quote},
      {"a 503 that somehow holds a quote", 503, answer("live"), 100, AnswerVerdict::not_a_quote},
      {"a 200 that is not JSON", 200, json::value_t::discarded, 5, AnswerVerdict::not_a_quote},
      {"a 429 of the lab's rate limit", 429, json{{"error", "rate_limited"}}, 1, AnswerVerdict::not_a_quote},
      {"no answer at all", 0, json::value_t::discarded, 30000, AnswerVerdict::no_answer},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    CHECK(judge_answer(c.status, c.body, c.latency_ms, rule) == c.verdict);
  }
}

TEST_CASE("the bounds are settings") {
  const GoodputRule strict{.deadline_ms = 100, .fallback_max_age_s = 5};
  CHECK(judge_answer(200, answer("live"), 150, strict) == AnswerVerdict::late);
  CHECK(judge_answer(200, answer("fallback", 6), 50, strict) == AnswerVerdict::stale_fallback);
  CHECK(judge_answer(200, answer("fallback", 5), 50, strict) == AnswerVerdict::useful);
}

TEST_CASE("verdicts by name, in order") {
  std::string names;
  for (const auto v : answer_verdicts()) names += std::string(to_string(v)) + " ";
  CHECK(names == "no_answer not_a_quote late stale_fallback useful ");
}

}  // namespace test_goodput
