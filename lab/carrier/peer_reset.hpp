#pragma once
// A real TCP reset for the "reset_peer" fault. cpp-httplib 0.11.4 hands a handler no
// socket, so the connection is found by its two ends (the request's local and remote
// address and port) among this process's descriptors and aborted at once: SO_LINGER
// {on, 0 s} plus a disconnect (connect with AF_UNSPEC) sends an RST instead of a FIN
// (Toxiproxy's reset_peer also sets SO_LINGER 0). Linux only, like the rest of the lab.

#include <string>

namespace quote_lab {

/// Resets the IPv4 TCP connection whose local end is `local_port` and whose peer is
/// `remote_addr:remote_port`. Returns false when no such socket is found (the close that
/// follows is then an ordinary FIN: the caller still sees a connection cut mid-answer).
bool reset_connection(int local_port, const std::string& remote_addr, int remote_port);

}  // namespace quote_lab
