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

TEST_CASE("stats_for: each lab's calls, bookings and drops count apart, and stats() adds them up") {
  RandomSource random(3);
  CarrierSimulator carrier(shipped(), random);
  const WallTime t0 = WallTime(std::chrono::seconds(1'800'000'000));
  auto ana = carrier.plan("ok", CallerIds{"t-ana", "k-ana", "ana"});
  carrier.plan("down", CallerIds{"t-beto", "k-beto", "beto"});
  carrier.plan("down", CallerIds{"t-beto", "k-beto", "beto"});
  REQUIRE(ana);
  carrier.begin_call(*ana);
  carrier.book(42, 3, CallerIds{"t-ana", "k-ana", "ana"}, t0, SteadyTime{});
  carrier.book(42, 3, CallerIds{"t-ana", "k-ana", "ana"}, t0, SteadyTime{});  // the same key: a replay
  carrier.end_call(*ana, true, Millis(200));
  carrier.count_deadline_drop("beto");

  const auto a = carrier.stats_for("ana");
  CHECK(a.calls_total == 1);
  CHECK(a.calls_by_scenario.at("ok") == 1);
  CHECK(a.calls_by_scenario.at("provider_down") == 0);
  CHECK(a.bookings == 1);
  CHECK(a.idempotent_replays == 1);
  CHECK(a.wasted_calls == 1);
  CHECK(a.peak_in_flight == 1);
  CHECK(a.in_flight == 0);
  CHECK(a.deadline_dropped == 0);
  const auto b = carrier.stats_for("beto");
  CHECK(b.calls_total == 2);
  CHECK(b.calls_by_scenario.at("provider_down") == 2);
  CHECK(b.bookings == 0);
  CHECK(b.deadline_dropped == 1);
  CHECK(b.shed_calls.size() == a.shed_calls.size());  // every reason listed, at 0
  const auto nobody = carrier.stats_for("carla");
  CHECK(nobody.calls_total == 0);
  CHECK(nobody.calls_by_scenario.at("ok") == 0);
  const auto all = carrier.stats();
  CHECK(all.calls_total == 3);
  CHECK(all.bookings == 1);
  CHECK(all.idempotent_replays == 1);
  CHECK(all.deadline_dropped == 1);

  carrier.reset_counts("beto");  // beto's reset: ana's counts and the carrier's stay
  CHECK(carrier.stats_for("beto").calls_total == 0);
  CHECK(carrier.stats_for("ana").calls_total == 1);
  CHECK(carrier.stats().calls_total == 3);
  carrier.reset();  // the class's carrier: everyone's
  CHECK(carrier.stats_for("ana").calls_total == 0);
  CHECK(carrier.stats().calls_total == 0);
}

TEST_CASE("the labs counted one by one are bounded, and the carrier still counts every call") {
  RandomSource random(3);
  CarrierSimulator carrier(shipped(), random);
  for (std::size_t i = 0; i < CarrierSimulator::kMaxCountedLabs; ++i)
    carrier.plan("ok", CallerIds{{}, {}, "lab" + std::to_string(i)});
  carrier.plan("ok", CallerIds{{}, {}, "one-too-many"});
  CHECK(carrier.stats_for("one-too-many").calls_total == 0);
  CHECK(carrier.stats_for("lab0").calls_total == 1);
  CHECK(carrier.stats().calls_total == CarrierSimulator::kMaxCountedLabs + 1);
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
