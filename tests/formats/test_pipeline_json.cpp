// A policy written as a pipeline of strategies: it reads into the same policy as the flat
// keys, the policies that ship write as pipelines and read back to themselves, and every
// refusal names the policy, the index, the strategy or setting and what is allowed.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "lab/formats/pipeline_json.hpp"
#include "lab/formats/policy_json.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/strategies/strategy_table.hpp"
#include "tests/support/paths.hpp"

namespace test_pipeline_json {

using namespace quote_lab;
using json = nlohmann::ordered_json;

namespace {

Policies read(const char* text) { return policies_from_json(json::parse(text), default_policies()); }

// Everything a policy holds, as one value to compare: its keys, its strategies in order,
// their settings and its own breaker.
json whole(const RetryPolicy& p, const std::optional<BreakerPolicy>& own = std::nullopt) {
  json j = to_json(p, true);
  j["pipeline"] = pipeline_to_json(p, own);
  return j;
}

// The one problem a file has, as the PolicyError says it; "" when the file is accepted.
std::string refusal(const std::string& text) {
  try {
    policies_from_json(json::parse(text), default_policies());
  } catch (const PolicyError& e) {
    const std::string prefix = "invalid policies:\n  - ";
    const std::string what = e.what();
    return what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
  }
  return "";
}

const std::string kOneOf =
    " (one of: fallback, bulkhead, deadline, retry, retry_quota, circuit_breaker, adaptive_throttle, adaptive_retry, "
    "concurrency_limit, hedging, timeout)";
const std::string kRetryTakes =
    " (retry takes: max_attempts, backoff_base_ms, backoff_max_ms, jitter, jitter_min_ms, jitter_max_ms, retry_on, "
    "retry_budget_ratio, retry_budget_min_per_s, idempotency_key)";

// Policy "mine" as a pipeline of `first` (one strategy object, or several) then the timeout
// every pipeline ends with.
std::string first_then_timeout(const std::string& first) {
  return R"({"mine": {"pipeline": [)" + first + R"(, {"strategy": "timeout"}]}})";
}

}  // namespace

TEST_CASE("legacy, resilient and adr0005 written as pipelines read into the very policies their flat keys make") {
  const Policies flat = read(R"({
      "legacy": {"timeout_ms": 360, "max_attempts": 4, "backoff_base_ms": 0, "backoff_max_ms": 0, "jitter": "none",
                 "jitter_min_ms": 0, "jitter_max_ms": 0, "circuit_breaker": false, "fallback": false},
      "resilient": {"timeout_ms": 220, "max_attempts": 2, "backoff_base_ms": 80, "backoff_max_ms": 2000,
                    "jitter": "additive", "jitter_min_ms": 15, "jitter_max_ms": 45, "circuit_breaker": true,
                    "fallback": true},
      "adr0005": {"timeout_ms": 220, "max_attempts": 3, "backoff_base_ms": 200, "backoff_max_ms": 2000,
                  "jitter": "decorrelated", "jitter_min_ms": 0, "jitter_max_ms": 0, "circuit_breaker": true,
                  "fallback": true, "breaker": {"failure_threshold": 5, "open_duration_s": 30}}})");
  // As a teacher writes them: each strategy with the settings that differ from the defaults.
  const Policies piped = read(R"({
      "legacy": {"pipeline": [
          {"strategy": "retry", "max_attempts": 4, "backoff_base_ms": 0, "backoff_max_ms": 0, "jitter": "none",
           "jitter_min_ms": 0, "jitter_max_ms": 0},
          {"strategy": "timeout", "timeout_ms": 360}]},
      "resilient": {"pipeline": [
          {"strategy": "fallback"},
          {"strategy": "retry", "max_attempts": 2, "backoff_base_ms": 80, "jitter": "additive"},
          {"strategy": "circuit_breaker"},
          {"strategy": "timeout", "timeout_ms": 220}]},
      "adr0005": {"pipeline": [
          {"strategy": "fallback"},
          {"strategy": "retry", "max_attempts": 3, "backoff_base_ms": 200, "backoff_max_ms": 2000,
           "jitter": "decorrelated", "jitter_min_ms": 0, "jitter_max_ms": 0},
          {"strategy": "circuit_breaker", "failure_threshold": 5, "open_duration_s": 30},
          {"strategy": "timeout", "timeout_ms": 220}]}})");
  const Policies defaults = default_policies();
  CHECK(whole(piped.legacy) == whole(flat.legacy));
  CHECK(whole(piped.legacy) == whole(defaults.legacy));
  CHECK(whole(piped.resilient) == whole(flat.resilient));
  CHECK(whole(piped.resilient) == whole(defaults.resilient));
  const NamedPolicy& a = *piped.find_named("adr0005");
  CHECK(whole(a.retry, a.breaker) == whole(flat.find_named("adr0005")->retry, flat.find_named("adr0005")->breaker));
  CHECK(whole(a.retry, a.breaker) == whole(adr0005_policy().retry, adr0005_policy().breaker));
  CHECK(piped.legacy.pipeline == std::vector<Strategy>{Strategy::retry, Strategy::timeout});
  CHECK(a.retry.pipeline ==
        std::vector<Strategy>{Strategy::fallback, Strategy::retry, Strategy::circuit_breaker, Strategy::timeout});
}

