#pragma once
// Reading the fields of a policies file's objects: each reader appends a sentence to
// `errors` instead of stopping, so one start-up reports every problem together; a value of
// the wrong type or out of range leaves the target as it was. Shared by policy_json and
// pipeline_json.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "lab/base/did_you_mean.hpp"
#include "lab/formats/json_int.hpp"
#include "lab/resilience/strategy_settings.hpp"

namespace quote_lab::json_fields {

using quote_lab::check_range;

/// "NAME must be between LO and HI".
inline std::string range_text(const std::string& name, long long lo, long long hi) {
  return name + " must be between " + std::to_string(lo) + " and " + std::to_string(hi);
}

/// Reads an integer field if present. The value is compared with [lo, hi] at full width
/// before it becomes an int, so 4294967298 is refused rather than read as 2.
inline void read_int(const nlohmann::ordered_json& obj, const std::string& prefix, const char* key, int lo, int hi,
                     int& out, std::vector<std::string>& errors) {
  if (!obj.contains(key)) return;
  const auto& v = obj.at(key);
  if (!v.is_number_integer()) return errors.push_back(int_range_problem(prefix + key, v, lo, hi));
  const auto value = json_int_in_range(v, lo, hi);
  if (!value) return errors.push_back(range_text(prefix + key, lo, hi) + " (got " + v.dump() + ")");
  out = static_cast<int>(*value);
}

/// Reads one number or bool field if present, recording a type error otherwise.
template <class T>
void read_field(const nlohmann::ordered_json& obj, const std::string& prefix, const char* key, T& out,
                std::vector<std::string>& errors) {
  if (!obj.contains(key)) return;
  const auto& v = obj.at(key);
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) return errors.push_back(prefix + key + " must be true or false (got " + shown_value(v) + ")");
    out = v.get<bool>();
  } else {
    static_assert(std::is_floating_point_v<T>, "integers go through read_int");
    if (!v.is_number()) return errors.push_back(prefix + key + " must be a number (got " + shown_value(v) + ")");
    out = v.get<T>();
  }
}

/// Reads a number field if present and within [lo, hi]; outside it, "PREFIXKEY must be
/// between LO and HI (got V)" and `out` stays as it was.
inline void read_number(const nlohmann::ordered_json& obj, const std::string& prefix, const char* key, double lo,
                        double hi, double& out, std::vector<std::string>& errors) {
  if (!obj.contains(key)) return;
  double v = out;
  const std::size_t before = errors.size();
  read_field(obj, prefix, key, v, errors);
  if (errors.size() == before) check_range(errors, prefix + key, v, lo, hi);
  if (errors.size() == before) out = v;
}

/// "a, b, c".
inline std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

/// "NAME must be one of: a, b (got V)", with "; did you mean 'x'?" when V is a near miss of a
/// name: a choice setting (jitter, delay.mode, headroom...) written wrong.
inline std::string choice_problem(const std::string& name, const nlohmann::ordered_json& got,
                                  const std::vector<std::string>& names) {
  std::string out = name + " must be one of: " + joined(names) + " (got " + shown_value(got) + ")";
  if (const auto meant = got.is_string() ? did_you_mean(got.get<std::string>(), names) : std::nullopt)
    out += "; did you mean '" + *meant + "'?";
  return out;
}

/// Appends "WHERE: unknown key 'K'" for each key of `obj` not in `known`.
inline void check_keys(const nlohmann::ordered_json& obj, const std::string& where,
                       std::initializer_list<std::string_view> known, std::vector<std::string>& errors) {
  for (const auto& [key, _] : obj.items()) {
    bool ok = false;
    for (auto k : known) ok = ok || key == k;
    if (!ok) errors.push_back(where + ": unknown key '" + key + "'");
  }
}

}  // namespace quote_lab::json_fields
