// The flow guards: each strategy's slot holds what that strategy lent, read as the type it
// was lent as, and nothing for a strategy that lent nothing.
#include <doctest/doctest.h>

#include <stdexcept>

#include "lab/resilience/flow_guards.hpp"
#include "lab/resilience/retry_quota.hpp"

namespace test_flow_guards {

using namespace quote_lab;

TEST_CASE("a strategy finds what it lent in its own slot, and nothing in another's") {
  RetryQuota quota(RetryQuotaSettings{});
  const FlowGuards guards = FlowGuards{}.lend(Strategy::retry_quota, &quota);
  CHECK(guards.held<RetryQuota>(Strategy::retry_quota) == &quota);
  CHECK(guards.held<RetryQuota>(Strategy::bulkhead) == nullptr);
  CHECK(FlowGuards{}.held<RetryQuota>(Strategy::retry_quota) == nullptr);
}

TEST_CASE("a slot read as another type than it was lent as is a bug, refused loudly") {
  RetryQuota quota(RetryQuotaSettings{});
  const FlowGuards guards = FlowGuards{}.lend(Strategy::retry_quota, &quota);
  CHECK_THROWS_AS(guards.held<int>(Strategy::retry_quota), std::logic_error);
}

}  // namespace test_flow_guards
