#pragma once
// Which of a storm's quote requests say they may be shed (`--sheddable-share F`): a carrier
// that sheds load by priority drops `sheddable` traffic first and keeps `critical` traffic
// (Netflix's prioritised load shedding; Stripe's shedder reserving capacity for critical
// requests). The lab passes the header on to its carrier.

#include <string_view>

namespace quote_lab {

/// The request header that carries the priority, and its two values.
inline constexpr std::string_view kPriorityHeader = "X-Priority";
inline constexpr std::string_view kSheddable = "sheddable";
inline constexpr std::string_view kCritical = "critical";

/// Whether request number `k` (0-based, in the order the storm made them) is sheddable when
/// a share `share` (0..1) of them are: floor((k + 1)·F) > floor(k·F). Spread evenly and
/// exact: of the first n requests, floor(n·F) are sheddable (the differences telescope).
/// No randomness, so two runs mark the same requests. Pure.
bool sheddable_request(long k, double share);

}  // namespace quote_lab
