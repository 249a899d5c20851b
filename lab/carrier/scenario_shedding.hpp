#pragma once
// A scenario's "shedding" block: a carrier with a capacity in concurrent calls, a queue
// with a discipline, a share of the capacity kept for critical calls and an optional
// trigger that takes capacity away for a while. The file format is documented in
// scenario.hpp's header; what the carrier does with it, in shedding_station.hpp.

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace quote_lab {

/// The order waiting calls are served in, and whether a wait has a limit of its own.
enum class QueueDiscipline {
  fifo,          ///< oldest first; a call waits until it is served
  lifo,          ///< newest first; a call waits until it is served
  codel,         ///< oldest first; each wait limited by controlled delay (target / interval)
  adaptive_lifo  ///< codel's limits, newest first while the queue is congested (Facebook)
};

/// "fifo", "lifo", "codel" or "adaptive_lifo".
std::string_view to_string(QueueDiscipline d);
/// Every discipline's name, in declaration order (the file's allowed values).
std::vector<std::string> queue_discipline_names();

/// Where calls wait when every place of the capacity is taken.
struct SheddingQueue {
  QueueDiscipline discipline = QueueDiscipline::fifo;
  int max = 0;            ///< calls that may wait at once; 0: no queue, a call that cannot be served is shed
  /// codel and adaptive_lifo: a call that arrives while the queue has not been empty for
  /// the last interval_ms may wait target_ms at most, any other interval_ms at most. 5 ms and
  /// 100 ms are Facebook's published values ("Fail at Scale", ACM Queue 2015).
  int target_ms = 5;
  int interval_ms = 100;
};

/// Capacity taken away for a while: from after_ms after the lab's first call to the
/// scenario (and again after its reset), for length_ms, the capacity is
/// round(capacity × (1 − capacity_drop)), 0 included (the trigger of a metastable failure:
/// Huang et al., "Metastable Failures in the Wild", OSDI '22, call capacity_drop its depth).
struct SheddingTrigger {
  int after_ms = 0;
  int length_ms = 1;
  double capacity_drop = 0;  ///< 0..1
};

/// A carrier that sheds load (see the file header).
struct Shedding {
  int capacity = 1;  ///< calls served at once
  SheddingQueue queue{};
  /// 0..1: a sheddable call starts service only while fewer than capacity × (1 −
  /// critical_share) calls are in service (Stripe's load shedder keeps 20 % for critical
  /// traffic).
  double critical_share = 0;
  std::optional<SheddingTrigger> trigger{};
};

/// Largest capacity and queue a file may declare (each call holds a carrier worker thread).
inline constexpr int kMaxSheddingCalls = 1000;

/// Parses the "shedding" block; every problem is appended to `errors` as "shedding.FIELD
/// ..." with the allowed values.
Shedding shedding_from_json(const nlohmann::ordered_json& j, std::vector<std::string>& errors);

/// The block as a file writes it (with the defaults it leaves out filled in).
nlohmann::ordered_json to_json(const Shedding& s);

}  // namespace quote_lab
