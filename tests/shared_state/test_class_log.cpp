// The class log's transport on a real redis-server (the replicas' story is in
// app/test_class_log_replicas.cpp): when a replica's own entries reach Redis.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "lab/shared_state/class_log.hpp"
#include "support/poll.hpp"
#include "support/redis_server.hpp"

namespace test_class_log {

using namespace quote_lab;
using quote_lab::testing::RedisServer;

namespace {
struct Client {
  explicit Client(const RedisServer& redis) : client(redis.patient_client(), clock, random) { client.connect_or_throw(); }
  long long stream_length() {
    const auto r = client.command({"XLEN", ClassLog::kStreamKey});
    REQUIRE(r);
    return r->integer;
  }
  SystemClock clock;
  RandomSource random{3};
  RedisClient client;
};
}  // namespace

TEST_CASE("class log: what a replica queued reaches Redis only after it installed the labs' snapshots") {
  // A snapshot another replica wrote after reading this replica's entries would hold them
  // twice once installed here (counted here when made, and again in the snapshot): so none
  // is appended before the install. The install here first fails (Redis away) and takes a
  // while; the publisher would have appended within milliseconds.
  RedisServer redis;
  Client replica(redis), admin(redis);
  ClassLog log(replica.client, "replica-1");
  log.append(R"({"lab":"ana","type":"lab_created","line":"{}"})");
  std::atomic<int> installs{0};
  std::atomic<long long> seen_at_install{-1};
  std::atomic<int> read_back{0};
  log.start([&](const std::string&, const std::string&, bool, bool own) { read_back += own ? 1 : 0; },
            {.before_replay = [&] {
              std::this_thread::sleep_for(std::chrono::milliseconds(150));
              seen_at_install = admin.stream_length();
              return ++installs == 2;
            }});
  REQUIRE(quote_lab::testing::eventually([&] { return read_back.load() == 1; }, std::chrono::seconds(5)));
  CHECK(installs.load() == 2);
  CHECK(seen_at_install.load() == 0);
  CHECK(admin.stream_length() == 1);
}

}  // namespace test_class_log
