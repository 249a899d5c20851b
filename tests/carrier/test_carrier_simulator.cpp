#include <doctest/doctest.h>

#include "lab/carrier/carrier_simulator.hpp"
#include "lab/resilience/pricing.hpp"
#include "support/paths.hpp"

namespace test_carrier_simulator {

using namespace quote_lab;

namespace {
const ScenarioCatalog& shipped() {
  static const ScenarioCatalog c = ScenarioCatalog::load_dir(std::filesystem::path(quote_lab::testing::source_dir()) / "scenarios");
  return c;
}
}  // namespace

TEST_CASE("the carrier counts attempts per Idempotency-Key") {
  RandomSource random(3);
  CarrierSimulator carrier(shipped(), random);
  auto first = carrier.plan("burst", "req-A");
  auto other = carrier.plan("burst", "req-B");
  auto second = carrier.plan("burst", "req-A");
  auto third = carrier.plan("burst", "req-A");
  REQUIRE((first && other && second && third));
  CHECK(first->attempt == 1);
  CHECK(other->attempt == 1);
  CHECK(second->attempt == 2);
  CHECK(third->attempt == 3);
  CHECK(first->delay.count() >= 500);                      // attempts 1-2 are slow
  CHECK(third->delay.count() <= 180);                      // attempt 3 recovers
  CHECK(first->scenario->name == "burst_then_recover");    // aliases resolve to the canonical name
}

TEST_CASE("without an Idempotency-Key every call is a first attempt") {
  RandomSource random(3);
  CarrierSimulator carrier(shipped(), random);
  CHECK(carrier.plan("flaky", "")->attempt == 1);
  CHECK(carrier.plan("flaky", "")->attempt == 1);
}

TEST_CASE("the mode plays for requests that name no scenario, and can be changed") {
  RandomSource random(3);
  CarrierSimulator carrier(shipped(), random);
  CHECK(carrier.mode() == "ok");
  CHECK(carrier.plan("", "k1")->scenario->name == "ok");
  CHECK(carrier.set_mode("down"));
  CHECK(carrier.mode() == "provider_down");
  CHECK(carrier.plan("", "k2")->behaviour.kind == AttemptBehaviour::Kind::timeout);
  CHECK_FALSE(carrier.set_mode("nope"));
  CHECK_FALSE(carrier.plan("nope", "k3").has_value());
  carrier.reset();
  CHECK(carrier.mode() == "ok");
}

TEST_CASE("stats: calls by scenario, in flight and its peak") {
  RandomSource random(3);
  CarrierSimulator carrier(shipped(), random);
  carrier.plan("ok", "a");
  carrier.plan("down", "b");
  carrier.plan("down", "b");
  carrier.begin_call();
  carrier.begin_call();
  carrier.end_call();
  const auto s = carrier.stats();
  CHECK(s.calls_total == 3);
  CHECK(s.calls_by_scenario.at("ok") == 1);
  CHECK(s.calls_by_scenario.at("provider_down") == 2);
  CHECK(s.calls_by_scenario.at("slow_provider") == 0);     // every scenario is listed
  CHECK(s.in_flight == 1);
  CHECK(s.peak_in_flight == 2);
}

TEST_CASE("attempt memory is bounded") {
  RandomSource random(3);
  CarrierSimulator carrier(shipped(), random);
  carrier.plan("ok", "oldest");
  for (std::size_t i = 0; i < CarrierSimulator::kMaxTrackedRequests; ++i) carrier.plan("ok", "k" + std::to_string(i));
  CHECK(carrier.plan("ok", "oldest")->attempt == 1);       // forgotten, so counted afresh
}

TEST_CASE("every priced quote gets its own id, even for the same customer, items and time") {
  const WallTime t0 = WallTime(std::chrono::seconds(1'800'000'000));
  RandomSource random(3);
  CarrierSimulator carrier(shipped(), random);
  const Quote a = carrier.price(42, 3, t0);
  const Quote b = carrier.price(42, 3, t0);
  CHECK(a.quote_id != b.quote_id);
  CHECK(a.amount == price_quote_usd(42, 3, t0));  // the amount is pricing.hpp's (tests/resilience/test_pricing.cpp)
}

}  // namespace test_carrier_simulator
