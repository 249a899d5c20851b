#pragma once
// Retry-After (RFC 9110 §10.2.3): either whole seconds or an HTTP-date in the IMF-fixdate
// form "Sun, 06 Nov 1994 08:49:37 GMT". The scenario loader validates the value a file
// sends; the lab's client turns the carrier's header into a wait.

#include <optional>
#include <string_view>

#include "lab/base/clock.hpp"

namespace quote_lab {

/// The instant an IMF-fixdate names ("Sun, 06 Nov 1994 08:49:37 GMT"), or nullopt when
/// `text` is not one (other date forms are obsolete and not accepted).
std::optional<WallTime> parse_http_date(std::string_view text);

/// The wait a Retry-After header asks for, measured from `now`: whole seconds ("2" → 2000
/// ms), or the time until an HTTP-date (zero for a date already past). nullopt for an
/// empty, negative or unreadable value.
std::optional<Millis> parse_retry_after(std::string_view text, WallTime now);

}  // namespace quote_lab
