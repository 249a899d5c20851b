#pragma once
// A real Debian redis-server for tests: a free loopback port, no persistence, killed on
// scope exit (or by kill(), to test what the lab does when Redis dies).

#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab/base/random.hpp"
#include "lab/shared_state/redis_client.hpp"
#include "support/poll.hpp"

extern char** environ;

namespace quote_lab::testing {

class RedisServer {
 public:
  RedisServer() : port_(free_port()) { start(); }
  ~RedisServer() { kill(); }
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  /// Starts it (again, on the same port); throws if it does not answer PING in 10 s.
  void start() {
    std::vector<std::string> args{"redis-server", "--port", std::to_string(port_), "--bind", "127.0.0.1",
                                  "--save", "", "--appendonly", "no", "--loglevel", "warning"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (::posix_spawnp(&pid_, "redis-server", nullptr, nullptr, argv.data(), environ) != 0)
      throw std::runtime_error("redis-server is not installed (.ci/install-deps test)");
    SystemClock clock;
    RandomSource random(1);
    RedisClient probe({endpoint()}, clock, random);
    if (!eventually([&] {
          try {
            probe.connect_or_throw();
            return true;
          } catch (const RedisUnreachable&) {
            return false;
          }
        }, std::chrono::seconds(10)))
      throw std::runtime_error("redis-server did not answer on port " + std::to_string(port_));
  }
  /// SIGKILL: sockets close at once, as when the server crashes.
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  RedisEndpoint endpoint() const { return {"127.0.0.1", port_, 0}; }

 private:
  static int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
  }

  int port_;
  pid_t pid_ = -1;
};

}  // namespace quote_lab::testing
