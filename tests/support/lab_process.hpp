#pragma once
// A real `quote-lab serve` for integration tests: started on free loopback ports (port 0,
// read back from its log), its own temporary state folder, stopped on scope exit.

#include <httplib.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "support/poll.hpp"
#include "support/temp_dir.hpp"
#include "support/paths.hpp"

extern char** environ;

namespace quote_lab::testing {

/// One HTTP answer, its body parsed as JSON when it is JSON, and the client-side time.
struct Reply {
  int status = 0;  ///< 0: no answer
  nlohmann::ordered_json json;
  std::string body;
  std::string content_type;
  httplib::Headers headers;
  double elapsed_ms = 0;
};

class LabProcess {
 public:
  /// Starts the binary with `extra` arguments; the state file lives in `state_dir`
  /// (a fresh folder when empty), unless `extra` names a `--state-file` of its own (the
  /// log stays in `state_dir`, e.g. off a disk that a test fills up).
  /// Throws if the lab does not answer /health in 10 s.
  explicit LabProcess(std::vector<std::string> extra = {}, std::filesystem::path state_dir = {})
      : owned_dir_(state_dir.empty() ? std::make_unique<TempDir>() : nullptr),
        state_dir_(state_dir.empty() ? owned_dir_->path() : state_dir),
        state_file_(state_dir_ / "state.json"),
        log_(state_dir_ / ("lab-" + std::to_string(++instances()) + ".log")) {
    std::vector<std::string> args{quote_lab::testing::lab_binary(), "serve", "--port", "0", "--carrier-port", "0"};
    const auto own = std::find(extra.begin(), extra.end(), "--state-file");
    if (own != extra.end() && own + 1 != extra.end()) state_file_ = *(own + 1);
    else args.insert(args.end(), {"--state-file", state_file_.string()});
    args.insert(args.end(), extra.begin(), extra.end());
    pid_ = spawn(args, log_);
    const bool up = eventually(
        [&] {
          if (exited()) throw std::runtime_error("quote-lab exited at start: " + log());
          static const std::regex listening(R"(quote-lab listening on http://127\.0\.0\.1:(\d+))");
          std::smatch m;
          const std::string text = log();
          if (!std::regex_search(text, m, listening)) return false;
          port_ = std::stoi(m[1]);
          return get("/health").status == 200;
        },
        std::chrono::seconds(10), std::chrono::milliseconds(20));
    if (up) return;
    kill(SIGKILL);
    throw std::runtime_error("quote-lab did not start: " + log());
  }
  /// Stops the lab; a lab that does not stop cleanly, or whose log shows a sanitizer
  /// report, fails the test that ran it.
  ~LabProcess() {
    const bool was_running = pid_ > 0;
    const int code = stop(SIGTERM);
    if (was_running) CHECK_MESSAGE(code == 0, "quote-lab did not stop cleanly:\n", log());
    const std::string text = log();
    CHECK_MESSAGE(text.find("Sanitizer") == std::string::npos, text);
    CHECK_MESSAGE(text.find("runtime error:") == std::string::npos, text);
  }
  LabProcess(const LabProcess&) = delete;
  LabProcess& operator=(const LabProcess&) = delete;

  Reply request(const std::string& method, const std::string& path, const httplib::Headers& headers = {}) const {
    httplib::Client client("127.0.0.1", port_);
    client.set_tcp_nodelay(true);
    client.set_read_timeout(std::chrono::seconds(15));
    const auto t0 = std::chrono::steady_clock::now();
    auto res = method == "POST" ? client.Post(path, headers, "", "application/json")
               : method == "PUT" ? client.Put(path, headers, "", "application/json")
               : method == "DELETE" ? client.Delete(path, headers)
                                 : client.Get(path, headers);
    Reply r;
    r.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!res) return r;
    r.status = res->status;
    r.body = res->body;
    r.content_type = res->get_header_value("Content-Type");
    r.headers = res->headers;
    r.json = nlohmann::ordered_json::parse(res->body, nullptr, false);
    return r;
  }
  Reply get(const std::string& path, const httplib::Headers& headers = {}) const { return request("GET", path, headers); }

