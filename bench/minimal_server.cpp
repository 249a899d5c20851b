// The ceiling: the smallest cpp-httplib server that answers GET /health with a short JSON
// body, built from the same Debian library, compiler flags and allocator as the lab. The
// benchmark measures it in the same run as the lab, so every figure of the lab is a ratio
// to what this HTTP library can do on this machine, not an absolute number that moves
// with the machine's load.
//
//   bench_minimal_server PORT     (listens on 127.0.0.1 until SIGTERM)
//
// Settings match the lab's listener: TCP_NODELAY (Nagle would add 40 ms, see
// docs/stack-notes.md), keep-alive without a small request cap, the library's own pool.
#include <httplib.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

namespace {
httplib::Server* g_server = nullptr;
void on_signal(int) {
  if (g_server) g_server->stop();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: bench_minimal_server PORT\n";
    return 2;
  }
  const int port = std::atoi(argv[1]);
  httplib::Server server;
  server.set_tcp_nodelay(true);
  server.set_keep_alive_max_count(100000);
  server.Get("/health", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"status":"ok"})", "application/json");
  });
  g_server = &server;
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  if (!server.bind_to_port("127.0.0.1", port)) {
    std::cerr << "cannot listen on 127.0.0.1:" << port << "\n";
    return 1;
  }
  std::cout << "listening on 127.0.0.1:" << port << std::endl;
  server.listen_after_bind();
  return 0;
}
