#pragma once
// The metastability map's points (GET /experiments/map), by ask: a point is deterministic
// (simulation/map_point.hpp), and a class draws the same maps (the page's defaults, the
// lesson's steps), so each is simulated once. The first asker of a point starts it; whoever
// asks for it meanwhile waits for that same run instead of taking another place in the
// simulation runner's line (request coalescing, as Go's singleflight); once run it is answered
// from here. Least recently used first out, at most kCapacity. Safe from any thread: the route
// reads it, the runner's thread fills it.

#include <cstddef>
#include <exception>
#include <future>
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>

namespace quote_lab {

class MapPointCache {
 public:
  /// Points kept: a point's answer is 1-6 KB (its timeline), so at most about 25 MB.
  static constexpr std::size_t kCapacity = 4096;

  /// What find_or_start() gives: the answer to wait for (ready when the point already ran),
  /// and whether this caller started it, and so must finish() or fail() it.
  struct Claim {
    std::shared_future<std::string> answer;
    bool started = false;
  };
  /// The point `key` (MapPointAsk::key()) kept or running, now the most recently used; or a
  /// new entry this caller must produce.
  Claim find_or_start(const std::string& key);
  /// The answer of a point this caller started: every waiter gets it, later askers too.
  void finish(const std::string& key, std::string answer);
  /// A point this caller started will not be produced (the line refused it, the run threw):
  /// its waiters get `why` thrown from the future, and the next asker starts it again.
  void fail(const std::string& key, std::exception_ptr why);
  /// Points kept or running.
  std::size_t size() const;

 private:
  struct Entry {
    std::string key;
    std::promise<std::string> promise;  // kept by the entry until finished or failed
    std::shared_future<std::string> answer;
    bool running = true;
  };
  void drop_oldest_finished();  // mutex_ held

  mutable std::mutex mutex_;  // guards order_ and index_
  std::list<Entry> order_;    // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace quote_lab
