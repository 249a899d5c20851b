// The breaker's transition table (support/breaker_transition_table.hpp) against the local
// CircuitBreaker on a fake clock. The same rows run against the Redis store in
// shared_state/test_breaker_transition_table_redis.cpp.
#include <doctest/doctest.h>

#include <optional>

#include "lab/resilience/circuit_breaker.hpp"
#include "support/breaker_transition_table.hpp"
#include "support/fake_clock.hpp"

namespace test_breaker_transition_table {

using namespace quote_lab;
using namespace quote_lab::testing;

namespace {

class LocalBreaker final : public BreakerDriver {
 public:
  std::string acquire() override {
    const Admission a = breaker_.try_acquire();
    if (a.permit) {
      permit_ = a.permit;
      return a.permit->probe ? "probe" : "call";
    }
    return a.refusal == Reason::probe_in_flight ? "probe_busy" : "open";
  }
  void record(bool failure) override { report(permit_, failure); }
  void end_cooldown() override { clock_.advance(std::chrono::seconds(30)); }
  void expire_probe() override { clock_.advance(std::chrono::seconds(30)); }
  void reset() override { breaker_.reset(); }
  void hold() override { held_ = permit_; }
  void record_held(bool failure) override { report(held_, failure); }
  std::string state() override { return std::string(to_string(breaker_.snapshot().state)); }
  int failures() override { return breaker_.snapshot().consecutive_failures; }

 private:
  void report(const std::optional<BreakerPermit>& permit, bool failure) {
    REQUIRE(permit.has_value());
    breaker_.record(*permit, failure, failure ? "timeout" : "success", 10);
  }
  FakeClock clock_;
  CircuitBreaker breaker_{"carrier", BreakerPolicy{.failure_threshold = kTableThreshold, .open_duration_s = 30}, clock_};
  std::optional<BreakerPermit> permit_, held_;
};

}  // namespace

TEST_CASE("breaker_transition_table: the local breaker") {
  run_transition_table([] { return std::make_unique<LocalBreaker>(); });
}

}  // namespace test_breaker_transition_table
