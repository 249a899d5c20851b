// --state-backend with credentials against a real redis-server that asks for them: the
// right password (or ACL user) connects and every command works; a wrong or missing one
// stops start-up with a sentence that says which, and never quotes the password.
#include <doctest/doctest.h>

#include <string>

#include "lab/shared_state/redis_client.hpp"
#include "support/redis_server.hpp"

namespace test_redis_password {

using namespace quote_lab;
using quote_lab::testing::RedisServer;

namespace {

// connect_or_throw's refusal for `endpoint`, or "" when it connected.
std::string refusal(const RedisEndpoint& endpoint) {
  SystemClock clock;
  RandomSource random(1);
  RedisClient client({endpoint}, clock, random);
  try {
    client.connect_or_throw();
    return "";
  } catch (const RedisUnreachable& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("Redis with requirepass: the URL's password is sent with AUTH, a wrong or missing one is named") {
  RedisServer redis("correct horse");
  SystemClock clock;
  RandomSource random(1);
  RedisClient client({redis.endpoint()}, clock, random);
  client.connect_or_throw();
  const auto pong = client.command({"PING"});
  REQUIRE(pong);
  CHECK(pong->text == "PONG");
  CHECK(client.health().healthy);

  RedisEndpoint wrong = redis.endpoint();
  wrong.password = "battery staple";
  const std::string said = refusal(wrong);
  CHECK(said.find("AUTH refused: WRONGPASS") != std::string::npos);
  CHECK(said.find("check the user and password in --state-backend") != std::string::npos);
  CHECK(said.find("battery staple") == std::string::npos);
  CHECK(said.find("redis://:***@127.0.0.1:") != std::string::npos);

  RedisEndpoint none = redis.endpoint();
  none.password.clear();
  CHECK(refusal(none).find("NOAUTH") != std::string::npos);
  CHECK(refusal(none).find("this Redis asks for a password: redis://:PASSWORD@HOST:PORT") != std::string::npos);
}

TEST_CASE("Redis ACL user: redis://USER:PASSWORD@ sends AUTH USER PASSWORD") {
  RedisServer redis;
  SystemClock clock;
  RandomSource random(1);
  RedisClient admin({redis.endpoint()}, clock, random);
  admin.connect_or_throw();
  const auto made = admin.command({"ACL", "SETUSER", "lab", "on", ">s3cret", "~*", "+@all"});
  REQUIRE(made);
  REQUIRE(made->type == RedisValue::Type::status);

  RedisEndpoint lab = redis.endpoint();
  lab.username = "lab";
  lab.password = "s3cret";
  CHECK(refusal(lab) == "");
  lab.password = "other";
  CHECK(refusal(lab).find("AUTH refused: WRONGPASS") != std::string::npos);
}

}  // namespace test_redis_password
