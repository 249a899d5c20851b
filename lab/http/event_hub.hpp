#pragma once
// Live updates for open dashboards (Server-Sent Events): the lab publishes each finished
// quote flow, breaker transition and reset once; every subscriber gets its own bounded
// queue, so a slow or stuck browser can never make the lab's memory grow. A subscriber
// that falls behind by more than kQueueLimit events gets one "resync" event instead
// (the page then reloads its state over plain HTTP).
//
// Behind several replicas a lab's page may be held by any of them: a relay (set_relay)
// receives every event published here, to share it with the other replicas, and what
// they share comes back in through deliver(), which reaches this replica's pages only.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "lab/base/clock.hpp"

namespace quote_lab {

/// One event as sent on the stream.
struct ServerEvent {
  std::uint64_t id = 0;
  std::string type;  ///< "quote", "breaker", "reset", "carrier_mode", "resync"
  std::string data;  ///< one line of JSON
};

/// Formats events in the text/event-stream wire format ("id:", "event:", "data:", blank line).
std::string format_sse(const std::vector<ServerEvent>& events);

class EventHub {
 public:
  static constexpr std::size_t kQueueLimit = 256;

  /// A connected client's queue. Owned by the stream that reads it.
  class Subscriber;

  /// At most `max_clients` streams at once (each holds one lab worker while open).
  explicit EventHub(std::size_t max_clients);
  ~EventHub();

  /// A new subscriber, or nullptr when `max_clients` are already connected.
  std::shared_ptr<Subscriber> subscribe();
  /// Removes a subscriber (its stream ended).
  void unsubscribe(const std::shared_ptr<Subscriber>& s);
  /// Called with every event published on this hub (not those delivered), after its
  /// subscribers have it; the relay must not block. Set once, before any publish.
  using Relay = std::function<void(const std::string& type, const std::string& line)>;
  void set_relay(Relay relay) { relay_ = std::move(relay); }
  /// Queues `data` for every subscriber and gives it to the relay. Never blocks on a client.
  void publish(const std::string& type, const nlohmann::ordered_json& data);
  /// The same for data already written as one line of JSON: `render_line` is called only
  /// when someone is subscribed or a relay is set (otherwise no serialisation at all).
  void publish_rendered(const std::string& type, const std::function<std::string()>& render_line);
  /// Queues an event another replica published (or one the caller shares itself) for this
  /// hub's subscribers only: the relay is not called.
  void deliver(const std::string& type, const std::string& line);
  /// Waits up to `timeout` (real time) for events and takes them all. Returns an empty list
  /// on timeout (time for a heartbeat). `closed` is set when the hub is shutting down.
  std::vector<ServerEvent> wait(Subscriber& s, Millis timeout, bool& closed);
  /// Wakes every stream and makes it end (shutdown).
  void close_all();
  std::size_t clients() const;

 private:
  const std::size_t max_clients_;
  mutable std::mutex mutex_;  // guards subscribers_, next_id_, closed_ and every queue
  std::vector<std::shared_ptr<Subscriber>> subscribers_;
  std::uint64_t next_id_ = 0;
  bool closed_ = false;
  Relay relay_;  // set before the first publish, read without the lock
};

class EventHub::Subscriber {
 private:
  friend class EventHub;
  std::deque<ServerEvent> queue_;  // guarded by EventHub::mutex_
  bool lagged_ = false;
  std::condition_variable wake_;
};

}  // namespace quote_lab