  /// Sends `sig` and waits for the exit; returns the exit status (or -signal).
  int stop(int sig = SIGTERM) {
    if (pid_ <= 0) return exit_code_;
    ::kill(pid_, sig);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    return exit_code_;
  }
  void kill(int sig) { stop(sig); }

  /// Sends `sig` and returns at once (stop() also waits for the exit).
  void signal(int sig) const {
    if (pid_ > 0) ::kill(pid_, sig);
  }
  /// Waits up to `limit` for the lab to exit: its exit status (or -signal), or nullopt
  /// while it still runs.
  std::optional<int> wait_exit(std::chrono::milliseconds limit) {
    if (pid_ <= 0) return exit_code_;
    const auto code = wait_pid(pid_, limit);
    if (code) {
      pid_ = -1;
      exit_code_ = *code;
    }
    return code;
  }

  /// Starts the binary with `args` and returns at once, its output in `log`: for tests
  /// of a process's first milliseconds, before it answers anything.
  static pid_t launch(std::vector<std::string> args, const std::filesystem::path& log) {
    args.insert(args.begin(), quote_lab::testing::lab_binary());
    return spawn(args, log);
  }
  /// Waits up to `limit` for `pid` to exit: its exit status (or -signal), or nullopt
  /// while it still runs.
  static std::optional<int> wait_pid(pid_t pid, std::chrono::milliseconds limit) {
    int status = 0;
    if (!eventually([&] { return ::waitpid(pid, &status, WNOHANG) != 0; }, limit, std::chrono::milliseconds(2)))
      return std::nullopt;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  }

  /// Sends `raw` bytes as they are (e.g. a request without Content-Length, as
  /// `curl -X POST URL` sends it) and returns the status line's code, or 0 after `wait`.
  int raw_status(const std::string& raw, std::chrono::milliseconds wait = std::chrono::milliseconds(2000)) const {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{static_cast<time_t>(wait.count() / 1000), static_cast<suseconds_t>((wait.count() % 1000) * 1000)};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    int code = 0;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::send(fd, raw.data(), raw.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(raw.size())) {
      char buf[64] = {};
      if (::recv(fd, buf, sizeof buf - 1, 0) > 12) code = std::atoi(buf + 9);  // "HTTP/1.1 200"
    }
    ::close(fd);
    return code;
  }

  int port() const { return port_; }
  const std::filesystem::path& state_file() const { return state_file_; }
  const std::filesystem::path& state_dir() const { return state_dir_; }
  std::string log() const { return read_file(log_); }

  /// Runs the binary to completion (for start-up errors); returns exit code and output.
  static std::pair<int, std::string> run(std::vector<std::string> args) {
    TempDir dir;
    args.insert(args.begin(), quote_lab::testing::lab_binary());
    const pid_t pid = spawn(args, dir / "out.log");
    int status = 0;
    if (!eventually([&] { return ::waitpid(pid, &status, WNOHANG) != 0; }, std::chrono::seconds(10))) {
      ::kill(pid, SIGTERM);
      ::waitpid(pid, &status, 0);
    }
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status), read_file(dir / "out.log")};
  }

 private:
  static int& instances() {
    static int n = 0;
    return n;
  }

  static pid_t spawn(const std::vector<std::string>& args, const std::filesystem::path& log) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot start " + args[0]);
    return pid;
  }

  bool exited() {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
      return true;
    }
    return false;
  }

  std::unique_ptr<TempDir> owned_dir_;
  std::filesystem::path state_dir_;
  std::filesystem::path state_file_;
  std::filesystem::path log_;
  pid_t pid_ = -1;
  int port_ = 0;
  int exit_code_ = 0;
};

/// Event names of a quote response, in order.
inline std::vector<std::string> events_of(const nlohmann::ordered_json& quote) {
  std::vector<std::string> names;
  for (const auto& e : quote.value("events", nlohmann::ordered_json::array())) names.push_back(e.value("event", ""));
  return names;
}

}  // namespace quote_lab::testing
