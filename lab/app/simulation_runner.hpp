#pragma once
// Where the lab runs simulations asked over HTTP (GET /experiments/simulate): one thread of
// its own for every lab together, and a bounded line in front of it. A simulation is pure CPU
// (a battery of storms in simulated time is about 0.1 s), so the lab gives it one of the
// machine's cores, never the other: quotes and /health keep theirs while a class asks for
// simulations at once (a bulkhead, as the lab teaches). A request that finds the line full is
// refused at once (the caller answers 503 with Retry-After) instead of queueing without bound.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <mutex>
#include <thread>

namespace quote_lab {

class SimulationRunner {
 public:
  /// Simulations waiting at most (the one running not counted): a class of 30 asking at once
  /// waits in line, a script looping on it is refused.
  static constexpr std::size_t kMaxWaiting = 32;

  SimulationRunner();
  /// Runs what is in line, then joins the thread.
  ~SimulationRunner();
  SimulationRunner(const SimulationRunner&) = delete;
  SimulationRunner& operator=(const SimulationRunner&) = delete;

  /// What one asker may have in line at once, the one running included: a student looping on
  /// the route, or holding 33 connections, fills her own share and never the class's line.
  static constexpr std::size_t kMaxPerAsker = 2;

  enum class Admission { queued, line_full, asker_full };
  /// What a job's work returns: what hands its result to whoever waits (sets a promise). The
  /// runner calls it once the asker's place is free, so that an asker answered may ask again
  /// at once (a page with its 2 places busy sends the next request the moment one answers).
  using Delivery = std::function<void()>;
  /// Puts `work` in line, to run on the runner's thread in arrival order, for `asker` (who asks:
  /// a student's name, a client's address; "" counts toward no share); the runner then frees
  /// the asker's place and calls the Delivery `work` returned (if any). Not queued (and `work`
  /// is dropped) when kMaxWaiting are already waiting, or `asker` has kMaxPerAsker in line.
  /// Neither `work` nor its Delivery may throw.
  Admission submit(std::function<Delivery()> work, const std::string& asker = "");
  /// Simulations waiting now.
  std::size_t waiting() const;
  /// The seconds a refused asker should wait before asking again: 1, plus 1 for every 8 waiting
  /// (a design's battery is 0.05-0.3 s; a simulation of 100,000 quotes can take over a second,
  /// so a long line of those drains slower than this says).
  int retry_after_s() const;

 private:
  void loop();

  mutable std::mutex mutex_;  // guards line_ and stopping_
  std::condition_variable wake_;
  struct Job {
    std::function<Delivery()> work;
    std::string asker;
  };
  std::deque<Job> line_;
  std::map<std::string, std::size_t> in_line_;  // per asker, the one running included
  bool stopping_ = false;
  std::thread thread_;  // last: started once the rest exists
};

}  // namespace quote_lab
