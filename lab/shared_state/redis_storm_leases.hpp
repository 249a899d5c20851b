#pragma once
// Storms across replicas: one storm per lab for the whole fleet, and the class-wide cap on
// student storms counted over every replica. A storm runs on the replica that started it
// (it calls that replica); the lease says so to the others:
//   quote-lab:storms   sorted set, member: the lab ("_" for the teacher's unnamed lab; the
//                      teacher's named labs start with '_' too, and count toward no cap),
//                      score: when the lease ends (Redis TIME ms)
// taken by one Lua script that drops ended leases, refuses a lab already storming and a
// student storm beyond the cap, then adds the lease — atomically, so two replicas never
// both start one. A lease lasts the storm's duration plus kLeaseMarginMs and is given back
// by a reset; while Redis cannot answer, each replica decides with its own storms.

#include <optional>
#include <string>
#include <vector>

#include "lab/shared_state/redis_client.hpp"

namespace quote_lab {

class RedisStormLeases {
 public:
  static constexpr const char* kKey = "quote-lab:storms";
  /// A storm stops sending at its duration; its last answers come within the timeouts.
  static constexpr long long kLeaseMarginMs = 5000;

  enum class Lease { granted, lab_busy, class_full };

  /// `client` outlives the leases.
  explicit RedisStormLeases(RedisClient& client) : client_(client) {}

  /// Takes the lease of `lab` ("" for the teacher's) for `duration_ms` + kLeaseMarginMs.
  /// `student_cap`: student storms allowed at once in the class (0: no cap, the teacher's).
  /// nullopt when Redis cannot answer (the caller decides alone).
  std::optional<Lease> take(const std::string& lab, long long duration_ms, std::size_t student_cap);
  /// Gives the leases of `labs` back (a storm stopped early: a reset); "" is the teacher's.
  void give_back(const std::vector<std::string>& labs);

 private:
  RedisClient& client_;
};

}  // namespace quote_lab
