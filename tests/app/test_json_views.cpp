// The JSON renderings of lab/app/json_views.hpp that the HTTP tests cannot reach with the
// default policies.
#include <doctest/doctest.h>

#include "lab/app/json_views.hpp"

namespace test_json_views {

using namespace quote_lab;

TEST_CASE("policy_note says which protections a policy has, from its flags, never from its mode's name alone") {
  const Policies p = default_policies();
  CHECK(policy_note(p.legacy) ==
        "legacy has no circuit breaker and no fallback: `dependency` shows the carrier's circuit breaker that "
        "resilient requests share; this request neither asked it nor changed it");
  CHECK(policy_note(p.resilient) ==
        "resilient asks the carrier's circuit breaker (`dependency`) before every attempt and serves the last good "
        "quote when every attempt fails");
  RetryPolicy breaker_only = p.resilient;
  breaker_only.fallback = false;
  CHECK(policy_note(breaker_only) ==
        "resilient asks the carrier's circuit breaker (`dependency`) before every attempt and has no fallback: when "
        "every attempt fails the answer is a 503");
  RetryPolicy fallback_only = p.legacy;
  fallback_only.fallback = true;
  CHECK(policy_note(fallback_only).find("legacy has no circuit breaker but serves the last good quote") == 0);
  CHECK(policy_note(fallback_only).find("neither asked it nor changed it") != std::string::npos);
}

}  // namespace test_json_views