TEST_CASE("a pipeline is the whole policy: a strategy left out is off, whatever the policy held before") {
  const Policies p = read(R"({"adr0005": {"pipeline": [{"strategy": "timeout", "timeout_ms": 300}]},
                              "resilient": {"pipeline": [{"strategy": "deadline", "deadline_ms": 900},
                                                         {"strategy": "timeout"}]}})");
  const NamedPolicy& a = *p.find_named("adr0005");
  CHECK(a.retry.timeout_ms == 300);
  CHECK(a.retry.max_attempts == 1);        // no retry: one attempt
  CHECK_FALSE(a.retry.uses(Strategy::fallback));           // no fallback: a 503 when it fails
  CHECK_FALSE(a.retry.uses(Strategy::circuit_breaker));    // no circuit_breaker: none asked
  CHECK_FALSE(a.breaker);                  // so no breaker of its own either
  CHECK(p.resilient.deadline_ms == 900);
  CHECK(p.resilient.timeout_ms == 220);    // a setting left out takes its default
  CHECK(p.legacy.timeout_ms == 360);       // a policy the file leaves out is as it was
}

TEST_CASE("the policies that ship write as pipelines and read back to themselves, setting for setting") {
  const Policies defaults = default_policies();
  const json file = to_json(defaults);
  Policies base = default_policies();
  base.named.clear();  // every named policy comes from the file alone
  const Policies back = policies_from_json(file, base);
  CHECK(to_json(back) == file);
  REQUIRE(back.names() == defaults.names());
  for (const auto& n : defaults.named) {
    CAPTURE(n.retry.mode);
    const NamedPolicy& b = *back.find_named(n.retry.mode);
    CHECK(whole(b.retry, b.breaker) == whole(n.retry, n.breaker));
    CHECK(b.retry.pipeline == n.retry.pipeline);
  }
  CHECK(file["bulkhead"]["pipeline"][0] ==
        json::parse(R"({"strategy": "bulkhead", "max_concurrent": 4, "max_queued": 0, "queue_timeout_ms": 0})"));
  CHECK(file["throttled"]["pipeline"][2] ==
        json::parse(R"({"strategy": "adaptive_throttle", "k": 1.5, "window_ms": 10000, "buckets": 40, "protection": 5})"));
  CHECK(file["hedged"]["pipeline"][2]["delay"]["percentile"] == 90.0);
  CHECK(file["hedged"]["pipeline"][2]["budget"] == json::parse(R"({"share": 0.15, "min_per_s": 1})"));
  CHECK(file["aws_adaptive"]["pipeline"][2] ==
        json::parse(R"({"strategy": "retry_quota", "capacity": 500, "retry_cost": 5, "timeout_retry_cost": 10,
                        "no_retry_increment": 1})"));
  CHECK(file["aws_adaptive"]["pipeline"][3] == json::parse(R"({"strategy": "adaptive_retry", "max_wait_ms": 1000})"));
  CHECK(file["adaptive_limit"]["pipeline"][2]["headroom"] == "sqrt_previous_limit");
}

