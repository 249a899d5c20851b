#pragma once
// A port where a connection is really refused: a TCP socket bound on the carrier's host
// but never listening, held open so no other program takes the port. Connecting to it
// gets ECONNREFUSED from the kernel (an RST to the SYN), exactly what a caller sees when
// the carrier's process is gone. The "refused" fault sends an attempt here.

#include <string>

namespace quote_lab {

class RefusingPort {
 public:
  /// Binds `host` on a free port. Throws std::runtime_error if it cannot.
  explicit RefusingPort(const std::string& host);
  ~RefusingPort();
  RefusingPort(const RefusingPort&) = delete;
  RefusingPort& operator=(const RefusingPort&) = delete;

  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace quote_lab
