#include "lab/http/event_hub.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace quote_lab {

std::string format_sse(const std::vector<ServerEvent>& events) {
  std::string out;
  for (const auto& e : events) {
    out += "id: " + std::to_string(e.id) + "\n";
    out += "event: " + e.type + "\n";
    out += "data: " + e.data + "\n\n";  // data is one line: dump() without indent
  }
  return out;
}

EventHub::EventHub(std::size_t max_clients) : max_clients_(max_clients) {}

EventHub::~EventHub() { close_all(); }

std::shared_ptr<EventHub::Subscriber> EventHub::subscribe() {
  std::lock_guard lock(mutex_);
  if (closed_ || subscribers_.size() >= max_clients_) return nullptr;
  subscribers_.push_back(std::make_shared<Subscriber>());
  return subscribers_.back();
}

void EventHub::unsubscribe(const std::shared_ptr<Subscriber>& s) {
  std::lock_guard lock(mutex_);
  subscribers_.erase(std::remove(subscribers_.begin(), subscribers_.end(), s), subscribers_.end());
}

void EventHub::publish(const std::string& type, const nlohmann::ordered_json& data) {
  publish_rendered(type, [&data] { return data.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace); });
}

void EventHub::publish_rendered(const std::string& type, const std::function<std::string()>& render_line) {
  if (!relay_) {
    std::lock_guard lock(mutex_);
    if (subscribers_.empty()) return;  // nobody watching: skip the serialisation
  }
  const std::string line = render_line();
  deliver(type, line);
  if (relay_) relay_(type, line);
}

void EventHub::deliver(const std::string& type, const std::string& line) {
  std::lock_guard lock(mutex_);
  if (subscribers_.empty()) return;
  const ServerEvent event{++next_id_, type, line};
  for (auto& s : subscribers_) {
    if (s->queue_.size() >= kQueueLimit) {
      // Too far behind: drop the backlog, tell the page to reload its state.
      s->queue_.clear();
      s->lagged_ = true;
    } else {
      s->queue_.push_back(event);
    }
    s->wake_.notify_all();
  }
}

std::vector<ServerEvent> EventHub::wait(Subscriber& s, Millis timeout, bool& closed) {
  std::unique_lock lock(mutex_);
  s.wake_.wait_for(lock, timeout, [&] { return closed_ || s.lagged_ || !s.queue_.empty(); });
  closed = closed_;
  std::vector<ServerEvent> out;
  if (s.lagged_) {
    out.push_back({next_id_, "resync", "{}"});
    s.lagged_ = false;
  }
  out.insert(out.end(), std::make_move_iterator(s.queue_.begin()), std::make_move_iterator(s.queue_.end()));
  s.queue_.clear();
  return out;
}

void EventHub::close_all() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  for (auto& s : subscribers_) s->wake_.notify_all();
}

std::size_t EventHub::clients() const {
  std::lock_guard lock(mutex_);
  return subscribers_.size();
}

}  // namespace quote_lab
