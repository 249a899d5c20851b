#include "lab/experiments/retry_relay.hpp"

#include <cmath>

#include "lab/http/httplib_statics.hpp"

namespace quote_lab {

std::vector<std::chrono::milliseconds> relay_attempt_timeouts(std::chrono::milliseconds lab_worst_ms, int layers,
                                                              int attempts) {
  std::vector<std::chrono::milliseconds> out;
  double worst_ms = static_cast<double>(lab_worst_ms.count());
  for (int layer = 2; layer <= layers; ++layer) {
    const double attempt_ms = std::ceil(worst_ms * 1.25 + 500);
    out.emplace_back(static_cast<std::chrono::milliseconds::rep>(attempt_ms));
    worst_ms = attempts * attempt_ms;
  }
  return out;
}

RetryRelay::RetryRelay(std::string next_hop, int attempts, std::chrono::milliseconds attempt_timeout, int workers)
    : next_hop_(std::move(next_hop)), attempts_(attempts), attempt_timeout_(attempt_timeout) {
  prime_httplib_statics();
  server_.routes().Get(R"(/.*)", [this](const httplib::Request& req, httplib::Response& res) {
    ++requests_;
    // One client per request: an httplib::Client serialises its requests.
    httplib::Client next(next_hop_);
    next.set_tcp_nodelay(true);
    next.set_connection_timeout(std::chrono::seconds(5));
    // The next hop says nothing until its flow is over, so a per-recv timeout is one for
    // the whole attempt here (NOTES-stack.md: no total deadline in cpp-httplib 0.11.4).
    next.set_read_timeout(attempt_timeout_);
    httplib::Result last{nullptr, httplib::Error::Unknown};
    for (int attempt = 1; attempt <= attempts_; ++attempt) {
      ++calls_out_;
      last = next.Get(req.target);
      if (last && last->status < 500) break;  // an answer that is not a failure: nothing to retry
    }
    if (!last) {
      send_error(res, 504, "relay_no_answer",
                 "the next hop (" + next_hop_ + ") gave no answer in " + std::to_string(attempts_) + " attempts: " +
                     httplib::to_string(last.error()));
      return;
    }
    res.status = last->status;
    res.set_content(last->body, last->get_header_value("Content-Type"));
  });
  port_ = server_.start("127.0.0.1", 0, workers);
}

RetryRelay::~RetryRelay() { server_.stop(); }

}  // namespace quote_lab
