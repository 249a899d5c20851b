#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "lab/resilience/overload/latency_percentile.hpp"

namespace test_latency_percentile {

using quote_lab::nearest_rank_percentile;

TEST_CASE("nearest rank: the ⌈p/100 × n⌉-th smallest, whatever the order of the samples") {
  const std::vector<double> hundred = [] {
    std::vector<double> v;
    for (int i = 100; i >= 1; --i) v.push_back(i);  // 100, 99, ..., 1: order does not matter
    return v;
  }();
  CHECK(nearest_rank_percentile(hundred, 50) == 50);
  CHECK(nearest_rank_percentile(hundred, 95) == 95);
  CHECK(nearest_rank_percentile(hundred, 99) == 99);
  CHECK(nearest_rank_percentile(hundred, 100) == 100);
  CHECK(nearest_rank_percentile(hundred, 0) == 1);
  CHECK(nearest_rank_percentile({120, 140, 900}, 50) == 140);
  const std::vector<double> twenty = [] {
    std::vector<double> v;
    for (int i = 1; i <= 20; ++i) v.push_back(10.0 * i);
    return v;
  }();
  CHECK(nearest_rank_percentile(twenty, 95) == 190);  // the 19th of 20, not the 20th
  CHECK(nearest_rank_percentile({42}, 95) == 42);
}

TEST_CASE("no samples, or a percentile outside 0–100, is a programming error") {
  CHECK_THROWS_AS(nearest_rank_percentile({}, 50), std::invalid_argument);
  CHECK_THROWS_AS(nearest_rank_percentile({1, 2}, 101), std::invalid_argument);
  CHECK_THROWS_AS(nearest_rank_percentile({1, 2}, -1), std::invalid_argument);
}

}  // namespace test_latency_percentile
