#pragma once
// `quote-lab storm --layers N`: N retrying layers between the storm's clients
// and the carrier. Layer 1 is the lab's own quote route (it retries the carrier under its
// policy); layers 2..N are RetryRelays (retry_relay.hpp) the storm starts on 127.0.0.1,
// each in front of the one below. The clients call the outermost layer. Every layer's
// retries multiply those below: legacy's 4 attempts, 3 layers, a carrier that always
// fails → 4 × 4 × 4 = 64 carrier calls per request.

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lab/experiments/retry_relay.hpp"

namespace quote_lab {

/// Attempts each relay makes, as the legacy policy does (SPEC: 4 attempts, no backoff).
inline constexpr int kRelayAttempts = 4;

/// What one layer did during a storm.
struct StormLayer {
  int layer = 1;                ///< 1 = the lab (it calls the carrier); N = the one the clients call
  std::string calls;            ///< whom its calls went to: "carrier", "layer 1", ...
  std::uint64_t requests = 0;   ///< requests it received
  std::uint64_t calls_out = 0;  ///< calls it sent to the layer below (to the carrier for layer 1)
  double calls_per_request = 0;  ///< calls_out per request the storm's clients sent
};

/// The longest one flow of the lab's `mode` can last with the storm's `params` (the
/// overrides each request carries), in ms: the policy the lab reports at
/// /diagnostics/summary with the overrides applied, as quote_budget.hpp computes it.
/// nullopt when the lab does not say, or refuses the overrides (then every request gets a
/// 400 and the storm stops at once).
std::optional<std::chrono::milliseconds> lab_flow_worst_ms(
    const std::string& target, const std::string& mode, const std::vector<std::pair<std::string, std::string>>& params);

/// The relays of a layered storm, started in the constructor and stopped on destruction.
class RelayChain {
 public:
  /// Starts layers − 1 relays in front of `lab_target` (no relay when layers is 1), each
  /// with `workers` threads, attempt timeouts from relay_attempt_timeouts(lab_worst_ms).
  RelayChain(const std::string& lab_target, int layers, std::chrono::milliseconds lab_worst_ms, int workers);
  /// The URL the storm's clients call: the outermost relay, or `lab_target` itself.
  const std::string& entry() const { return entry_; }
  /// How long a client should wait for one request at the entry: the outermost layer's
  /// worst case with the same margin as the relays' (30 s at least, the storm's usual wait).
  std::chrono::milliseconds client_timeout() const { return client_timeout_; }
  /// Per layer, outermost first, given the carrier calls the lab made and the requests
  /// the clients sent (their difference over the storm).
  std::vector<StormLayer> layers(std::uint64_t carrier_calls, long client_requests) const;

 private:
  std::vector<std::unique_ptr<RetryRelay>> relays_;  // relays_[0] is layer 2, in front of the lab
  std::string entry_;
  std::chrono::milliseconds client_timeout_{30000};
};

nlohmann::ordered_json to_json(const StormLayer& l);

}  // namespace quote_lab
