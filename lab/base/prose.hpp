#pragma once
// The same words in the two languages the lab speaks (the course glossary's terms in
// Spanish): what a student reads of a strategy, a setting or a gauge. Standard library only.

#include <string_view>

namespace quote_lab {

struct Prose {
  std::string_view es;
  std::string_view en;
};

}  // namespace quote_lab
