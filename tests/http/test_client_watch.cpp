// ClientWatch on a socket pair: the watched end's token stops once the other end closes,
// and only then.
#include <doctest/doctest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <utility>

#include "lab/http/client_watch.hpp"
#include "support/poll.hpp"

namespace test_client_watch {

using namespace quote_lab;
using namespace std::chrono_literals;
using quote_lab::testing::eventually;

namespace {
// A connected pair: `server` is watched, `client` plays the client.
struct Pair {
  Pair() { REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0); }
  ~Pair() {
    close_client();
    ::close(fds[0]);
  }
  int server() const { return fds[0]; }
  void close_client() {
    if (fds[1] >= 0) ::close(std::exchange(fds[1], -1));
  }
  int fds[2] = {-1, -1};
};
}  // namespace

TEST_CASE("client watch: a client that closes its end stops the token, and one that stays or sends more does not") {
  ClientWatch watch(10ms);
  Pair gone, staying, pipelining;
  const auto r_gone = watch.watch(gone.server());
  const auto r_staying = watch.watch(staying.server());
  const auto r_pipelining = watch.watch(pipelining.server());
  REQUIRE(::send(pipelining.fds[1], "GET /health HTTP/1.1\r\n\r\n", 24, 0) == 24);  // a next request, unread
  CHECK(watch.watched() == 3);
  gone.close_client();
  CHECK(eventually([&] { return r_gone.token().stop_requested(); }, 5s));
  // The poll that saw it gone polled the other two as well.
  CHECK_FALSE(r_staying.token().stop_requested());
  CHECK_FALSE(r_pipelining.token().stop_requested());
}

TEST_CASE("client watch: a registration that ends is no longer watched, and an empty one never stops") {
  ClientWatch watch(10ms);
  Pair p;
  {
    const auto r = watch.watch(p.server());
    CHECK(watch.watched() == 1);
  }
  CHECK(watch.watched() == 0);
  const auto none = ClientWatch::unwatched();
  CHECK_FALSE(none.token().stop_possible());
  const auto negative = watch.watch(-1);
  CHECK_FALSE(negative.token().stop_possible());
  CHECK(watch.watched() == 0);
}

}  // namespace test_client_watch
