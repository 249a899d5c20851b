// The class challenge (docs/clase/reto.md): a student posts a pipeline of their own to their lab
// and gets its scorecard over the fixed battery, beside legacy and resilient, graded in
// simulated time (app/design_judge.hpp); the lab keeps it, and GET /class ranks the class's
// designs. POST changes the lab (its design), so a claimed lab needs its key.
//   POST /experiments/scorecard   body {"pipeline": [...]} (or the list alone)
//   GET  /experiments/scorecard   the lab's design and its scorecard (null: none yet)
#include <httplib.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "lab/api/design_problems.hpp"
#include "lab/api/route_handlers.hpp"
#include "lab/api/route_support.hpp"
#include "lab/app/design_judge.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/app/lab_registry.hpp"
#include "lab/app/simulation_runner.hpp"
#include "lab/formats/pipeline_json.hpp"
#include "lab/http/http_server.hpp"

namespace quote_lab::handlers {
namespace {

// A score as the reader writes it: 42.3, or 42,3 in Spanish.
std::string one_decimal(double v, Language language) {
  char out[32];
  std::snprintf(out, sizeof out, "%.1f", v);
  std::string text = out;
  if (language == Language::es) std::replace(text.begin(), text.end(), '.', ',');
  return text;
}

// The problems a refusal lists at most: a body of a thousand wrong entries gets a readable
// answer (and `problems_total`), not one line per entry.
constexpr std::size_t kMaxProblemsShown = 20;

// The design the body holds, or why it holds none (the 400 to answer: `problems` set when the
// policies parser refused it).
struct Posted {
  std::optional<Policies> policies;
  std::optional<ApiError> error;
  nlohmann::ordered_json problems;
  std::size_t problems_total = 0;
};

Posted read_design(const std::string& body, const Policies& base, Language language) {
  Posted out;
  const auto j = nlohmann::ordered_json::parse(body, nullptr, false);
  const bool object_with_pipeline_only = j.is_object() && j.size() == 1 && j.contains("pipeline");
  if (!j.is_array() && !object_with_pipeline_only) {
    out.error = api_error(400, "invalid_design", MessageId::design_body, {}, {"pipeline"});
    return out;
  }
  try {
    out.policies = policies_with_design(j, base);
  } catch (const PolicyError& e) {
    std::vector<DesignProblem> problems;
    for (const std::string& line : e.problems()) {
      if (problems.size() == kMaxProblemsShown) break;
      problems.push_back(read_design_problem(line, kDesignPolicyName));
    }
    if (problems.empty()) problems.push_back(read_design_problem(e.what(), kDesignPolicyName));
    out.problems_total = std::max(e.problems().size(), problems.size());
    out.problems = nlohmann::ordered_json::array();
    for (const DesignProblem& p : problems) out.problems.push_back(to_json(p, language));
    const DesignProblem& first = problems.front();
    const std::string place = first.at.empty() ? "" : "`" + first.at + "`" + (first.strategy ? " (`" + *first.strategy + "`)" : "") + ": ";
    ApiError refused = api_error(400, "invalid_design", MessageId::design_refused,
                                 {{"count", std::to_string(out.problems_total)}, {"first", place + first.message_en}});
    refused.message_es = message_text(MessageId::design_refused, Language::es,
                                      {{"count", std::to_string(out.problems_total)}, {"first", place + first.message_es}});
    out.error = std::move(refused);
  }
  return out;
}

void send_with_problems(const httplib::Request& req, httplib::Response& res, const ApiError& e, const Posted& posted) {
  nlohmann::ordered_json body{{"error", e.error}, {"message", e.message_in(request_language(req))}};
  if (!e.allowed.empty()) body["allowed"] = e.allowed;
  if (!posted.problems.is_null()) {
    body["problems"] = posted.problems;
    body["problems_total"] = posted.problems_total;
  }
  send_json(res, e.status, body);
  res.set_header("Vary", "Accept-Language");
}

}  // namespace

void scorecard_post(RouteContext& ctx, const httplib::Request& req, const std::string& body, httplib::Response& res) {
  if (auto e = check_known_params(req, {})) return send_api_error(req, res, *e);
  const Language language = request_language(req);
  Posted posted = read_design(body, ctx.app.policies(), language);
  if (posted.error) return send_with_problems(req, res, *posted.error, posted);
  const NamedPolicy* design = nullptr;
  for (const NamedPolicy& n : posted.policies->named)
    if (n.retry.mode == kDesignPolicyName) design = &n;
  nlohmann::ordered_json pipeline = pipeline_to_json(design->retry, design->breaker);
  const std::string& lab = ctx.app.name();
  SimulationRunner::Admission admission{};
  auto verdict = ctx.designs->judge(std::move(*posted.policies), ctx.asker, admission);
  if (admission != SimulationRunner::Admission::queued)
    return refuse_simulation(req, res, *ctx.simulations, admission);
  DesignJudge::Verdict v = verdict.get();
  if (!v.error.empty())
    return send_api_error(req, res, api_error(400, "design_failed", MessageId::design_failed, {{"why", v.error}}));
  v.card.policy = lab.empty() ? kDesignPolicyName : lab;
  LabDesign kept{.id = "", .pipeline = pipeline, .card = v.card, .submitted_at = ctx.app.clock().wall_now()};
  ctx.app.post_design(std::move(kept));
  // On disk before its student reads the answer: a crash right after it loses no design.
  ctx.labs.flush_state();
  const std::optional<LabDesign> stored = ctx.app.design();

  nlohmann::ordered_json answer{{"lab", lab.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(lab)}};
  answer["design"] = stored ? to_json(*stored) : nlohmann::ordered_json(nullptr);
  answer["design"].erase("scorecard");
  answer["scorecard"] = to_json(v.card, &v.legacy, &v.resilient);
  const MessageArgs scores{{"score", one_decimal(v.card.score, language)},
                           {"legacy", one_decimal(v.legacy.score, language)},
                           {"resilient", one_decimal(v.resilient.score, language)}};
  std::optional<int> place;
  const std::vector<DesignRow> rows = ctx.labs.class_designs();
  const std::size_t count = rows.size();
  for (const DesignRow& r : rows)
    if (r.lab == lab) place = r.place;
  answer["place"] = place ? nlohmann::ordered_json(*place) : nlohmann::ordered_json(nullptr);
  answer["designs"] = count;
  MessageArgs args = scores;
  if (place) {
    args.emplace_back("place", std::to_string(*place));
    args.emplace_back("count", std::to_string(count));
  }
  answer["message"] = message_text(place ? MessageId::design_scored : MessageId::design_scored_unranked, language, args);
  send_json(res, 200, answer);
  res.set_header("Vary", "Accept-Language");
}

void scorecard_get(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  if (auto e = check_known_params(req, {})) return send_api_error(req, res, *e);
  // The lab's design slot always answers: null until a design is posted, with what to do.
  const std::optional<LabDesign> d = ctx.app.design();
  const std::string& lab = ctx.app.name();
  nlohmann::ordered_json answer{{"lab", lab.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(lab)},
                                {"design", d ? to_json(*d) : nlohmann::ordered_json(nullptr)}};
  // The baselines beside it once this lab has judged one (GET /class's design_baselines).
  if (const auto b = d ? ctx.designs->baselines(true) : std::nullopt)
    answer["design"]["scorecard"]["against"] = {{"legacy", b->legacy}, {"resilient", b->resilient}};
  if (!d) answer["message"] = message_text(MessageId::no_design, request_language(req), {});
  send_json(res, 200, answer);
  res.set_header("Vary", "Accept-Language");
}

}  // namespace quote_lab::handlers
