#include <doctest/doctest.h>

#include "lab/resilience/fallback_cache.hpp"
#include "lab/resilience/pricing.hpp"
#include "support/fake_clock.hpp"

namespace test_fallback_cache {

using namespace quote_lab;
using quote_lab::testing::FakeClock;
using std::chrono::milliseconds;

TEST_CASE("without a live quote the fallback is the seed quote, priced at seeding time") {
  FakeClock clock;
  FallbackCache cache(clock);
  const WallTime seeded = clock.wall_now();
  clock.advance(milliseconds(90000));
  const CachedQuote q = cache.lookup(42, 3);
  CHECK(q.seed);
  CHECK(q.quote.quote_id == "SEED-42-3");
  CHECK(q.quote.amount == doctest::Approx(price_quote_usd(42, 3, seeded)));
  CHECK(q.age_s(clock.wall_now()) == doctest::Approx(90.0));
  CHECK_FALSE(cache.latest().has_value());
}

TEST_CASE("the last live quote per (customer_id, items) wins, and its age grows") {
  FakeClock clock;
  FallbackCache cache(clock);
  cache.remember(7, 2, Quote{"Q-1", 38.0, "USD", clock.wall_now()});
  clock.advance(milliseconds(1000));
  cache.remember(7, 2, Quote{"Q-2", 39.0, "USD", clock.wall_now()});
  clock.advance(milliseconds(2500));
  const CachedQuote q = cache.lookup(7, 2);
  CHECK(q.quote.quote_id == "Q-2");
  CHECK_FALSE(q.seed);
  CHECK(q.age_s(clock.wall_now()) == doctest::Approx(2.5));
  CHECK(cache.lookup(7, 3).seed);
  REQUIRE(cache.latest());
  CHECK(cache.latest()->quote.quote_id == "Q-2");
}

TEST_CASE("age is never negative, even if the wall clock went back") {
  FakeClock clock;
  FallbackCache cache(clock);
  cache.remember(1, 1, Quote{"Q", 1, "USD", clock.wall_now()});
  CHECK(cache.lookup(1, 1).age_s(clock.wall_now() - std::chrono::seconds(5)) == 0.0);
}

TEST_CASE("bounded: the least recently stored key is dropped beyond the limit") {
  FakeClock clock;
  FallbackCache cache(clock);
  for (int i = 0; i < static_cast<int>(FallbackCache::kMaxEntries) + 10; ++i) {
    cache.remember(1 + i % 5000, 1 + i / 5000, Quote{"Q" + std::to_string(i), 1, "USD", clock.wall_now()});
    clock.advance(milliseconds(1));
  }
  CHECK(cache.entries().size() == FallbackCache::kMaxEntries);
  CHECK(cache.lookup(1, 1).seed);                          // the first one is gone
  CHECK_FALSE(cache.lookup(1010, 1).seed);                 // the last one stays
}

TEST_CASE("reset forgets live quotes and reseeds now") {
  FakeClock clock;
  FallbackCache cache(clock);
  cache.remember(42, 3, Quote{"Q", 1, "USD", clock.wall_now()});
  clock.advance(milliseconds(4000));
  cache.reset();
  CHECK(cache.lookup(42, 3).seed);
  CHECK(cache.seeded_at() == clock.wall_now());
}

}  // namespace test_fallback_cache
