#pragma once
// Forward declarations of the cpp-httplib types that route signatures name, so that a
// header can declare handlers without pulling in all of <httplib.h> (and its OpenSSL,
// zlib and brotli definitions) wherever it is included.

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib
