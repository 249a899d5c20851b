#include "lab/base/time_format.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace quote_lab {

std::string format_iso8601(WallTime t) {
  // The civil calendar of <chrono> and plain digit writing: every quote answer carries
  // several timestamps, and gmtime_r + snprintf were 7 % of a short-circuit (bench/changes.md).
  using namespace std::chrono;
  const auto ms = floor<milliseconds>(t);
  const auto day = floor<days>(ms);
  const year_month_day ymd{day};
  const hh_mm_ss hms{ms - day};
  char buf[24];  // "YYYY-MM-DDTHH:MM:SS.mmmZ"
  const auto put = [&buf](int at, long long value, int digits) {
    for (int i = digits - 1; i >= 0; --i, value /= 10) buf[at + i] = static_cast<char>('0' + value % 10);
  };
  const int y = static_cast<int>(ymd.year());
  if (y < 0 || y > 9999) {  // outside ISO 8601's four digits: never a clock's reading, still printed whole
    char wide[64];
    std::snprintf(wide, sizeof wide, "%d-%02u-%02uT%02d:%02d:%02d.%03dZ", y, static_cast<unsigned>(ymd.month()),
                  static_cast<unsigned>(ymd.day()), static_cast<int>(hms.hours().count()),
                  static_cast<int>(hms.minutes().count()), static_cast<int>(hms.seconds().count()),
                  static_cast<int>(hms.subseconds().count()));
    return wide;
  }
  put(0, y, 4);
  buf[4] = '-';
  put(5, static_cast<unsigned>(ymd.month()), 2);
  buf[7] = '-';
  put(8, static_cast<unsigned>(ymd.day()), 2);
  buf[10] = 'T';
  put(11, hms.hours().count(), 2);
  buf[13] = ':';
  put(14, hms.minutes().count(), 2);
  buf[16] = ':';
  put(17, hms.seconds().count(), 2);
  buf[19] = '.';
  put(20, hms.subseconds().count(), 3);
  buf[23] = 'Z';
  return std::string(buf, sizeof buf);
}

std::optional<WallTime> parse_iso8601(std::string_view text) {
  std::tm tm{};
  int consumed = 0;
  const std::string s(text);
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6)
    return std::nullopt;
  std::string_view rest = std::string_view(s).substr(static_cast<std::size_t>(consumed));
  int millis = 0;
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    int digits = 0;
    while (!rest.empty() && rest.front() >= '0' && rest.front() <= '9') {
      if (digits < 3) millis = millis * 10 + (rest.front() - '0');
      ++digits;
      rest.remove_prefix(1);
    }
    if (digits == 0) return std::nullopt;
    for (; digits < 3; ++digits) millis *= 10;
  }
  if (rest != "Z") return std::nullopt;
  if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
      tm.tm_min > 59 || tm.tm_sec > 60)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::time_t secs = timegm(&tm);
  return WallTime(std::chrono::seconds(secs)) + std::chrono::milliseconds(millis);
}

}  // namespace quote_lab
