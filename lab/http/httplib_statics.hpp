#pragma once
// cpp-httplib 0.11.4 builds some function-local statics lazily, on first use, inside the
// prebuilt (uninstrumented) library. ThreadSanitizer sees their construction but not the
// inline guard check of the threads that use them later, so two threads using one for the
// first time at once are reported as a data race: false positives, seen in the TSan
// suite for the request parser and the response parser. Constructing them all once, on a
// thread that then starts the others, orders their construction before every use.

namespace quote_lab {

/// Builds every function-local static of cpp-httplib 0.11.4 that the lab's paths reach:
/// the server's request-line parser (a set of methods), its Range-header parser (a
/// regex, reached by any request that carries one), the end marker of a chunked answer
/// (the live streams), the client's response-line parser, its URL parser and its
/// query-string joiner (regexes). Found by listing the library's __cxa_guard_acquire
/// call sites (docs/stack-notes.md); the others are for redirects, digest auth and
/// mount points, which the lab does not use.
/// Call it before starting threads that serve or send HTTP; only the first call works,
/// later ones return at once. No network, no effect besides those statics.
void prime_httplib_statics();

}  // namespace quote_lab
