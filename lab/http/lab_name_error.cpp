#include "lab/http/lab_name_error.hpp"

#include <string>

namespace quote_lab {

ApiError lab_name_error(std::string_view raw, LabNameProblem problem) {
  if (problem == LabNameProblem::length)
    return api_error(400, "invalid_lab_name", MessageId::lab_name_length,
                     {{"max", std::to_string(kMaxLabNameLength)}, {"got", std::to_string(raw.size())}});
  const std::string suggestion = suggested_lab_name(raw);
  return api_error(400, "invalid_lab_name", MessageId::lab_name_characters,
                   {{"char", first_refused_character(raw)}, {"suggestion", suggestion.empty() ? "ana" : suggestion}});
}

}  // namespace quote_lab