TEST_CASE("every setting of every strategy survives a round trip, gates in the order the file lists them") {
  Policies p = default_policies();
  NamedPolicy custom{RetryPolicy{.mode = "custom"}, BreakerPolicy{.failure_threshold = 4, .open_duration_s = 2.5}};
  RetryPolicy& r = custom.retry;
  r.deadline_ms = 900;
  r.retry_budget_ratio = 0.2;
  r.idempotency_key = IdempotencyKey::per_attempt;
  r.retry_on = kRetryOn5xx | kRetryOnBadResponse;
  r.overload.bulkhead = BulkheadPolicy{.max_concurrent = 8, .max_queued = 3, .queue_timeout_ms = 250};
  r.overload.adaptive_throttle = AdaptiveThrottleSettings{.k = 2, .window_ms = 5000, .buckets = 20, .protection = 0};
  r.overload.adaptive_retry = AdaptiveRetryPolicy{.max_wait_ms = 400};
  r.overload.retry_quota = RetryQuotaSettings{.capacity = 40, .retry_cost = 3, .timeout_retry_cost = 7,
                                              .no_retry_increment = 2};
  GradientLimitSettings g;
  g.initial_limit = 10;
  g.buffer_pct = 0;
  g.headroom = GradientHeadroom::sqrt_scaled_limit;
  r.overload.concurrency_limit = g;
  HedgingPolicy h;
  h.delay.mode = HedgingDelayMode::fixed;
  h.delay.fixed_delay_ms = 120;
  h.budget = HedgeBudgetSettings{.share = 0.05, .min_per_s = 0};
  r.overload.hedging = h;
  r.pipeline = {Strategy::fallback,          Strategy::bulkhead,       Strategy::deadline,
                Strategy::retry,             Strategy::retry_quota,    Strategy::concurrency_limit, Strategy::adaptive_retry,
                Strategy::adaptive_throttle, Strategy::circuit_breaker, Strategy::hedging,
                Strategy::timeout};
  p.named.push_back(custom);
  REQUIRE(validate(p).empty());
  const Policies back = policies_from_json(to_json(p), default_policies());
  const NamedPolicy& b = *back.find_named("custom");
  CHECK(whole(b.retry, b.breaker) == whole(r, custom.breaker));
  CHECK(b.retry.pipeline == r.pipeline);  // the gates as listed, not in a canonical order
  CHECK(b.retry.overload.hedging.delay.mode == HedgingDelayMode::fixed);
  CHECK(b.retry.overload.concurrency_limit.headroom == GradientHeadroom::sqrt_scaled_limit);
  CHECK(b.breaker->open_duration_s == 2.5);
  CHECK(b.retry.overload.retry_quota.timeout_retry_cost == 7);
}

