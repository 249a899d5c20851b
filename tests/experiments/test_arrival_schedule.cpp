// The open loop's arrival schedule (lab/experiments/arrival_schedule.hpp): exact gaps on
// given draws, absolute due times, and the rate and spread of many Poisson draws.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "lab/experiments/arrival_schedule.hpp"

namespace test_arrival_schedule {

using namespace quote_lab;

namespace {

// Hands out the given draws in turn, so every gap of a schedule is known.
class ScriptedRandom final : public RandomSource {
 public:
  explicit ScriptedRandom(std::vector<double> draws) : RandomSource(1), draws_(std::move(draws)) {}
  double uniform() override { return draws_.at(next_++); }
  std::size_t used() const { return next_; }

 private:
  std::vector<double> draws_;
  std::size_t next_ = 0;
};

}  // namespace

TEST_CASE("a Poisson gap is the exponential's inverse CDF of the draw: -ln(1 - u) / R") {
  CHECK(arrival_gap_s(200, ArrivalProcess::poisson, 0.0) == 0.0);                        // u = 0: at once
  CHECK(arrival_gap_s(200, ArrivalProcess::poisson, 0.5) == doctest::Approx(std::log(2.0) / 200).epsilon(1e-12));
  CHECK(arrival_gap_s(10, ArrivalProcess::poisson, 0.9) == doctest::Approx(0.2302585093).epsilon(1e-9));   // ln 10 / 10
  CHECK(arrival_gap_s(10, ArrivalProcess::poisson, 0.1) == doctest::Approx(0.0105360516).epsilon(1e-9));   // ln(10/9) / 10
  // The largest draw below 1 gives a long gap, never an infinite one.
  const double top = std::nextafter(1.0, 0.0);
  CHECK(std::isfinite(arrival_gap_s(1, ArrivalProcess::poisson, top)));
  CHECK(arrival_gap_s(1, ArrivalProcess::poisson, top) == doctest::Approx(36.7368005696).epsilon(1e-9));  // 53 ln 2
}

TEST_CASE("a uniform gap is 1/R whatever the draw") {
  for (const double u : {0.0, 0.3, 0.999}) CHECK(arrival_gap_s(200, ArrivalProcess::uniform, u) == 1.0 / 200);
}

TEST_CASE("the schedule's due times are the gaps summed, one draw per Poisson arrival") {
  ScriptedRandom draws({0.1, 0.5, 0.9, 0.0});
  ArrivalSchedule s(10, ArrivalProcess::poisson, draws);
  const double g1 = -std::log(0.9) / 10, g2 = std::log(2.0) / 10, g3 = std::log(10.0) / 10;
  CHECK(s.next_due_s() == doctest::Approx(g1).epsilon(1e-12));
  CHECK(s.next_due_s() == doctest::Approx(g1 + g2).epsilon(1e-12));
  CHECK(s.next_due_s() == doctest::Approx(g1 + g2 + g3).epsilon(1e-12));
  CHECK(s.next_due_s() == doctest::Approx(g1 + g2 + g3).epsilon(1e-12));  // u = 0: the same instant
  CHECK(draws.used() == 4);
}

TEST_CASE("uniform arrivals tick at 0, 1/R, 2/R... exactly and draw nothing") {
  ScriptedRandom none({});
  ArrivalSchedule s(200, ArrivalProcess::uniform, none);
  for (int k = 0; k < 2000; ++k) REQUIRE(s.next_due_s() == static_cast<double>(k) / 200);  // no summed drift
  CHECK(s.next_due_s() == 10.0);  // the 2,001st: 10 s hold exactly 200 × 10 arrivals before it
  CHECK(none.used() == 0);
}

TEST_CASE("over many draws, Poisson arrivals keep the rate and an exponential's spread") {
  RandomSource random(7);
  ArrivalSchedule s(200, ArrivalProcess::poisson, random);
  // 100 s at 200/s: 20,000 arrivals expected, standard deviation √20,000 ≈ 141 (0.71 %).
  long in_window = 0;
  double due = 0, previous = 0, sum_sq = 0;
  long n = 0;
  while ((due = s.next_due_s()) < 100) {
    ++in_window;
    const double gap = due - previous;
    sum_sq += gap * gap;
    previous = due;
    ++n;
  }
  CHECK(in_window >= 20000 - 4 * 141);
  CHECK(in_window <= 20000 + 4 * 141);
  // An exponential's second moment is 2/R²; a metronome's would be 1/R².
  const double second_moment = sum_sq / static_cast<double>(n);
  CHECK(second_moment * 200 * 200 == doctest::Approx(2.0).epsilon(0.05));
}

TEST_CASE("the processes by name") {
  CHECK(parse_arrival_process("poisson") == ArrivalProcess::poisson);
  CHECK(parse_arrival_process("uniform") == ArrivalProcess::uniform);
  CHECK_FALSE(parse_arrival_process("Poisson"));
  CHECK(arrival_process_names() == std::vector<std::string>{"poisson", "uniform"});
  CHECK(to_string(ArrivalProcess::uniform) == "uniform");
}

}  // namespace test_arrival_schedule
