#pragma once
// A tiny stand-in for a quote lab on a free 127.0.0.1 port whose /quote-legacy holds every
// answer until the test opens a gate, so "still running" or "no answer yet" is a state a
// storm test holds rather than a race it hopes to win. It answers a completed live quote
// (with one 12.5 ms attempt) and /health at once; it has no /carrier and no /metrics, so a
// storm reports carrier figures as null.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>

#include "lab/http/http_server.hpp"

namespace quote_lab::testing {

struct GatedQuoteLab {
  std::mutex mutex;  // guards open_ and priorities
  std::condition_variable opened;
  bool open_ = false;
  std::map<std::string, int> priorities;  ///< X-Priority values received ("" for none)
  std::atomic<int> quotes{0};             ///< answered
  std::atomic<int> waiting{0};            ///< held at the gate now
  HttpServer server;
  std::string url;

  /// Listening at once; `open_at_start`: no gate at all. A held request waits 10 s at most.
  explicit GatedQuoteLab(bool open_at_start = false) : open_(open_at_start) {
    server.routes().Get("/quote-legacy", [this](const httplib::Request& req, httplib::Response& res) {
      ++waiting;
      {
        std::unique_lock lock(mutex);
        ++priorities[req.get_header_value("X-Priority")];
        opened.wait_for(lock, std::chrono::seconds(10), [this] { return open_; });
      }
      --waiting;
      ++quotes;
      res.set_content(R"({"status":"completed","scenario":")" + req.get_param_value("scenario") +
                          R"(","quote":{"quote_id":"Q","amount":1,"currency":"USD","source":"live"},)"
                          R"("events":[{"event":"attempt_success","attempt":1,"elapsed_ms":12.5}]})",
                      "application/json");
    });
    server.routes().Get("/health", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"status":"ok"})", "application/json");
    });
    url = "http://127.0.0.1:" + std::to_string(server.start("127.0.0.1", 0, 16));
  }
  ~GatedQuoteLab() {
    open();
    server.stop();
  }
  GatedQuoteLab(const GatedQuoteLab&) = delete;
  GatedQuoteLab& operator=(const GatedQuoteLab&) = delete;

  /// Lets every held request and every later one through.
  void open() {
    std::lock_guard lock(mutex);
    open_ = true;
    opened.notify_all();
  }
  /// Holds every later request at the gate again.
  void close() {
    std::lock_guard lock(mutex);
    open_ = false;
  }
};

}  // namespace quote_lab::testing