TEST_CASE("each setting a strategy refuses is named with the policy, the index, the strategy and what is allowed") {
  // One strategy with `settings`, first in mine's pipeline: its refusal starts
  // "mine.pipeline[0] (STRATEGY): ".
  struct Row {
    std::string strategy;
    std::string settings;
    std::string says;
  };
  for (const Row& row : {
           Row{"retry", R"("max_attempt": 3)",
               "unknown setting 'max_attempt'; did you mean 'max_attempts'?" + kRetryTakes},
           Row{"retry", R"("timeout_ms": 300)",
               "unknown setting 'timeout_ms', which belongs to 'timeout'" + kRetryTakes},
           Row{"fallback", R"("ttl_s": 60)", "unknown setting 'ttl_s' (fallback takes none)"},
           Row{"hedging", R"("delay": {"percentil": 95})",
               "delay: unknown setting 'percentil'; did you mean 'percentile'? (delay takes: fixed_delay_ms, "
               "percentile, window_samples, min_samples, mode)"},
           Row{"retry", R"("max_attempts": 0)", "max_attempts must be between 1 and 10 (got 0)"},
           Row{"retry", R"("max_attempts": 4294967298)", "max_attempts must be between 1 and 10 (got 4294967298)"},
           Row{"retry", R"("retry_budget_ratio": 2)", "retry_budget_ratio must be between 0 and 1 (got 2)"},
           Row{"retry", R"("jitter_min_ms": 50, "jitter_max_ms": 10)",
               "jitter_min_ms must not exceed jitter_max_ms (got 50 and 10)"},
           Row{"retry", R"("jitter": "wild")", R"(jitter must be one of: none, additive, full, equal, decorrelated (got "wild"))"},
           Row{"retry", R"("jitter": "ful")",
               R"(jitter must be one of: none, additive, full, equal, decorrelated (got "ful"); did you mean 'full'?)"},
           Row{"retry", R"("max_attempts": "3")", R"(max_attempts must be an integer between 1 and 10 (got "3"))"},
           Row{"deadline", "", "deadline_ms is required, between 1 and 60000"},
           Row{"deadline", R"("deadline_ms": 0)", "deadline_ms must be between 1 and 60000 (got 0)"},
           Row{"bulkhead", R"("max_concurrent": 0)", "max_concurrent must be between 1 and 1000 (got 0)"},
           Row{"bulkhead", R"("queue_timeout_ms": 6000)", "queue_timeout_ms must be between 0 and 5000 (got 6000)"},
           Row{"adaptive_throttle", R"("k": 0.5)", "k must be between 1 and 10 (got 0.5)"},
           Row{"adaptive_throttle", R"("buckets": 0)", "buckets must be between 1 and 1000 (got 0)"},
           Row{"adaptive_throttle", R"("window_ms": 500)", "window_ms must be between 1000 and 600000 (got 500)"},
           Row{"adaptive_throttle", R"("buckets": 30)", "window_ms must be a multiple of buckets (got 10000 and 30)"},
           Row{"adaptive_retry", R"("max_wait_ms": 6000)", "max_wait_ms must be between 0 and 5000 (got 6000)"},
           Row{"concurrency_limit", R"("max_limit": 2000)", "max_limit must be between 1 and 1000 (got 2000)"},
           Row{"concurrency_limit", R"("initial_limit": 2)",
               "initial_limit must be between min_concurrency and max_limit, 3 and 1000 (got 2)"},
           Row{"concurrency_limit", R"("headroom": "cube")",
               R"(headroom must be one of: sqrt_previous_limit, sqrt_scaled_limit (got "cube"))"},
           Row{"hedging", R"("budget": {"share": 1.5})", "budget.share must be between 0 and 1 (got 1.5)"},
           Row{"hedging", R"("delay": {"mode": "p95"})", R"(delay.mode must be one of: fixed, observed_percentile (got "p95"))"},
           Row{"hedging", R"("delay": {"mode": "fixd"})",
               R"(delay.mode must be one of: fixed, observed_percentile (got "fixd"); did you mean 'fixed'?)"},
           Row{"bulkhead", R"("max_queued": true)", "max_queued must be an integer between 0 and 1000 (got true)"},
           Row{"hedging", R"("delay": {"min_samples": 300})",
               "delay.min_samples must not exceed window_samples (got 300 and 200)"},
           Row{"circuit_breaker", R"("open_duration_s": 0)", "open_duration_s must be between 0.1 and 3600 (got 0)"},
       }) {
    const std::string settings = row.settings.empty() ? "" : ", " + row.settings;
    const std::string first = R"({"strategy": ")" + row.strategy + "\"" + settings + "}";
    SUBCASE(first.c_str()) {
      CHECK(refusal(first_then_timeout(first)) == "mine.pipeline[0] (" + row.strategy + "): " + row.says);
    }
  }
}

