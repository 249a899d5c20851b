#include "lab/experiments/storm_client.hpp"

#include "lab/experiments/priority_mix.hpp"

namespace quote_lab {

std::unique_ptr<httplib::Client> storm_http_client(const std::string& target, std::chrono::seconds read_timeout) {
  auto c = std::make_unique<httplib::Client>(target);
  c->set_tcp_nodelay(true);
  c->set_keep_alive(true);
  c->set_connection_timeout(std::chrono::seconds(5));
  c->set_read_timeout(read_timeout);
  return c;
}

namespace {

// One answer into the log, judged into `record`. Every field is checked before it is read: a
// throw in a sender thread would end the process.
void record_answer(const httplib::Response& res, double latency_ms, const GoodputRule& rule, ClientLog& log,
                   std::atomic<bool>& stop, RequestRecord& record) {
  const auto body = nlohmann::json::parse(res.body, nullptr, false);
  if (res.status == 429) {  // the lab's --rate-limit said no: an answer, not a bad option
    ++log.statuses["rate_limited"];
  } else if (res.status >= 400 && res.status < 500) {
    ++log.statuses["http_4xx"];
    stop = true;  // a bad option fails every request alike: stop instead of hammering
  } else {
    const bool has_status = body.is_object() && body.contains("status") && body["status"].is_string();
    ++log.statuses[has_status ? body["status"].get<std::string>() : "error"];
    if (body.is_object() && body.contains("events") && body["events"].is_array())
      for (const auto& e : body["events"])
        if (e.is_object() && e.contains("elapsed_ms") && e["elapsed_ms"].is_number())
          log.attempt_ms.push_back(e["elapsed_ms"].get<double>());
  }
  record.verdict = judge_answer(res.status, body, latency_ms, rule);
  // judge_answer found a quote object in a useful answer.
  record.live = record.verdict == AnswerVerdict::useful && body["quote"].contains("source") && body["quote"]["source"] == "live";
}

}  // namespace

bool send_storm_request(StormRun& run, httplib::Client& cli, const std::string& path, long k,
                        StormSteady::time_point arrival, ClientLog& log) {
  const bool sheddable = sheddable_request(k, run.o.sheddable_share);
  httplib::Headers headers;
  // Only with a share above 0, so a storm without one sends what it always sent.
  if (run.o.sheddable_share > 0)
    headers.emplace(std::string(kPriorityHeader), std::string(sheddable ? kSheddable : kCritical));
  auto res = cli.Get(path, headers);
  const double latency_ms = std::chrono::duration<double, std::milli>(StormSteady::now() - arrival).count();
  log.latency_ms.push_back(latency_ms);
  RequestRecord record{.arrival_s = run.since_start_s(arrival), .sent = true, .verdict = AnswerVerdict::no_answer,
                       .sheddable = sheddable};
  if (res) record_answer(*res, latency_ms, run.o.goodput, log, run.stop, record);
  else ++log.statuses["error"];
  log.records.push_back(record);
  ++run.finished;
  return static_cast<bool>(res);
}

void run_storm_client(StormRun& run, const std::string& target, std::chrono::seconds timeout, const std::string& path,
                      ClientLog& log) {
  auto cli = storm_http_client(target, timeout);
  while (!run.should_stop()) {
    if (run.o.requests && run.issued.fetch_add(1) >= *run.o.requests) break;
    if (!send_storm_request(run, *cli, path, run.sequence.fetch_add(1), StormSteady::now(), log))
      cli = storm_http_client(target, timeout);  // a fresh connection after a failure
  }
}

}  // namespace quote_lab
