// The overload strategies panel, its data: for each policy of the lab whose pipeline has a
// strategy with live figures (GET /'s `strategies[].gauges`: a bulkhead's places, a
// throttle's drop probability, a quota's tokens...), what it admitted, refused (by reason)
// and hedged, and each figure as the index describes it. The panel names no strategy: a new
// one shows up with its row in the lab. Counts come from the lab's own counters
// (/diagnostics/summary, which the page reads anyway, and the metric families below), never
// from the answers the stream happened to carry: a storm's thousands of refusals a second
// are counted whole. Pure (no DOM): node tests drive it.

/// The counter families the panel reads besides the strategies' gauges.
export const OVERLOAD_COUNTERS = ['quote_lab_overload_rejections_total', 'quote_lab_hedges_total'];

/// The families the panel reads for `policies` (overloadPolicies): the counters and the
/// gauges their strategies show. GET /metrics?family=… answers these only (a few KB, where
/// the whole telemetry of a busy lab is some 300 KB).
export const overloadFamilies = policies =>
  [...new Set([...OVERLOAD_COUNTERS, ...policies.flatMap(p => p.live.map(g => g.family))])];

/// The path that reads them (the page's lab is added by net.js).
export const overloadMetricsPath = policies => `/metrics?family=${overloadFamilies(policies).join(',')}`;

/// The policies with a strategy that shows live figures, in the index's order: [{name,
/// strategies, terms, refuses, hedges, live}]: its strategies in its pipeline's order, each
/// one's name in prose ({es, en}, the index's `term`), whether one of them refuses calls or
/// hedges, and `live`: each gauge they show ({family, label, shows, settles, beforeFirst,
/// outOf}), `outOf` the value of the pipeline step's setting it is shown against; a figure
/// shown against a setting of 0 is left out (a bulkhead without a queue has no queue to show).
export function overloadPolicies(index) {
  const known = Object.fromEntries((index?.strategies || []).map(s => [s.name, s]));
  const out = [];
  for (const [name, policy] of Object.entries(index?.policies || {})) {
    const steps = (policy?.pipeline || []).filter(s => known[s.strategy]?.gauges?.length);
    if (!steps.length) continue;
    const strategies = steps.map(s => s.strategy);
    out.push({ name, strategies,
      terms: Object.fromEntries(strategies.map(s => [s, known[s].term])),
      refuses: strategies.some(s => known[s].rejects != null),
      hedges: strategies.some(s => known[s].hedges),
      live: steps.flatMap(step => known[step.strategy].gauges.map(g => ({
        family: g.family, label: g.label, shows: g.shows, settles: g.settles, beforeFirst: g.before_first ?? null,
        outOf: g.out_of ? step[g.out_of] ?? null : null })))
        .filter(g => g.outOf !== 0) });  // against a setting of 0 (a bulkhead without a queue) it could only read 0 / 0
  }
  return out;
}

/// The samples of GET /metrics's JSON (`metrics`: families with `samples`) by family, then by
/// mode: {family: {mode: [{labels, value}]}}.
export function samplesByMode(metrics) {
  const out = {};
  for (const family of metrics?.metrics || []) {
    const byMode = out[family.name] = {};
    for (const s of family.samples || []) (byMode[s.labels?.mode] ??= []).push(s);
  }
  return out;
}

const one = (samples, family, mode) => {
  const s = samples[family]?.[mode];
  return s?.length ? Number(s[0].value) : null;
};

/// One row of the panel per policy: `requests` and `calls` (carrier calls the strategies let
/// through) from the summary's modes; `rejected` {reason: n} and `rejectedTotal` (`refuses`:
/// whether the policy can refuse at all); `hedges` {sent, won, skipped} (null for a policy
/// that does not hedge); and `live`, the policy's gauges with their `value`, null where the
/// lab has none yet (adaptive retry's rate exists once a 429 turned it on).
export function overloadRows(policies, summaryModes, metrics) {
  const samples = samplesByMode(metrics);
  return policies.map(p => {
    const m = summaryModes?.[p.name] || {};
    const rejected = {};
    for (const s of samples.quote_lab_overload_rejections_total?.[p.name] || [])
      if (s.value > 0) rejected[s.labels.reason] = (rejected[s.labels.reason] || 0) + Number(s.value);
    const outcome = k => (samples.quote_lab_hedges_total?.[p.name] || []).filter(s => s.labels.outcome === k)
      .reduce((sum, s) => sum + Number(s.value), 0);
    return {
      name: p.name, strategies: p.strategies, terms: p.terms, refuses: p.refuses,
      requests: Number(m.requests ?? 0), calls: Number(m.attempts ?? 0),
      rejected, rejectedTotal: Object.values(rejected).reduce((a, b) => a + b, 0),
      hedges: p.hedges ? { sent: outcome('sent'), won: outcome('won'), skipped: outcome('skipped') } : null,
      live: p.live.map(g => ({ ...g, value: one(samples, g.family, p.name) })),
    };
  });
}

/// A drop probability (0–1) as a percentage with one decimal, rounded down: the throttle's p
/// stays below 1, so 0.9996 reads 99.9, never 100; a p above 0 but under 0.1 % is 0.1.
export const dropPercent = p => (p == null ? null : p > 0 && p < 0.001 ? 0.1 : Math.floor(p * 1000) / 10);

/// Whether a live figure is still moving with no answer coming in: one that settles (a drop
/// probability the window has not emptied yet, calls in flight, quotes inside a bulkhead)
/// above 0. The page reads the lab again while it is so (each second at most), and stops once
/// it settles.
export const stillMoving = rows => rows.some(r => r.live.some(g => g.settles && g.value > 0));
