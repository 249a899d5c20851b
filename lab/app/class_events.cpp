#include "lab/app/class_events.hpp"

#include <chrono>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace quote_lab {
namespace {

using json = nlohmann::json;

std::optional<QuoteStatus> parse_status(const std::string& s) {
  for (QuoteStatus q : {QuoteStatus::completed, QuoteStatus::degraded, QuoteStatus::failed})
    if (to_string(q) == s) return q;
  return std::nullopt;
}

std::optional<BreakerState> parse_breaker(const std::string& s) {
  for (BreakerState b : {BreakerState::closed, BreakerState::open, BreakerState::half_open})
    if (to_string(b) == s) return b;
  return std::nullopt;
}

}  // namespace

json flow_to_json(const FlowRecord& f) {
  const Incident& i = f.incident;
  const auto at_us = std::chrono::duration_cast<std::chrono::microseconds>(i.timestamp.time_since_epoch()).count();
  return {{"request_id", i.request_id},   {"mode", i.mode},
          {"scenario", i.scenario},       {"status", std::string(to_string(i.status))},
          {"attempts", i.attempts},       {"retries", i.retries},
          {"timeouts", i.timeout_count},  {"fallback_used", i.fallback_used},
          {"short_circuited", i.short_circuited},
          {"elapsed_ms", i.elapsed_ms},   {"queue_ms", i.queue_ms},
          {"at_us", at_us},               {"short_circuits", f.short_circuits},
          {"circuit_opened", f.circuit_opened}, {"cancelled", i.cancelled}};
}

FlowRecord flow_from_json(const json& j) {
  FlowRecord f;
  Incident& i = f.incident;
  i.request_id = j.at("request_id").get<std::string>();
  i.mode = j.at("mode").get<std::string>();
  i.scenario = j.at("scenario").get<std::string>();
  const auto status = parse_status(j.at("status").get<std::string>());
  if (!status) throw std::invalid_argument("unknown flow status " + j.at("status").dump());
  i.status = *status;
  i.attempts = j.at("attempts").get<int>();
  i.retries = j.at("retries").get<int>();
  i.timeout_count = j.at("timeouts").get<int>();
  i.fallback_used = j.at("fallback_used").get<bool>();
  i.short_circuited = j.at("short_circuited").get<bool>();
  i.elapsed_ms = j.at("elapsed_ms").get<double>();
  i.queue_ms = j.at("queue_ms").get<double>();
  i.cancelled = j.value("cancelled", false);  // absent from a replica older than the field
  i.timestamp = WallTime(std::chrono::duration_cast<WallTime::duration>(
      std::chrono::microseconds(j.at("at_us").get<long long>())));
  f.short_circuits = j.at("short_circuits").get<int>();
  f.circuit_opened = j.at("circuit_opened").get<bool>();
  return f;
}

std::string encode_class_event(const ClassEvent& e) {
  json j{{"lab", e.lab}, {"type", e.type}, {"line", e.line}};
  if (e.flow) j["flow"] = flow_to_json(*e.flow);
  if (e.breaker) j["breaker"] = std::string(to_string(*e.breaker));
  if (!e.mode.empty()) j["mode"] = e.mode;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

ClassEvent decode_class_event(const std::string& text) {
  try {
    const json j = json::parse(text);
    ClassEvent e;
    e.lab = j.at("lab").get<std::string>();
    e.type = j.at("type").get<std::string>();
    e.line = j.at("line").get<std::string>();
    if (j.contains("flow")) e.flow = flow_from_json(j.at("flow"));
    if (j.contains("breaker")) {
      e.breaker = parse_breaker(j.at("breaker").get<std::string>());
      if (!e.breaker) throw std::invalid_argument("unknown breaker state " + j.at("breaker").dump());
    }
    if (j.contains("mode")) e.mode = j.at("mode").get<std::string>();
    if (e.type == "quote" && !e.flow) throw std::invalid_argument("a quote event without its flow");
    if (e.type == "carrier_mode" && e.mode.empty()) throw std::invalid_argument("a carrier_mode event without its mode");
    return e;
  } catch (const json::exception& ex) {
    throw std::invalid_argument(std::string("not a class event: ") + ex.what());
  }
}

}  // namespace quote_lab