TEST_CASE("each refusal of a pipeline's shape names the policy, the index, the strategy and what is allowed") {
  struct Row {
    std::string file;
    std::string says;
  };
  for (const Row& row : {
           Row{first_then_timeout(R"({"strategy": "retyr"})"),
               "mine.pipeline[0]: unknown strategy 'retyr'; did you mean 'retry'?" + kOneOf},
           Row{first_then_timeout(R"({"strategy": "magic"})"), "mine.pipeline[0]: unknown strategy 'magic'" + kOneOf},
           Row{first_then_timeout(R"({"max_attempts": 2})"), "mine.pipeline[0]: \"strategy\" is missing" + kOneOf},
           Row{first_then_timeout(R"("retry")"),
               "mine.pipeline[0] must be an object {\"strategy\": NAME, its settings}" + kOneOf},
           Row{R"({"mine": {"pipeline": {"strategy": "timeout"}}})",
               "mine.pipeline must be a list of {\"strategy\": NAME, its settings}, outermost first"},
           Row{R"({"mine": {"pipeline": [{"strategy": "timeout", "timeout_ms": 5}]}})",
               "mine.pipeline[0] (timeout): timeout_ms must be between 10 and 10000 (got 5)"},
           Row{R"({"resilient": {"pipeline": [{"strategy": "circuit_breaker", "failure_threshold": 3},
                                               {"strategy": "timeout"}]}})",
               "resilient.pipeline[0] (circuit_breaker): failure_threshold and open_duration_s give a named policy a "
               "breaker of its own; legacy and resilient share the course breaker, the top-level \"breaker\""},
           Row{first_then_timeout(R"({"strategy": "retry"}, {"strategy": "retry"})"),
               "mine.pipeline[1] (retry): 'retry' is listed twice"},
           Row{first_then_timeout(R"({"strategy": "circuit_breaker"}, {"strategy": "adaptive_throttle"})"),
               "mine.pipeline[1] (adaptive_throttle): 'adaptive_throttle' must come before 'circuit_breaker': the "
               "breaker records every call it lets through, and 'adaptive_throttle' inside it could end one with no "
               "answer from the carrier (a half-open probe never recorded)"},
           Row{first_then_timeout(R"({"strategy": "circuit_breaker"}, {"strategy": "fallback"})"),
               "mine.pipeline[1] (fallback): 'fallback' must come before 'circuit_breaker': the breaker records every "
               "call it lets through, and 'fallback' inside it could end one with no answer from the carrier (a "
               "half-open probe never recorded)"},
           Row{R"({"mine": {"pipeline": [{"strategy": "timeout"}, {"strategy": "hedging"}]}})",
               "mine.pipeline[1] (hedging): 'hedging' must come before 'timeout': 'timeout' is the call itself, so it "
               "comes last"},
           Row{first_then_timeout(R"({"strategy": "hedging"}, {"strategy": "circuit_breaker"})"),
               "mine.pipeline[1] (circuit_breaker): 'circuit_breaker' must come before 'hedging': hedging sends its "
               "copy through the call itself, so a strategy between them would run once for two calls (a half-open "
               "breaker would let both through)"},
           Row{first_then_timeout(R"({"strategy": "retry"}, {"strategy": "retry_quota", "capacity": -1})"),
               "mine.pipeline[1] (retry_quota): capacity must be between 0 and 100000 (got -1)"},
           Row{first_then_timeout(R"({"strategy": "retry"}, {"strategy": "retry_quota", "retry_costs": 5})"),
               "mine.pipeline[1] (retry_quota): unknown setting 'retry_costs'; did you mean 'retry_cost'? (retry_quota "
               "takes: capacity, retry_cost, timeout_retry_cost, no_retry_increment)"},
           Row{first_then_timeout(R"({"strategy": "retry_quota"})"),
               "mine.pipeline[0] (retry_quota): 'retry_quota' must come after 'retry': it pays for the retries of the "
               "retry outside it"},
           Row{R"({"mine": {"pipeline": [{"strategy": "fallback"}, {"strategy": "retry"}]}})",
               "mine.pipeline: 'timeout' is missing: every pipeline ends with {\"strategy\": \"timeout\", "
               "\"timeout_ms\": 10-10000}"},
           Row{R"({"mine": {"max_attempts": 4, "pipeline": [{"strategy": "retry", "max_attempts": 3},
                                                             {"strategy": "timeout"}]}})",
               "mine.max_attempts is 4 beside a pipeline that says 3: write each setting once, in its strategy"},
       }) {
    SUBCASE(row.says.c_str()) { CHECK(refusal(row.file) == row.says); }
  }
}

TEST_CASE("a file with several problems in its pipelines reports them all at once") {
  const std::string says = refusal(R"({
      "a": {"pipeline": [{"strategy": "retyr"}, {"strategy": "timeout"}]},
      "b": {"pipeline": [{"strategy": "circuit_breaker"}, {"strategy": "bulkhead", "max_concurrent": 0}]}})");
  CHECK(says.find("a.pipeline[0]: unknown strategy 'retyr'") != std::string::npos);
  CHECK(says.find("b.pipeline[1] (bulkhead): max_concurrent must be between 1 and 1000 (got 0)") != std::string::npos);
  CHECK(says.find("b.pipeline[1] (bulkhead): 'bulkhead' must come before 'circuit_breaker'") != std::string::npos);
  CHECK(says.find("b.pipeline: 'timeout' is missing") != std::string::npos);
}

