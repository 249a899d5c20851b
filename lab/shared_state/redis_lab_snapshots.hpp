#pragma once
// Where the labs' snapshots (app/lab_snapshot.hpp) live in Redis: one hash of snapshot texts
// and one of their class log positions, both keyed by lab name ("" for the teacher's). A
// replica writes a lab's snapshot only if no snapshot further along the class log is stored
// (one Lua script compares the positions), so replicas that hold the same class can all
// write and the latest wins. The transport only: what a snapshot holds is the app's.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lab/shared_state/redis_client.hpp"

namespace quote_lab {

class RedisLabSnapshots {
 public:
  static constexpr const char* kSnapshotsKey = "quote-lab:lab-snapshots";
  static constexpr const char* kPositionsKey = "quote-lab:lab-snapshot-positions";

  /// `redis` is not owned and outlives this.
  explicit RedisLabSnapshots(RedisClient& redis) : redis_(redis) {}

  /// Every stored snapshot's position (lab → class log stream id); nullopt when Redis did
  /// not answer. Small: read at every writing round.
  std::optional<std::map<std::string, std::string>> positions();
  /// The snapshot text stored for `lab`; nullopt when Redis did not answer or holds none.
  /// One lab per round trip: a big class never makes one reply outlast the client's bound.
  std::optional<std::string> read(const std::string& lab);
  /// Stores `text` as `lab`'s snapshot at stream id `position`, unless one at a later
  /// position is stored. True when stored; false when a later one is, or Redis did not answer.
  bool write(const std::string& lab, const std::string& position, const std::string& text);
  /// A lab unchanged since its snapshot: the snapshot holds the lab up to `to` too. For each
  /// (lab, stored, to), moves the stored position from `stored` to `to`, unless another
  /// replica moved it meanwhile. One round trip for all; false when Redis did not answer.
  struct Advance {
    std::string lab, stored, to;
  };
  bool advance(const std::vector<Advance>& labs);

 private:
  RedisClient& redis_;
};

}  // namespace quote_lab
