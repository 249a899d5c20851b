#include "lab/carrier/http_date.hpp"

#include <array>
#include <charconv>
#include <chrono>
#include <string>

namespace quote_lab {
namespace {

constexpr std::array<std::string_view, 7> kDays{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<std::string_view, 12> kMonths{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

std::optional<int> digits(std::string_view s) {
  int v = 0;
  if (s.empty()) return std::nullopt;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<WallTime> parse_http_date(std::string_view t) {
  // "Sun, 06 Nov 1994 08:49:37 GMT": fixed positions, 29 characters.
  if (t.size() != 29 || t.substr(3, 2) != ", " || t[7] != ' ' || t[11] != ' ' || t[16] != ' ' || t[19] != ':' ||
      t[22] != ':' || t.substr(25) != " GMT")
    return std::nullopt;
  int month = -1;
  for (std::size_t i = 0; i < kMonths.size(); ++i)
    if (t.substr(8, 3) == kMonths[i]) month = static_cast<int>(i) + 1;
  const auto day = digits(t.substr(5, 2));
  const auto year = digits(t.substr(12, 4));
  const auto hh = digits(t.substr(17, 2));
  const auto mm = digits(t.substr(20, 2));
  const auto ss = digits(t.substr(23, 2));
  if (month < 0 || !day || !year || !hh || !mm || !ss || *hh > 23 || *mm > 59 || *ss > 60) return std::nullopt;
  using namespace std::chrono;
  const year_month_day ymd{std::chrono::year{*year}, std::chrono::month{static_cast<unsigned>(month)},
                           std::chrono::day{static_cast<unsigned>(*day)}};
  if (!ymd.ok()) return std::nullopt;
  const sys_days date{ymd};
  if (kDays[static_cast<unsigned>(weekday{date}.c_encoding())] != t.substr(0, 3)) return std::nullopt;
  return time_point_cast<WallTime::duration>(date + hours(*hh) + minutes(*mm) + seconds(*ss));
}

std::optional<Millis> parse_retry_after(std::string_view text, WallTime now) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (!text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string_view::npos)
    return Millis(static_cast<long long>(*digits(text)) * 1000);
  const auto at = parse_http_date(text);
  if (!at) return std::nullopt;
  return *at <= now ? Millis::zero() : std::chrono::duration_cast<Millis>(*at - now);
}

}  // namespace quote_lab