TEST_CASE("a pipeline with several strategies out of place names each of them, and each once") {
  const std::string says = refusal(R"({"mine": {"pipeline": [
      {"strategy": "timeout"}, {"strategy": "retry"}, {"strategy": "retry"}, {"strategy": "circuit_breaker"},
      {"strategy": "fallback"}]}})");
  CHECK(says.find("mine.pipeline[1] (retry): 'retry' must come before 'timeout'") != std::string::npos);
  CHECK(says.find("mine.pipeline[2] (retry): 'retry' must come before 'timeout'") != std::string::npos);
  CHECK(says.find("mine.pipeline[3] (circuit_breaker): 'circuit_breaker' must come before 'timeout'") !=
        std::string::npos);
  CHECK(says.find("mine.pipeline[4] (fallback): 'fallback' must come before 'timeout'") != std::string::npos);
  CHECK(says.find("mine.pipeline[0]") == std::string::npos);  // timeout itself is where it may be, first
  // A strategy listed twice in an order that otherwise runs: the second is the one named.
  const std::string twice = refusal(R"({"mine": {"pipeline": [
      {"strategy": "retry"}, {"strategy": "retry"}, {"strategy": "timeout"}]}})");
  CHECK(twice.find("mine.pipeline[1] (retry): 'retry' is listed twice") != std::string::npos);
  CHECK(twice.find("mine.pipeline[0]") == std::string::npos);
  CHECK(twice.find("mine.pipeline[2]") == std::string::npos);
}

TEST_CASE("a flat overlay on a policy that ships as a pipeline keeps its pipeline in line with its keys") {
  const Policies p = read(R"({"throttled": {"fallback": false, "circuit_breaker": true, "deadline_ms": 800}})");
  const RetryPolicy& t = *p.find("throttled");
  CHECK(t.pipeline == std::vector<Strategy>{Strategy::deadline, Strategy::retry, Strategy::adaptive_throttle,
                                                Strategy::circuit_breaker, Strategy::timeout});
}

TEST_CASE("GET /'s strategies: every setting with its range, default, es/en text and source, and an entry written from them reads back") {
  const json strategies = strategies_to_json();
  REQUIRE(strategies.size() == strategy_names().size());
  json policies = json::object();
  for (const json& st : strategies) {
    const std::string name = st["name"];
    CAPTURE(name);
    CHECK_FALSE(st["term"]["es"].get<std::string>().empty());
    CHECK_FALSE(st["description"]["en"].get<std::string>().empty());
    CHECK_FALSE(st["source"].get<std::string>().empty());
    // The entry a student would write from the index: every setting at its default (a null
    // default, deadline_ms's "none", at its least).
    json entry = {{"strategy", name}};
    for (const json& setting : st["settings"]) {
      const std::string key = setting["name"];
      CAPTURE(key);
      CHECK_FALSE(setting["description"]["es"].get<std::string>().empty());
      CHECK_FALSE(setting["source"].get<std::string>().empty());
      json value = setting["default"];
      if (setting.contains("choices")) {
        const json& choices = setting["choices"];
        for (const json& v : value.is_array() ? value : json::array({value}))
          CHECK(std::find(choices.begin(), choices.end(), v) != choices.end());
      } else if (!value.is_null()) {
        CHECK(value.get<double>() >= setting["min"].get<double>());
        CHECK(value.get<double>() <= setting["max"].get<double>());
      } else if (key == "deadline_ms") {
        value = setting["min"];
      }
      const auto dot = key.find('.');
      if (dot == std::string::npos) entry[key] = value;
      else entry[key.substr(0, dot)][key.substr(dot + 1)] = value;
    }
    json pipeline = json::array({entry});
    if (name == "retry_quota") pipeline.insert(pipeline.begin(), json{{"strategy", "retry"}});
    if (name != "timeout") pipeline.push_back({{"strategy", "timeout"}});
    policies["with_" + name] = {{"pipeline", pipeline}};
  }
  CHECK(refusal(policies.dump()) == "");
  const Policies read_back = policies_from_json(policies, default_policies());
  CHECK(read_back.find("with_retry_quota")->overload.retry_quota.capacity == 500);
  CHECK(read_back.find_named("with_circuit_breaker")->breaker->failure_threshold == 2);
  // One row as a student reads it.
  const json& quota = strategies[static_cast<std::size_t>(Strategy::retry_quota)];
  CHECK(quota["term"] == json{{"es", "cuota de reintentos"}, {"en", "retry quota"}});
  CHECK(quota["settings"][0] == json::parse(R"({"name": "capacity", "min": 0, "max": 100000, "default": 500,
      "description": {"es": "unidades de la cuota al empezar, y su máximo", "en": "the quota's units at the start, and its most"},
      "source": "botocore retries/quota.py"})"));
}

