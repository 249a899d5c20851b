// The breaker's transition table (support/breaker_transition_table.hpp) against the local
// CircuitBreaker on a fake clock. The same rows run against the Redis store in
// shared_state/test_breaker_transition_table_redis.cpp.
#include <doctest/doctest.h>

#include "lab/resilience/circuit_breaker.hpp"
#include "support/breaker_transition_table.hpp"
#include "support/fake_clock.hpp"

namespace test_breaker_transition_table {

using namespace quote_lab;
using namespace quote_lab::testing;

namespace {

class LocalBreaker final : public BreakerInterfaceDriver {
 public:
  void end_cooldown() override { clock_.advance(std::chrono::seconds(30)); }
  void expire_probe() override { clock_.advance(std::chrono::seconds(30)); }

 private:
  Breaker& breaker() override { return breaker_; }
  FakeClock clock_;
  CircuitBreaker breaker_{"carrier", BreakerPolicy{.failure_threshold = kTableThreshold, .open_duration_s = 30}, clock_};
};

}  // namespace

TEST_CASE("breaker_transition_table: the local breaker") {
  run_transition_table([] { return std::make_unique<LocalBreaker>(); });
}

}  // namespace test_breaker_transition_table
