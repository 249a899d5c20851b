#include <doctest/doctest.h>

#include "lab/shared_state/redis_url.hpp"

namespace test_redis_url {

using namespace quote_lab;

namespace {

// The problem sentence for a value that must be refused ("" if it was accepted).
std::string refusal(const char* text) {
  std::string problem;
  return parse_state_backend(text, problem) ? std::string() : problem;
}

}  // namespace

TEST_CASE("--state-backend file is the JSON state file: no Redis") {
  std::string problem;
  const auto c = parse_state_backend("file", problem);
  REQUIRE(c);
  CHECK_FALSE(c->redis);
}

TEST_CASE("--state-backend redis://HOST:PORT[/DB] gives host, port and database") {
  std::string problem;
  auto c = parse_state_backend("redis://127.0.0.1:6380", problem);
  REQUIRE(c);
  REQUIRE(c->redis);
  CHECK(*c->redis == RedisEndpoint{"127.0.0.1", 6380, 0});
  c = parse_state_backend("redis://cache.school.lan:6379/3", problem);
  REQUIRE(c);
  CHECK(*c->redis == RedisEndpoint{"cache.school.lan", 6379, 3});
  CHECK(c->redis->url() == "redis://cache.school.lan:6379/3");
  c = parse_state_backend("redis://[::1]:7000/1", problem);
  REQUIRE(c);
  CHECK(*c->redis == RedisEndpoint{"::1", 7000, 1});
  CHECK(c->redis->url() == "redis://[::1]:7000/1");
}

TEST_CASE("--state-backend redis://[[USER]:PASSWORD@]HOST:PORT[/DB]: AUTH's credentials, percent-decoded, never shown") {
  std::string problem;
  auto c = parse_state_backend("redis://:s3cret@127.0.0.1:6379/2", problem);
  REQUIRE(c);
  REQUIRE(c->redis);
  CHECK(*c->redis == RedisEndpoint{"127.0.0.1", 6379, 2, "", "s3cret"});
  CHECK(c->redis->url() == "redis://:***@127.0.0.1:6379/2");
  c = parse_state_backend("redis://lab:p%40ss%3Aword%25@cache.school.lan:6380", problem);
  REQUIRE(c);
  CHECK(*c->redis == RedisEndpoint{"cache.school.lan", 6380, 0, "lab", "p@ss:word%"});
  CHECK(c->redis->url() == "redis://lab:***@cache.school.lan:6380/0");
  // The last '@' ends the credentials: a password may hold '@' and '/' as they are.
  c = parse_state_backend("redis://:a@b/c@[::1]:7000/1", problem);
  REQUIRE(c);
  CHECK(*c->redis == RedisEndpoint{"::1", 7000, 1, "", "a@b/c"});
  // Malformed credentials are named, and the refusal never repeats the password.
  CHECK(refusal("redis://ana@localhost:6379").find("a user name needs its password") != std::string::npos);
  CHECK(refusal("redis://:@localhost:6379").find("the password after ':' is empty") != std::string::npos);
  CHECK(refusal("redis://:50%zz@localhost:6379").find("%XX escape") != std::string::npos);
  CHECK(refusal("redis://:hunter2@localhost").find("hunter2") == std::string::npos);
  CHECK(refusal("redis://:hunter2@localhost").find("the port is missing") != std::string::npos);
}

TEST_CASE("a malformed --state-backend names its fault and the accepted form") {
  const std::string form = "expected file or redis://[[USER]:PASSWORD@]HOST:PORT[/DB]";
  CHECK(refusal("redis://").find("the port is missing") != std::string::npos);
  CHECK(refusal("redis://:6379").find("the host is missing") != std::string::npos);
  CHECK(refusal("redis://localhost").find("the port is missing") != std::string::npos);
  CHECK(refusal("redis://localhost:0").find("the port '0' is not a number 1-65535") != std::string::npos);
  CHECK(refusal("redis://localhost:65536").find("the port '65536'") != std::string::npos);
  CHECK(refusal("redis://localhost:63x9").find("the port '63x9'") != std::string::npos);
  CHECK(refusal("redis://localhost:6379/zero").find("the database 'zero' is not a number") != std::string::npos);
  CHECK(refusal("redis://localhost:6379/").find("the database '' is not a number") != std::string::npos);
  CHECK(refusal("redis://localhost:6379/-1").find("the database '-1'") != std::string::npos);
  CHECK(refusal("redis://::1:6379").find("IPv6 host goes in brackets") != std::string::npos);
  CHECK(refusal("rediss://localhost:6379").find("rediss:// (Redis over TLS) is not supported") != std::string::npos);
  CHECK(refusal("rediss://localhost:6379").find("no TLS") != std::string::npos);
  CHECK(refusal("http://localhost:6379").find("scheme 'http' is not supported") != std::string::npos);
  CHECK(refusal("json").find("neither file nor a redis:// URL") != std::string::npos);
  CHECK(refusal("").find("neither file") != std::string::npos);
  CHECK(refusal("redis://").find(form) != std::string::npos);
}

}  // namespace test_redis_url
