// Storm leases across replicas on a real redis-server: one storm per lab, at most
// kMaxStudentStorms student storms class-wide, and the teacher's leases ('_' first: the
// unnamed lab, the teacher's named labs, a storm the teacher started with the token) outside
// the cap.
#include <doctest/doctest.h>

#include "lab/app/lab_registry.hpp"
#include "lab/shared_state/redis_storm_leases.hpp"
#include "support/redis_server.hpp"

namespace test_redis_storm_leases {

using namespace quote_lab;
using quote_lab::testing::RedisServer;
using Lease = RedisStormLeases::Lease;

namespace {
struct Replica {
  explicit Replica(const RedisServer& redis) : client({redis.endpoint()}, clock, random), leases(client) {
    client.connect_or_throw();
  }
  SystemClock clock;
  RandomSource random{7};
  RedisClient client;
  RedisStormLeases leases;
};
}  // namespace

TEST_CASE("Redis storm leases: four student storms class-wide, the teacher's outside the cap, one per lab") {
  RedisServer redis;
  Replica a(redis), b(redis);
  const long long ms = 30000;
  const std::size_t cap = kMaxStudentStorms;
  CHECK(a.leases.take("s1", ms, cap) == Lease::granted);
  CHECK(b.leases.take("s2", ms, cap) == Lease::granted);
  CHECK(a.leases.take("s3", ms, cap) == Lease::granted);
  CHECK(b.leases.take("s4", ms, cap) == Lease::granted);
  CHECK(a.leases.take("s5", ms, cap) == Lease::class_full);  // on either replica
  CHECK(b.leases.take("s1", ms, cap) == Lease::lab_busy);
  // The teacher's: the unnamed lab, a named one (profe-paso5) and one the token started in s5.
  CHECK(a.leases.take("", ms, 0) == Lease::granted);
  CHECK(b.leases.take("_profe-paso5", ms, 0) == Lease::granted);
  CHECK(a.leases.take("_s5", ms, 0) == Lease::granted);
  CHECK(b.leases.take("s5", ms, cap) == Lease::class_full);  // still four students
  // A storm ended: both its possible leases go back, and a student may start one.
  b.leases.give_back({"s1", "_s1"});
  CHECK(a.leases.take("s5", ms, cap) == Lease::granted);
  a.leases.give_back({"", "_"});
  CHECK(b.leases.take("", ms, 0) == Lease::granted);
}

}  // namespace test_redis_storm_leases
