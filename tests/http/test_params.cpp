#include <doctest/doctest.h>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "lab/formats/policy_json.hpp"
#include "lab/http/params.hpp"
#include "lab/http/policy_overrides.hpp"

namespace test_params {

using namespace quote_lab;

TEST_CASE("integer parameters: accepted values, default when absent") {
  int out = 0;
  const std::string ok = "50";
  CHECK_FALSE(parse_int_param("items", &ok, 1, 50, 3, out));
  CHECK(out == 50);
  CHECK_FALSE(parse_int_param("items", nullptr, 1, 50, 3, out));
  CHECK(out == 3);
}

TEST_CASE("bad integer parameters name the parameter and the range") {
  for (const char* raw : {"0", "51", "abc", "", "3.5", "+3", " 3", "3 ", "1e2", "99999999999999999999999", "-1"}) {
    CAPTURE(raw);
    int out = -7;
    const std::string text = raw;
    const auto e = parse_int_param("items", &text, 1, 50, 3, out);
    REQUIRE(e);
    CHECK(e->status == 400);
    CHECK(e->error == "invalid_parameter");
    CHECK(e->message.find("items must be an integer between 1 and 50") == 0);
    CHECK(out == -7);                                        // untouched on error
  }
}

TEST_CASE("the echoed value is short and printable") {
  int out = 0;
  const std::string nasty = std::string("\x01\x02") + std::string(500, 'x');
  const auto e = parse_int_param("customer_id", &nasty, 1, 5000, 42, out);
  REQUIRE(e);
  CHECK(e->message.size() < 120);
  CHECK(e->message.find('\x01') == std::string::npos);
}

namespace {
// A query-string lookup over a map, as the route gives it to apply_policy_overrides.
auto lookup_in(const std::map<std::string, std::string>& q) {
  return [&q](const char* n) -> const std::string* {
    const auto it = q.find(n);
    return it == q.end() ? nullptr : &it->second;
  };
}
}  // namespace

TEST_CASE("per-request policy overrides: valid values change only this request's policy") {
  std::map<std::string, std::string> q{{"timeout_ms", "300"}, {"max_attempts", "5"}, {"jitter", "full"}};
  const auto lookup = lookup_in(q);
  RetryPolicy p = default_policies().resilient;
  std::vector<std::string> changed;
  CHECK_FALSE(apply_policy_overrides(lookup, p, changed));
  CHECK(p.timeout_ms == 300);
  CHECK(p.max_attempts == 5);
  CHECK(p.jitter == Jitter::full);
  CHECK(p.backoff_base_ms == 80);
  CHECK(changed == std::vector<std::string>{"timeout_ms", "max_attempts", "jitter"});
}

TEST_CASE("per-request policy overrides keep a declared pipeline in line: without its breaker, it lists none") {
  std::map<std::string, std::string> q{{"circuit_breaker", "true"}, {"max_attempts", "3"}};
  const auto lookup = lookup_in(q);
  RetryPolicy p = hedged_policy().retry;  // fallback, retry (one attempt), hedging, timeout
  std::vector<std::string> changed;
  CHECK_FALSE(apply_policy_overrides(lookup, p, changed));
  CHECK(p.pipeline == std::vector<Strategy>{Strategy::fallback, Strategy::retry, Strategy::circuit_breaker,
                                                Strategy::hedging, Strategy::timeout});
  std::map<std::string, std::string> off{{"circuit_breaker", "false"}};
  const auto lookup_off = lookup_in(off);
  CHECK_FALSE(apply_policy_overrides(lookup_off, p, changed));
  CHECK(p.pipeline == std::vector<Strategy>{Strategy::fallback, Strategy::retry, Strategy::hedging, Strategy::timeout});
}

TEST_CASE("per-request policy overrides: bad values are 400s that name the parameter, and change nothing") {
  struct Row {
    const char* name;
    const char* value;
    const char* says;
  };
  for (const Row& r : {Row{"timeout_ms", "5", "timeout_ms must be an integer between 10 and 5000"},
                       Row{"max_attempts", "11", "max_attempts must be an integer between 1 and 10"},
                       Row{"backoff_base_ms", "-1", "backoff_base_ms must be an integer between 0 and 5000"},
                       Row{"jitter", "wild", "jitter must be one of"}}) {
    CAPTURE(r.name);
    std::map<std::string, std::string> q{{"timeout_ms", "300"}};
    q[r.name] = r.value;
    const auto lookup = lookup_in(q);
    RetryPolicy p = default_policies().resilient;
    std::vector<std::string> changed;
    const auto e = apply_policy_overrides(lookup, p, changed);
    REQUIRE(e);
    CHECK(e->status == 400);
    CHECK(e->message.find(r.says) != std::string::npos);
    CHECK(p.timeout_ms == 220);  // untouched
  }
}

TEST_CASE("every row of the override table is what the parser does: its bounds or choices accepted and changing the policy, one past them a 400 naming them") {
  REQUIRE(policy_overrides().size() == 9);
  for (const PolicyOverride& o : policy_overrides()) {
    CAPTURE(o.name);
    const std::string name(o.name);
    const auto apply = [&](const std::string& value, RetryPolicy& p) {
      std::map<std::string, std::string> q{{name, value}};
      std::vector<std::string> changed;
      auto e = apply_policy_overrides(lookup_in(q), p, changed);
      if (!e) CHECK(changed == std::vector<std::string>{name});
      return e;
    };
    std::vector<std::string> good, bad;
    if (o.kind == OverrideKind::choice) {
      good = o.choices;
      bad = {"maybe"};
    } else {
      const double step = o.kind == OverrideKind::integer ? 1 : 0.01;
      good = {bound_text(o.min), bound_text(o.max)};
      bad = {bound_text(o.min - step), bound_text(o.max + step), "x"};
    }
    for (const auto& value : good) {
      CAPTURE(value);
      RetryPolicy p = default_policies().resilient;
      // Short attempts, no waits: no accepted value takes the quote over its bound (that
      // refusal, quote_too_long, has its own case).
      p.timeout_ms = 10;
      p.max_attempts = 1;
      p.backoff_base_ms = 0;
      p.jitter = Jitter::none;
      REQUIRE_FALSE(apply(value, p));
      // The policy field of the same name now holds it (as the answer's `policy` shows).
      const nlohmann::ordered_json shown = to_json(p, true)[name];
      if (shown.is_boolean()) CHECK((shown.get<bool>() ? "true" : "false") == value);
      else if (shown.is_string()) CHECK(shown.get<std::string>() == value);
      else CHECK(shown.get<double>() == doctest::Approx(std::stod(value)));
    }
    for (const auto& value : bad) {
      CAPTURE(value);
      RetryPolicy p = default_policies().resilient;
      const auto e = apply(value, p);
      REQUIRE(e);
      CHECK(e->status == 400);
      CHECK(e->message.find(name) != std::string::npos);
      if (o.kind == OverrideKind::choice) CHECK(e->allowed == o.choices);
      else CHECK(e->message.find("between " + bound_text(o.min) + " and " + bound_text(o.max)) != std::string::npos);
    }
  }
}

TEST_CASE("a jitter override on legacy gets room to wait") {
  std::map<std::string, std::string> q{{"jitter", "full"}, {"backoff_base_ms", "100"}};
  const auto lookup = lookup_in(q);
  RetryPolicy p = default_policies().legacy;
  std::vector<std::string> changed;
  CHECK_FALSE(apply_policy_overrides(lookup, p, changed));
  CHECK(p.backoff_max_ms == 2000);
  CHECK(p.backoff_base_ms == 100);
}

TEST_CASE("query checks: unknown, repeated and malformed parameters are refused before any value is used") {
  const std::set<std::string> known{"limit"};
  CHECK_FALSE(check_query("/incidents?limit=5", {{"limit", "5"}}, known));
  CHECK_FALSE(check_query("/incidents", {}, known));
  const auto typo = check_query("/incidents?limt=5", {{"limt", "5"}}, known);
  REQUIRE(typo);
  CHECK(typo->error == "unknown_parameter");
  CHECK(typo->allowed == std::vector<std::string>{"limit"});
  CHECK(typo->message == "unknown query parameter 'limt'; did you mean 'limit'?");
  CHECK(typo->message_in(Language::es) == "parámetro de consulta desconocido: 'limt'; ¿quisiste decir 'limit'?");
  const auto far = check_query("/incidents?colour=red", {{"colour", "red"}}, known);
  REQUIRE(far);
  CHECK(far->message == "unknown query parameter 'colour'");  // no wild guess
  const auto twice = check_query("/incidents?limit=1&limit=2", {{"limit", "1"}, {"limit", "2"}}, known);
  REQUIRE(twice);
  CHECK(twice->message == "limit is given more than once");
  const auto shape = check_query("/incidents?limit=1=2", {{"limit", "1=2"}}, known);
  REQUIRE(shape);
  CHECK(shape->error == "malformed_query");
  CHECK(*find_param({{"limit", "7"}}, "limit") == "7");
  CHECK(find_param({}, "limit") == nullptr);
}

TEST_CASE("domain parameters take their name, range and default from domain.hpp") {
  int out = 0;
  CHECK_FALSE(parse_int_param(kCustomerId, nullptr, out));
  CHECK(out == 42);
  CHECK_FALSE(parse_int_param(kItems, nullptr, out));
  CHECK(out == 3);
  const std::string too_many = "201";
  const auto e = parse_int_param(kIncidentsLimit, &too_many, out);
  REQUIRE(e);
  CHECK(e->message.find("limit must be an integer between 1 and 200") == 0);
}

}  // namespace test_params
