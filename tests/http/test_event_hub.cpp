// EventHub (lab/http/event_hub.hpp) as it behaves today: bounded clients, a bounded queue
// per client that ends in one resync, unsubscribe, shutdown, and the SSE wire format.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "lab/http/event_hub.hpp"

namespace test_event_hub {

using namespace quote_lab;
using namespace std::chrono_literals;

namespace {
std::vector<ServerEvent> take(EventHub& hub, EventHub::Subscriber& s, Millis timeout = 1ms) {
  bool closed = false;
  return hub.wait(s, timeout, closed);
}
}  // namespace

TEST_CASE("at most max_clients streams at once, a stream that ends frees its slot") {
  EventHub hub(2);
  const auto a = hub.subscribe();
  const auto b = hub.subscribe();
  REQUIRE(a);
  REQUIRE(b);
  CHECK(hub.subscribe() == nullptr);  // the third browser is told no, the lab keeps its workers
  CHECK(hub.clients() == 2);
  hub.unsubscribe(a);
  CHECK(hub.clients() == 1);
  CHECK(hub.subscribe() != nullptr);
  CHECK(hub.clients() == 2);
}

TEST_CASE("every subscriber gets each event once, in order, with increasing ids") {
  EventHub hub(4);
  const auto a = hub.subscribe();
  const auto b = hub.subscribe();
  hub.publish("quote", {{"status", "completed"}});
  hub.publish("breaker", {{"to", "open"}});
  for (const auto& s : {a, b}) {
    const auto events = take(hub, *s);
    REQUIRE(events.size() == 2);
    CHECK(events[0].type == "quote");
    CHECK(events[0].data == R"({"status":"completed"})");
    CHECK(events[1].type == "breaker");
    CHECK(events[1].id == events[0].id + 1);
    CHECK(take(hub, *s).empty());  // taken once
  }
}

TEST_CASE("a subscriber sees only what was published after it subscribed") {
  EventHub hub(2);
  hub.publish("quote", {{"n", 1}});
  const auto s = hub.subscribe();
  hub.publish("quote", {{"n", 2}});
  const auto events = take(hub, *s);
  REQUIRE(events.size() == 1);
  CHECK(events[0].data == R"({"n":2})");
}

TEST_CASE("with nothing to send, wait returns empty after its timeout: time for a heartbeat") {
  EventHub hub(1);
  const auto s = hub.subscribe();
  bool closed = true;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(hub.wait(*s, 20ms, closed).empty());
  CHECK(std::chrono::steady_clock::now() - t0 >= 20ms);
  CHECK_FALSE(closed);
}

TEST_CASE("a stuck browser's queue is bounded: past the limit its backlog becomes one resync") {
  EventHub hub(2);
  const auto stuck = hub.subscribe();
  const auto live = hub.subscribe();
  constexpr std::size_t kLimit = EventHub::kQueueLimit;
  for (std::size_t i = 0; i < kLimit; ++i) hub.publish("quote", {{"n", i}});
  CHECK(take(hub, *live).size() == kLimit);  // a reader that keeps up loses nothing
  hub.publish("quote", {{"n", "overflow"}});  // the stuck one is now kLimit + 1 behind
  hub.publish("reset", {{"n", "after"}});

  const auto events = take(hub, *stuck);
  REQUIRE(events.size() == 2);
  CHECK(events[0].type == "resync");  // first: reload the state over plain HTTP
  CHECK(events[0].data == "{}");
  CHECK(events[1].type == "reset");   // then what came after the overflow
  CHECK(events[1].data == R"({"n":"after"})");
  const auto live_events = take(hub, *live);
  REQUIRE(live_events.size() == 2);  // the live reader is not affected
  CHECK(live_events[0].type == "quote");
  CHECK(take(hub, *stuck).empty());  // one resync, not one per wait
}

TEST_CASE("however far behind, a subscriber holds at most kQueueLimit events and gets a single resync") {
  EventHub hub(1);
  const auto s = hub.subscribe();
  constexpr std::size_t kLimit = EventHub::kQueueLimit;
  for (std::size_t i = 0; i < 3 * kLimit; ++i) hub.publish("quote", {{"n", i}});
  const auto events = take(hub, *s);
  REQUIRE_FALSE(events.empty());
  CHECK(events.size() <= kLimit + 1);
  CHECK(events[0].type == "resync");
  CHECK(std::count_if(events.begin(), events.end(), [](const ServerEvent& e) { return e.type == "resync"; }) == 1);
  CHECK(events.back().data == nlohmann::json{{"n", 3 * kLimit - 1}}.dump());  // the newest is kept
}

TEST_CASE("an unsubscribed stream receives nothing more") {
  EventHub hub(2);
  const auto gone = hub.subscribe();
  const auto stays = hub.subscribe();
  hub.unsubscribe(gone);
  hub.publish("quote", {{"n", 1}});
  CHECK(take(hub, *gone).empty());
  CHECK(take(hub, *stays).size() == 1);
  hub.unsubscribe(gone);  // twice is harmless
  CHECK(hub.clients() == 1);
}

TEST_CASE("close_all wakes a waiting stream at once and refuses new ones") {
  EventHub hub(2);
  const auto s = hub.subscribe();
  bool closed = false;
  std::vector<ServerEvent> got;
  std::thread stream([&] { got = hub.wait(*s, 10s, closed); });
  const auto t0 = std::chrono::steady_clock::now();
  hub.close_all();
  stream.join();
  CHECK(closed);
  CHECK(got.empty());
  CHECK(std::chrono::steady_clock::now() - t0 < 5s);  // woken, not timed out
  CHECK(hub.subscribe() == nullptr);
}

TEST_CASE("events go out in the text/event-stream format, one data line each") {
  CHECK(format_sse({{7, "quote", R"({"a":1})"}, {8, "resync", "{}"}}) ==
        "id: 7\nevent: quote\ndata: {\"a\":1}\n\n"
        "id: 8\nevent: resync\ndata: {}\n\n");
  CHECK(format_sse({}).empty());
  EventHub hub(1);
  const auto s = hub.subscribe();
  hub.publish("quote", {{"text", "two\nlines"}, {"bytes", std::string("\xff")}});
  const auto events = take(hub, *s);
  REQUIRE(events.size() == 1);
  CHECK(events[0].data.find('\n') == std::string::npos);  // a newline would end the SSE event early
  CHECK(events[0].data == "{\"text\":\"two\\nlines\",\"bytes\":\"\xEF\xBF\xBD\"}");  // bad UTF-8 replaced, not thrown
}

}  // namespace test_event_hub
