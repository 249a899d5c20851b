#pragma once
// Content negotiation on the Accept header (RFC 9110 §12.5.1), reduced to the choices
// the lab makes: JSON or Prometheus text for /metrics, JSON or a page for / and the pages,
// and English or Spanish for messages.

#include <string_view>

namespace quote_lab {

/// The q-value the Accept header gives `media_type` ("type/subtype"), counting
/// "type/*" and "*/*" ranges; the most specific range wins. 0 when not acceptable.
/// An empty header accepts everything (q = 1).
double accept_quality(std::string_view accept, std::string_view media_type);

/// True when the client prefers Prometheus text (text/plain or
/// application/openmetrics-text) strictly over application/json, as Prometheus's scraper does.
bool prefers_prometheus_text(std::string_view accept);

/// True when the client names text/html and prefers it strictly over application/json,
/// as a browser does; curl's "*/*" gets JSON.
bool prefers_html(std::string_view accept);

/// The languages the lab speaks to students.
enum class Language { en, es };

/// The language an Accept-Language header (RFC 9110 §12.5.4) prefers of the two: the
/// range with the highest q whose primary tag is "es" or "en" ("es-AR", "en-US" count),
/// the first listed on a tie. `when_unnamed` when it names neither, or is absent (curl):
/// the lab passes the language its server was started with (`serve --language`, English
/// by default; HttpServer::Server::default_language).
Language preferred_language(std::string_view accept_language, Language when_unnamed);

}  // namespace quote_lab
