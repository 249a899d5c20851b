#pragma once
// The answer to a refused lab name, the same from every route that reads one (`?lab=`,
// `/claim?name=`): which rule it broke, the character that broke it, and a name that works.

#include <string_view>

#include "lab/base/lab_name.hpp"
#include "lab/http/api_error.hpp"

namespace quote_lab {

/// 400 `invalid_lab_name` for `raw`, refused by normalize_lab_name with `problem` (length, or
/// characters: then naming the first refused one and suggested_lab_name's fix).
ApiError lab_name_error(std::string_view raw, LabNameProblem problem);

}  // namespace quote_lab
