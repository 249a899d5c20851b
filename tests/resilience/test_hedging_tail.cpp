// The hedged policy's figure, in simulated time: on the tail_latency carrier (its own scenario
// file, a seeded draw per call) the lab's executor, hedging delay and hedge budget run 100,000
// quotes on a fake clock, exact for a seed. Dean and Barroso ("The Tail at Scale", CACM 2013)
// hedge after the p95 for a few % more requests; the shipped policy hedges after the learnt
// p90, for at most 12 % more carrier calls. A real-time storm of 2,500 quotes cannot judge a
// figure to the point: the p99 of 2,500 draws of this table moves by about +120 ms (one
// standard error above its 900 ms, where the table's density is 1/60 of what it is below), so
// its process test (test_overload_storms.py) checks only that hedging cuts the tail live.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "lab/base/random.hpp"
#include "lab/carrier/scenario.hpp"
#include "lab/resilience/overload/hedge_budget.hpp"
#include "lab/resilience/overload/hedged_call.hpp"
#include "lab/resilience/overload/hedging_delay.hpp"
#include "lab/resilience/policy.hpp"
#include "support/executor_rig.hpp"
#include "support/paths.hpp"

namespace test_hedging_tail {

using namespace quote_lab;
using namespace quote_lab::testing;

namespace {

constexpr int kQuotes = 100000;

const AttemptBehaviour& tail_latency() {
  static const ScenarioCatalog catalog =
      ScenarioCatalog::load_dir(std::filesystem::path(source_dir()) / "scenarios");
  return catalog.find("tail_latency")->behaviour_for(1);
}

// The carrier's calls in simulated time: each draws its latency from the scenario's table;
// the fake clock moves by what the quote waited (the first answer, or the request's timeout).
class SimulatedHedger final : public HedgedCaller {
 public:
  SimulatedHedger(FakeClock& clock, std::uint64_t seed) : clock_(clock), random_(seed) {}

  Result call(const CarrierRequest& request, Millis delay, const std::function<bool()>& may_hedge,
              std::function<void(double)> first_took_ms) override {
    const int first = draw_latency_ms(tail_latency(), random_.uniform());
    ++calls_;
    Result r;
    double answered = first;
    if (first > delay.count()) {
      r.delay_ms = static_cast<double>(delay.count());
      if (may_hedge()) {
        ++calls_;
        const double hedge = static_cast<double>(delay.count()) + draw_latency_ms(tail_latency(), random_.uniform());
        r.hedged = true;
        r.hedge_won = hedge < first;
        answered = std::min<double>(first, hedge);
      } else {
        r.hedge_refused = true;
      }
    }
    const double waited = std::min<double>(answered, static_cast<double>(request.timeout.count()));
    clock_.advance(Millis(static_cast<long long>(waited)));
    if (first_took_ms) first_took_ms(first);
    r.outcome = answered <= static_cast<double>(request.timeout.count())
                    ? CallOutcome{.error = CallError::none, .http_status = 200, .elapsed_ms = answered,
                                  .quote = Quote{"Q-sim", 10, "USD", {}}}
                    : CallOutcome{.error = CallError::timeout, .elapsed_ms = waited};
    return r;
  }
  int calls() const { return calls_; }

 private:
  FakeClock& clock_;
  RandomSource random_;
  int calls_ = 0;
};

struct Run {
  double p99_ms = 0;
  int calls = 0;
};

double p99(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return ms[static_cast<std::size_t>(0.99 * static_cast<double>(ms.size() - 1))];
}

QuoteRequest request() { return QuoteRequest{"hedged", "tail_latency", 42, 3, "r", "t", "", Priority::critical}; }

// The shipped hedged policy, its delay learnt (or `fixed`) and its budget, over kQuotes quotes.
Run run(std::uint64_t seed, HedgingDelayMode mode) {
  ExecutorRig rig;
  const RetryPolicy policy = hedged_policy().retry;
  HedgeBudget budget(rig.clock, policy.overload.hedging.budget);
  HedgingDelaySettings settings = policy.overload.hedging.delay;
  settings.mode = mode;
  HedgingDelay delay(settings);
  SimulatedHedger hedger(rig.clock, seed);
  HedgingTools tools{&hedger, &budget, &delay};
  std::vector<double> elapsed;
  elapsed.reserve(kQuotes);
  for (int i = 0; i < kQuotes; ++i) {
    const QuoteTrace t =
        rig.executor.run(request(), policy, FlowGuards{}.lend(Strategy::hedging, &tools));
    REQUIRE(t.status == QuoteStatus::completed);
    elapsed.push_back(t.elapsed_ms);
  }
  return {p99(elapsed), hedger.calls()};
}

// One attempt that waits (timeout 1500 ms, no hedge) has the carrier's own p99: the table's.
double waits_p99_ms() {
  const auto& table = tail_latency().latency_table;
  return std::find_if(table.begin(), table.end(), [](const LatencyPoint& p) { return p.fraction >= 0.99; })->ms;
}

}  // namespace

TEST_CASE("hedged on tail_latency in simulated time: the quote p99 at least 34 % under one attempt that waits, for at most 12 % more carrier calls") {
  REQUIRE(waits_p99_ms() == 900);
  for (const std::uint64_t seed : {1u, 2u}) {
    CAPTURE(seed);
    const Run hedged = run(seed, HedgingDelayMode::observed_percentile);
    CAPTURE(hedged.p99_ms);
    // Measured: 588 and 589 ms (34.6 %). The p90 it learns sits where the table's density
    // falls 15-fold (0.4 of the calls in 120-300 ms, 0.09 in 300-900 ms), so a window of 1,000
    // samples reads it anywhere in 290-375 ms, and a late hedge costs the tail.
    CHECK(1 - hedged.p99_ms / waits_p99_ms() >= 0.34);
    CHECK(hedged.calls <= kQuotes * 112 / 100);
    CHECK(hedged.calls >= kQuotes * 109 / 100);  // the slowest 10 % are hedged, nearly all
  }
}

TEST_CASE("hedged on tail_latency with its delay fixed at the carrier's p90 (300 ms): at least 36 % under one attempt that waits") {
  // What a delay that does not wander gives (measured 570 ms, 36.7 %): the 35 % is
  // reached by the delay the carrier's p90 names, and missed by 0.4 points by the one learnt.
  const Run fixed = run(1, HedgingDelayMode::fixed);
  CAPTURE(fixed.p99_ms);
  CHECK(1 - fixed.p99_ms / waits_p99_ms() >= 0.36);
  CHECK(fixed.calls <= kQuotes * 112 / 100);
}

}  // namespace test_hedging_tail
