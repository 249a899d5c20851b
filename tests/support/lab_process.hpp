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

#include "support/lab_client.hpp"
#include "support/poll.hpp"
#include "support/temp_dir.hpp"
#include "support/paths.hpp"

extern char** environ;

namespace quote_lab::testing {

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
    return http_request(port_, method, path, headers);
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

  /// Sends `raw` bytes as they are (lab_client.hpp's raw_status).
  int raw_status(const std::string& raw, std::chrono::milliseconds wait = std::chrono::milliseconds(2000)) const {
    return quote_lab::testing::raw_status(port_, raw, wait);
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

}  // namespace quote_lab::testing
