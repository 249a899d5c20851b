#include "lab/experiments/arrival_schedule.hpp"

#include <cmath>

#include "lab/base/name_table.hpp"

namespace quote_lab {
namespace {

constexpr NameTable<ArrivalProcess, 2> kProcessNames{{{
    {ArrivalProcess::poisson, "poisson"},
    {ArrivalProcess::uniform, "uniform"},
}}};

}  // namespace

std::string_view to_string(ArrivalProcess p) { return kProcessNames.name(p); }

std::optional<ArrivalProcess> parse_arrival_process(std::string_view text) { return kProcessNames.parse(text); }

std::vector<std::string> arrival_process_names() { return kProcessNames.names(); }

double arrival_gap_s(double rate_per_s, ArrivalProcess process, double u) {
  if (process == ArrivalProcess::uniform) return 1.0 / rate_per_s;
  // log1p(-u) is ln(1 − u) without the rounding of 1 − u for a tiny u.
  return -std::log1p(-u) / rate_per_s;
}

ArrivalSchedule::ArrivalSchedule(double rate_per_s, ArrivalProcess process, RandomSource& random)
    : rate_per_s_(rate_per_s), process_(process), random_(random) {}

double ArrivalSchedule::next_due_s() {
  if (process_ == ArrivalProcess::uniform) return static_cast<double>(count_++) / rate_per_s_;
  due_s_ += arrival_gap_s(rate_per_s_, process_, random_.uniform());
  return due_s_;
}

}  // namespace quote_lab
