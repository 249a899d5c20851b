#include "lab/carrier/refusing_port.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace quote_lab {

RefusingPort::RefusingPort(const std::string& host) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1)
    throw std::runtime_error("refusing port: '" + host + "' is not an IPv4 address");
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  socklen_t n = sizeof addr;
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &n) != 0) {
    if (fd_ >= 0) ::close(fd_);
    throw std::runtime_error("refusing port: cannot bind " + host);
  }
  port_ = ntohs(addr.sin_port);  // never listen(): connects to it are refused
}

RefusingPort::~RefusingPort() { ::close(fd_); }

}  // namespace quote_lab
