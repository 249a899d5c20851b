#include "lab/experiments/storm_layers.hpp"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "lab/formats/policy_json.hpp"
#include "lab/http/params.hpp"
#include "lab/resilience/quote_budget.hpp"

namespace quote_lab {

std::optional<std::chrono::milliseconds> lab_flow_worst_ms(
    const std::string& target, const std::string& mode, const std::vector<std::pair<std::string, std::string>>& params) {
  httplib::Client c(target);
  c.set_connection_timeout(std::chrono::seconds(5));
  c.set_read_timeout(std::chrono::seconds(30));
  const auto res = c.Get("/diagnostics/summary");
  if (!res || res->status != 200) return std::nullopt;
  const auto j = nlohmann::ordered_json::parse(res->body, nullptr, false);
  if (j.is_discarded() || !j.contains("policies")) return std::nullopt;
  Policies policies;
  try {
    policies = policies_from_json(j["policies"], default_policies());
  } catch (const PolicyError&) {
    return std::nullopt;
  }
  const RetryPolicy* named = policies.find(mode);
  if (named == nullptr) return std::nullopt;
  RetryPolicy policy = *named;
  // The overrides the storm's requests carry, applied as the lab applies them.
  std::vector<std::string> changed;
  const auto lookup = [&params](const char* name) -> const std::string* {
    for (const auto& [k, v] : params)
      if (k == name) return &v;
    return nullptr;
  };
  if (apply_policy_overrides(lookup, policy, changed)) return std::nullopt;
  return worst_case_duration(policy);
}

RelayChain::RelayChain(const std::string& lab_target, int layers, std::chrono::milliseconds lab_worst_ms, int workers)
    : entry_(lab_target) {
  const auto timeouts = relay_attempt_timeouts(lab_worst_ms, layers, kRelayAttempts);
  for (const auto timeout : timeouts) {
    relays_.push_back(std::make_unique<RetryRelay>(entry_, kRelayAttempts, timeout, workers));
    entry_ = relays_.back()->url();
  }
  if (!timeouts.empty()) {
    // The margin relay_attempt_timeouts() gives each layer, given once more to the clients.
    const auto outer_worst_ms = static_cast<double>(kRelayAttempts * timeouts.back().count());
    client_timeout_ = std::max(client_timeout_, std::chrono::milliseconds(std::llround(outer_worst_ms * 1.25 + 500)));
  }
}

std::vector<StormLayer> RelayChain::layers(std::uint64_t carrier_calls, long client_requests) const {
  std::vector<StormLayer> out;
  const auto per_request = [client_requests](std::uint64_t calls) {
    return client_requests > 0 ? static_cast<double>(calls) / static_cast<double>(client_requests) : 0.0;
  };
  for (std::size_t k = relays_.size(); k-- > 0;) {
    const RetryRelay& relay = *relays_[k];
    const int layer = static_cast<int>(k) + 2;
    out.push_back({layer, "layer " + std::to_string(layer - 1), relay.requests(), relay.calls_out(),
                   per_request(relay.calls_out())});
  }
  // The lab's requests are the calls the relay in front of it sent (or the clients' own).
  const std::uint64_t lab_requests =
      relays_.empty() ? static_cast<std::uint64_t>(client_requests) : relays_.front()->calls_out();
  out.push_back({1, "carrier", lab_requests, carrier_calls, per_request(carrier_calls)});
  return out;
}

nlohmann::ordered_json to_json(const StormLayer& l) {
  return {{"layer", l.layer},
          {"calls", l.calls},
          {"requests", l.requests},
          {"calls_out", l.calls_out},
          {"calls_per_request", std::round(l.calls_per_request * 1000) / 1000}};
}

}  // namespace quote_lab
