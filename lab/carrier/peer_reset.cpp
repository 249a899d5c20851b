#include "lab/carrier/peer_reset.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>

namespace quote_lab {

bool reset_connection(int local_port, const std::string& remote_addr, int remote_port) {
  in_addr want{};
  if (inet_pton(AF_INET, remote_addr.c_str(), &want) != 1) return false;
  rlimit lim{};
  const int max_fd = getrlimit(RLIMIT_NOFILE, &lim) == 0 ? static_cast<int>(std::min<rlim_t>(lim.rlim_cur, 65536)) : 1024;
  for (int fd = 3; fd < max_fd; ++fd) {
    sockaddr_in local{};
    sockaddr_in peer{};
    socklen_t n = sizeof local;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &n) != 0 || local.sin_family != AF_INET ||
        ntohs(local.sin_port) != local_port)
      continue;
    n = sizeof peer;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &n) != 0 || ntohs(peer.sin_port) != remote_port ||
        peer.sin_addr.s_addr != want.s_addr)
      continue;
    // SO_LINGER {1, 0} alone is not enough: httplib shuts the socket down (a FIN) before it
    // closes it. Disconnecting a connected TCP socket (connect with AF_UNSPEC) aborts it
    // with an RST now (Linux tcp_disconnect); the descriptor stays valid for httplib to close.
    const linger reset{1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    sockaddr unspec{};
    unspec.sa_family = AF_UNSPEC;
    return ::connect(fd, &unspec, sizeof unspec) == 0;
  }
  return false;
}

}  // namespace quote_lab
