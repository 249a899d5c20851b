// The class's ranking (/class): fewest carrier calls per request first — the carrier is
// shared, so every call a student's lab spares is capacity for the class. Only labs with
// at least MIN_REQUESTS requests get a place: one lucky request (or one the breaker
// refused) is not a result. The others follow, busiest first, without a place.
// Pure: node tests call it.

export const MIN_REQUESTS = 5;

// Calls per request from the raw counts (the JSON's rounded ratio reads 0 for a breaker
// that spared nearly every call, and ties it with a true 0).
const perRequest = lab => (lab.requests > 0 && Number.isFinite(lab.carrier_calls) ? lab.carrier_calls / lab.requests : null);

/// `labs` (GET /class's `labs`) in ranking order, each with `place` (1, 2, …; null below
/// `min` requests) and `calls_per_request` (unrounded; null without requests).
export function rankLabs(labs, min = MIN_REQUESTS) {
  const rows = labs.map(l => ({ ...l, calls_per_request: perRequest(l) }));
  const ranks = l => l.requests >= min && l.calls_per_request != null;
  const ranked = rows.filter(ranks)
    .sort((a, b) => a.calls_per_request - b.calls_per_request || b.requests - a.requests || a.name.localeCompare(b.name))
    .map((l, i) => ({ ...l, place: i + 1 }));
  const rest = rows.filter(l => !ranks(l))
    .sort((a, b) => b.requests - a.requests || a.name.localeCompare(b.name))
    .map(l => ({ ...l, place: null }));
  return [...ranked, ...rest];
}
