#pragma once
// A real Debian redis-server for tests: a free loopback port, no persistence, killed on
// scope exit (or by kill(), to test what the lab does when Redis dies). The one C++ way to
// start Redis for tests.
//
// The port: redis-server cannot bind port 0 and report the port it got (`--port 0` turns
// TCP off), so the port is chosen here by binding port 0 and closing it, and another
// process can take it in between. That race cannot be closed from outside Redis, so it is
// made loud instead of slow: redis-server exits at once when it cannot bind ("Failed
// listening on port N (TCP), aborting"), and start() watches for that exit while it waits
// for PING, throwing with redis-server's own log lines within milliseconds instead of
// polling a port that will never answer for 10 s. And since the process that took the
// port may itself be a Redis (a parallel test's), a PING is not enough: the server that
// answers must report our process id (INFO server), or start() throws as well.

#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "lab/base/random.hpp"
#include "lab/shared_state/redis_client.hpp"
#include "support/temp_dir.hpp"

extern char** environ;

namespace quote_lab::testing {

class RedisServer {
 public:
  /// `password`: set as `requirepass` (every client must AUTH with it); empty: none.
  explicit RedisServer(std::string password = "") : port_(free_port()), password_(std::move(password)) { start(); }
  ~RedisServer() { kill(); }
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  /// Starts it (again, on the same port). Throws, naming the port and quoting redis-server's
  /// log, when it exits (its port was taken), when another Redis answers on the port, or
  /// when it does not answer PING within 10 s.
  void start() {
    const std::string log = (dir_ / "redis.log").string();
    std::vector<std::string> args{"redis-server", "--port", std::to_string(port_), "--bind", "127.0.0.1",
                                  "--save", "", "--appendonly", "no", "--loglevel", "warning", "--logfile", log};
    if (!password_.empty()) args.insert(args.end(), {"--requirepass", password_});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (::posix_spawnp(&pid_, "redis-server", nullptr, nullptr, argv.data(), environ) != 0)
      throw std::runtime_error("redis-server is not installed (.ci/install-deps test)");
    SystemClock clock;
    RandomSource random(1);
    RedisClient probe({endpoint()}, clock, random);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (true) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("redis-server exited at start-up on port " + std::to_string(port_) +
                                 " (another process took the port between free_port() and its bind?): " +
                                 read_file(log));
      }
      try {
        probe.connect_or_throw();
        break;
      } catch (const RedisUnreachable&) {
      }
      if (std::chrono::steady_clock::now() > deadline) {
        kill();
        throw std::runtime_error("redis-server did not answer PING on port " + std::to_string(port_) +
                                 " within 10 s: " + read_file(log));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const auto info = probe.command({"INFO", "server"});
    const std::string ours = "process_id:" + std::to_string(pid_) + "\r\n";
    if (!info || info->text.find(ours) == std::string::npos) {
      // Ours is about to exit for the taken port: give it a moment to log why.
      const auto exiting = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      while (std::chrono::steady_clock::now() < exiting) {
        if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
          pid_ = -1;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      kill();
      throw std::runtime_error("another Redis answers on port " + std::to_string(port_) +
                               " (it took the port between free_port() and our bind): " + read_file(log));
    }
  }
  /// SIGKILL: sockets close at once, as when the server crashes.
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  /// SIGSTOP / SIGCONT: the server keeps its sockets open and stops answering, as a Redis
  /// stalled by a fork, swap or a paused VM does: only the client's timeout ends a call.
  void pause() const {
    if (pid_ > 0) ::kill(pid_, SIGSTOP);
  }
  void resume() const {
    if (pid_ > 0) ::kill(pid_, SIGCONT);
  }
  /// Where it listens, with its password.
  RedisEndpoint endpoint() const { return {"127.0.0.1", port_, 0, "", password_}; }

  /// A client's options for a test whose subject is not Redis's speed: a command may take up to
  /// 2 s (the lab's 50 ms bound is for a live class; here Redis shares two cores with the whole
  /// suite, and a command that missed 50 ms on a loaded machine failed a replica test), and a
  /// failed call is tried again at the next call (with a fake clock, a backoff never ends).
  RedisClient::Options patient_client() const {
    return {.endpoint = endpoint(), .timeout = Millis(2000), .schedule = {.base_ms = 0, .max_ms = 0}};
  }

 private:
  // Racy by nature (see the file comment): start() reports the loss of the race.
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

  TempDir dir_;  // redis-server's log, quoted when it fails to start
  int port_;
  std::string password_;
  pid_t pid_ = -1;
};

}  // namespace quote_lab::testing
