#pragma once
// A real TCP reset for the "reset_peer" fault. cpp-httplib 0.11.4 hands a handler no
// socket, so the connection is found by its two ends (the request's local and remote
// address and port) among this process's descriptors; SO_LINGER {on, 0 s} then makes
// the close that follows send an RST instead of a FIN (Toxiproxy's reset_peer does the same).

#include <string>

namespace quote_lab {

/// Sets SO_LINGER {1, 0} on the IPv4 TCP socket whose local end is `local_port` and whose
/// peer is `remote_addr:remote_port`. Returns false when no such socket is found (the
/// close is then an ordinary FIN: the caller still sees a connection cut mid-answer).
bool arm_reset_on_close(int local_port, const std::string& remote_addr, int remote_port);

}  // namespace quote_lab
