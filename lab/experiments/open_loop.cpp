#include "lab/experiments/open_loop.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>

#include "lab/experiments/arrival_schedule.hpp"
#include "lab/experiments/priority_mix.hpp"

namespace quote_lab {
namespace {

// One arrival handed to a sender.
struct Arrival {
  long k = 0;                       // its number: its priority, its target
  StormSteady::time_point due{};    // latency and the goodput deadline count from here
};

// Up to `max` sender threads, started as arrivals need them (a fast lab needs a handful).
class SenderPool {
 public:
  SenderPool(StormRun& run, const std::vector<std::string>& targets, std::chrono::seconds timeout, const std::string& path)
      : run_(run), targets_(targets), timeout_(timeout), path_(path), max_(run.o.max_in_flight) {}
  ~SenderPool() { close_and_join(); }
  SenderPool(const SenderPool&) = delete;
  SenderPool& operator=(const SenderPool&) = delete;

  // Hands `a` to a sender; false when `max` requests are unanswered (it is not sent).
  bool try_send(const Arrival& a) {
    std::lock_guard lock(mutex_);
    if (in_flight_ >= max_) return false;
    peak_ = std::max(peak_, ++in_flight_);
    queue_.push_back(a);
    if (static_cast<int>(queue_.size()) > idle_) start_sender_locked();
    else work_.notify_one();
    return true;
  }

  // No more arrivals: each sender ends once the queue is empty and its request answered.
  void close_and_join() {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    work_.notify_all();
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

  int peak_in_flight() {
    std::lock_guard lock(mutex_);
    return peak_;
  }

  // After close_and_join(): every sender's logs.
  std::vector<ClientLog> take_logs() {
    std::vector<ClientLog> out;
    for (auto& s : senders_)
      for (auto& log : s->logs) out.push_back(std::move(log));
    return out;
  }

 private:
  // A sender's own connections (one per target, opened on first use) and logs.
  struct Sender {
    std::vector<std::unique_ptr<httplib::Client>> clients;
    std::vector<ClientLog> logs;
  };

  void start_sender_locked() {
    auto sender = std::make_unique<Sender>();
    sender->clients.resize(targets_.size());
    sender->logs.resize(targets_.size());
    for (std::size_t t = 0; t < targets_.size(); ++t) sender->logs[t].target = t;
    Sender* mine = sender.get();
    senders_.push_back(std::move(sender));
    threads_.emplace_back([this, mine] { send_until_closed(*mine); });
  }

  void send_until_closed(Sender& me) {
    for (;;) {
      Arrival a;
      {
        std::unique_lock lock(mutex_);
        ++idle_;
        work_.wait(lock, [this] { return !queue_.empty() || closing_; });
        --idle_;
        if (queue_.empty()) return;
        a = queue_.front();
        queue_.pop_front();
      }
      const std::size_t t = static_cast<std::size_t>(a.k) % targets_.size();
      auto& cli = me.clients[t];
      if (!cli) cli = storm_http_client(targets_[t], timeout_);
      if (!send_storm_request(run_, *cli, path_, a.k, a.due, me.logs[t])) cli.reset();  // fresh connection next time
      std::lock_guard lock(mutex_);
      --in_flight_;
    }
  }

  StormRun& run_;
  const std::vector<std::string>& targets_;
  const std::chrono::seconds timeout_;
  const std::string& path_;
  const int max_;
  std::mutex mutex_;  // guards the fields below; each Sender is its thread's alone until the join
  std::condition_variable work_;
  std::deque<Arrival> queue_;
  int in_flight_ = 0;  // handed out and not answered yet (queued or being sent)
  int idle_ = 0;       // senders waiting for an arrival
  int peak_ = 0;
  bool closing_ = false;
  std::vector<std::unique_ptr<Sender>> senders_;
  std::vector<std::thread> threads_;
};

// Sleeps until `t`; false as soon as the storm is interrupted (checked every 50 ms at most).
bool wait_until(const StormRun& run, StormSteady::time_point t) {
  for (;;) {
    if (run.interrupted()) return false;
    const auto now = StormSteady::now();
    if (now >= t) return true;
    std::this_thread::sleep_until(std::min(t, now + std::chrono::milliseconds(50)));
  }
}

}  // namespace

OpenLoopTally run_open_loop(StormRun& run, const std::vector<std::string>& targets, std::chrono::seconds timeout,
                            const std::string& path, RandomSource& random, const std::function<void()>& arrivals_over) {
  const StormOptions& o = run.o;
  OpenLoopTally tally;
  ClientLog not_sent;
  SenderPool pool(run, targets, timeout, path);
  ArrivalSchedule schedule(*o.rate_per_s, o.arrivals, random);
  const double end_s = o.requests ? std::numeric_limits<double>::infinity() : o.duration_s;
  bool whole = true;  // not interrupted
  for (long k = 0; !o.requests || k < *o.requests; ++k) {
    const double due_s = schedule.next_due_s();
    if (due_s >= end_s) break;
    // An absolute due time: a dispatcher that fell behind (a slow wake-up, a busy core)
    // hands out the arrivals it owes at once instead of shifting every later one.
    const auto due = run.after(due_s);
    if (!(whole = wait_until(run, due))) break;
    ++tally.arrivals;
    tally.lag_ms.push_back(std::chrono::duration<double, std::milli>(StormSteady::now() - due).count());
    if (pool.try_send({k, due})) continue;
    ++tally.not_sent;
    not_sent.records.push_back({.arrival_s = due_s, .sent = false, .verdict = AnswerVerdict::no_answer,
                                .sheddable = sheddable_request(k, o.sheddable_share)});
  }
  // By duration, the window is the whole duration: no arrival in its last gap is part of the load.
  if (whole && !o.requests) wait_until(run, run.after(o.duration_s));
  tally.window_s = run.since_start_s(StormSteady::now());
  arrivals_over();
  pool.close_and_join();
  tally.peak_in_flight = pool.peak_in_flight();
  tally.logs = pool.take_logs();
  tally.logs.push_back(std::move(not_sent));
  return tally;
}

}  // namespace quote_lab
