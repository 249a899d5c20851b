#include "lab/experiments/storm_target.hpp"

#include <httplib.h>

#include <algorithm>
#include <chrono>

#include "lab/base/did_you_mean.hpp"
#include "lab/experiments/storm_client.hpp"
#include "lab/http/httplib_statics.hpp"
#include "lab/resilience/vocabulary.hpp"

namespace quote_lab {
namespace {

// One field of the lab's GET /carrier (of a student lab when `lab` is set); nullopt when
// the lab does not answer or the field is null (an external carrier, no episode).
std::optional<nlohmann::ordered_json> carrier_field(const std::string& target, const std::string& lab,
                                                    const char* field) {
  auto c = storm_http_client(target, std::chrono::seconds(10));
  auto res = c->Get(lab.empty() ? "/carrier" : "/carrier?lab=" + lab);
  if (!res || res->status != 200) return std::nullopt;
  auto j = nlohmann::ordered_json::parse(res->body, nullptr, false);
  if (j.is_discarded() || !j.contains(field) || j[field].is_null()) return std::nullopt;
  return j[field];
}

// The policy names the lab's index lists (every key of `policies` but the course breaker's),
// or nullopt when it lists none.
std::optional<std::vector<std::string>> lab_policy_names(const std::string& target) {
  auto c = storm_http_client(target, std::chrono::seconds(30));
  const auto res = c->Get("/", {{"Accept", "application/json"}});
  if (!res || res->status != 200) return std::nullopt;
  const auto j = nlohmann::ordered_json::parse(res->body, nullptr, false);  // ordered: the index's order
  if (!j.is_object() || !j.contains("policies") || !j["policies"].is_object()) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& [name, _] : j["policies"].items())
    if (name != "breaker") names.push_back(name);
  return names;
}

}  // namespace

std::optional<nlohmann::ordered_json> carrier_stats(const std::string& target) {
  return carrier_field(target, "", "stats");
}

std::optional<nlohmann::ordered_json> metastable_episode(const std::string& target, const std::string& lab) {
  return carrier_field(target, lab, "metastable");
}

std::optional<double> lab_carrier_calls(const std::string& target, const std::string& lab, const std::string& mode) {
  auto c = storm_http_client(target, std::chrono::seconds(10));
  // Only the two families (the whole JSON of a busy lab is some 300 KB): read every second.
  const std::string families = "/metrics?family=quote_lab_carrier_attempts_total,quote_lab_hedges_total";
  auto res = c->Get(lab.empty() ? families : families + "&lab=" + lab, {{"Accept", "application/json"}});
  if (!res || res->status != 200) return std::nullopt;
  const auto j = nlohmann::json::parse(res->body, nullptr, false);
  if (j.is_discarded() || !j.contains("metrics")) return std::nullopt;
  std::optional<double> total;
  for (const auto& family : j["metrics"]) {
    const std::string name = family.value("name", "");
    const bool attempts = name == "quote_lab_carrier_attempts_total";
    if (!attempts && name != "quote_lab_hedges_total") continue;
    if (attempts) total = total.value_or(0);
    for (const auto& sample : family["samples"]) {
      const auto& labels = sample["labels"];
      if (labels.value("mode", "") != mode) continue;
      if (attempts ? labels.value("outcome", "") != "short_circuit" : labels.value("outcome", "") == "sent")
        total = total.value_or(0) + sample.value("value", 0.0);
    }
  }
  return total;
}

std::string storm_quote_path(const std::string& mode) {
  return parse_mode(mode) ? "/quote-" + mode : "/quote/" + mode;
}

std::optional<std::string> check_storm_mode(const std::string& target, const std::string& mode) {
  const auto names = lab_policy_names(target).value_or(mode_names());
  if (std::find(names.begin(), names.end(), mode) != names.end()) return std::nullopt;
  std::string allowed;
  for (const auto& n : names) allowed += (allowed.empty() ? "" : ", ") + n;
  const auto meant = did_you_mean(mode, names);
  return "--mode '" + mode.substr(0, 40) + "' is not a policy of " + target +
         (meant ? " (did you mean '" + *meant + "'?)" : "") + "; its policies: " + allowed;
}

std::optional<std::string> check_storm_target(const std::string& target) {
  prime_httplib_statics();
  auto c = storm_http_client(target, std::chrono::seconds(30));
  const auto res = c->Get("/health", {{"Accept", "application/json"}});
  if (!res)
    return target + " does not answer (" + httplib::to_string(res.error()) + "): is the lab running there? (`quote-lab serve`)";
  const auto body = nlohmann::json::parse(res->body, nullptr, false);
  const std::string service =
      body.is_object() && body.contains("service") && body["service"].is_string() ? body["service"].get<std::string>() : "";
  if (res->status == 200 && service == "quote-lab") return std::nullopt;
  if (service == "carrier")
    return target + " is the simulated carrier, not a quote lab: storm the lab's own port (8080 unless "
                    "`quote-lab serve --port` says otherwise), which calls this carrier for you";
  return target + " is not a quote lab: its GET /health answered HTTP " + std::to_string(res->status) +
         (service.empty() ? std::string(" without \"service\": \"quote-lab\"") : " from service '" + service.substr(0, 40) + "'");
}

}  // namespace quote_lab
