#include "lab/http/accept.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

namespace quote_lab {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Specificity of `range` for `type`: 3 exact, 2 type/*, 1 */*, 0 no match.
int match(std::string_view range, std::string_view type) {
  if (iequals(range, type)) return 3;
  if (range == "*/*") return 1;
  const auto slash = type.find('/');
  if (range.size() == slash + 2 && range.substr(slash) == "/*" && iequals(range.substr(0, slash), type.substr(0, slash)))
    return 2;
  return 0;
}

// Calls `visit(range, q)` for each comma-separated item of an Accept or Accept-Language
// header, with its q parameter (1 when absent, clamped to [0, 1]).
template <class Visit>
void for_each_range(std::string_view header, Visit visit) {
  while (!header.empty()) {
    const auto comma = header.find(',');
    std::string_view item = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view{} : header.substr(comma + 1);
    const auto semi = item.find(';');
    const std::string_view range = trim(item.substr(0, semi));
    double q = 1.0;
    for (auto params = semi == std::string_view::npos ? std::string_view{} : item.substr(semi + 1);
         !params.empty();) {
      const auto next = params.find(';');
      const std::string_view p = trim(params.substr(0, next));
      params = next == std::string_view::npos ? std::string_view{} : params.substr(next + 1);
      if (p.size() > 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=')
        q = std::clamp(std::strtod(std::string(p.substr(2)).c_str(), nullptr), 0.0, 1.0);
    }
    visit(range, q);
  }
}

}  // namespace

double accept_quality(std::string_view accept, std::string_view media_type) {
  if (trim(accept).empty()) return 1.0;
  int best_specificity = 0;
  double best_q = 0.0;
  for_each_range(accept, [&](std::string_view range, double q) {
    const int specificity = match(range, media_type);
    if (specificity > best_specificity) {
      best_specificity = specificity;
      best_q = q;
    }
  });
  return best_q;
}

bool prefers_prometheus_text(std::string_view accept) {
  const double text = std::max(accept_quality(accept, "text/plain"),
                               accept_quality(accept, "application/openmetrics-text"));
  return text > accept_quality(accept, "application/json");
}

bool prefers_html(std::string_view accept) {
  return accept.find("text/html") != std::string_view::npos &&
         accept_quality(accept, "text/html") > accept_quality(accept, "application/json");
}

Language preferred_language(std::string_view accept_language, Language when_unnamed) {
  Language best = when_unnamed;
  double best_q = 0.0;
  for_each_range(accept_language, [&](std::string_view range, double q) {
    const std::string_view primary = range.substr(0, range.find('-'));
    const bool es = iequals(primary, "es");
    if ((es || iequals(primary, "en")) && q > best_q) {
      best_q = q;
      best = es ? Language::es : Language::en;
    }
  });
  return best;
}

}  // namespace quote_lab