TEST_CASE("GET /'s strategies say how the panel shows each live figure: a caption in both languages, against one of its own settings") {
  std::set<std::string> families;
  for (const json& st : strategies_to_json()) {
    const std::string name = st["name"];
    CAPTURE(name);
    std::set<std::string> settings;
    for (const json& setting : st["settings"]) settings.insert(setting["name"].get<std::string>());
    for (const json& g : st["gauges"]) {
      const std::string family = g["family"];
      CAPTURE(family);
      CHECK(families.insert(family).second);  // one strategy's, once
      CHECK(family.rfind("quote_lab_", 0) == 0);
      CHECK_FALSE(g["label"]["es"].get<std::string>().empty());
      CHECK_FALSE(g["label"]["en"].get<std::string>().empty());
      const std::set<std::string> shows{"count", "percent", "milliseconds", "per_second"};
      CHECK(shows.count(g["shows"].get<std::string>()) == 1);
      if (g.contains("out_of")) CHECK(settings.count(g["out_of"].get<std::string>()) == 1);
    }
    // A strategy that refuses names the reason its refusals are counted by.
    if (!st["rejects"].is_null()) CHECK(parse_reason(st["rejects"].get<std::string>()).has_value());
  }
  // Every gauge a strategy's state shows is described, and nothing else.
  std::set<std::string> shown;
  for (const GaugeFamily* f : strategy_gauge_families()) shown.insert(std::string(f->name));
  CHECK(families == shown);
  // Two rows as the panel reads them.
  const json strategies = strategies_to_json();
  const json& bulkhead = strategies[static_cast<std::size_t>(Strategy::bulkhead)];
  CHECK(bulkhead["rejects"] == "bulkhead_full");
  CHECK(bulkhead["gauges"][0] == json::parse(R"({"family": "quote_lab_bulkhead_active",
      "label": {"es": "cotizaciones dentro del mamparo", "en": "quotes inside the bulkhead"},
      "shows": "count", "settles": true, "out_of": "max_concurrent"})"));
  const json& rate = strategies[static_cast<std::size_t>(Strategy::adaptive_retry)]["gauges"][0];
  CHECK(rate["shows"] == "per_second");
  CHECK(rate["before_first"]["es"] == "sin límite (ningún 429 todavía)");
  CHECK(strategies[static_cast<std::size_t>(Strategy::hedging)]["hedges"] == true);
  CHECK(strategies[static_cast<std::size_t>(Strategy::retry)]["gauges"] == json::array());
}

TEST_CASE("docs/policies.md's settings tables say what GET / says: each overload setting, its range and its default") {
  std::map<std::string, json> shown;  // "bulkhead.max_queued" → its row in GET /
  for (const json& st : strategies_to_json())
    for (const json& setting : st["settings"]) shown[st["name"].get<std::string>() + "." + setting["name"].get<std::string>()] = setting;
  std::ifstream in(std::filesystem::path(quote_lab::testing::source_dir()) / "docs" / "policies.md");
  REQUIRE(in);
  const std::regex heading(R"(^\*\*`(\w+)`\*\*)");
  const std::regex row(R"(^\| `([\w.]+)` \| ([^|]+) \| ([^|]+) \|)");
  const std::regex plain_range(R"(^(\d+(?:\.\d+)?)–(\d+(?:\.\d+)?)(?:,.*)?$)");
  std::string strategy;
  std::set<std::string> documented;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line.rfind("#", 0) == 0) strategy.clear();  // a new section: no strategy's table
    if (std::regex_search(line, m, heading)) strategy = m[1];
    if (strategy.empty() || !std::regex_search(line, m, row) || m[1] == "setting") continue;
    const std::string key = strategy + "." + m[1].str();
    CAPTURE(key);
    REQUIRE(shown.count(key) == 1);
    documented.insert(key);
    const json& s = shown[key];
    std::string range = m[2], fallback = m[3];
    std::erase(fallback, '`');
    if (s.contains("choices")) {
      CHECK(s["default"] == fallback);
      continue;
    }
    CHECK(s["default"].get<double>() == std::stod(fallback));
    std::smatch r;
    if (std::regex_match(range, r, plain_range)) {
      CHECK(s["min"].get<double>() == std::stod(r[1]));
      CHECK(s["max"].get<double>() == std::stod(r[2]));
    }
  }
  for (const char* strategy : {"bulkhead", "retry_quota", "adaptive_throttle", "adaptive_retry", "concurrency_limit", "hedging"})
    for (const auto& [key, _] : shown)
      if (key.rfind(std::string(strategy) + ".", 0) == 0) CHECK_MESSAGE(documented.count(key) == 1, key << " has no row");
}

}  // namespace test_pipeline_json
