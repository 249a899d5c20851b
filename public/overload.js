// The overload strategies panel, its data: for each policy of the lab whose pipeline has an
// overload strategy (GET /, `policies.NAME.pipeline`), what it admitted, refused (by reason)
// and hedged, and the strategy's live quantity (drop probability, limit and calls in
// flight, quotes inside the bulkhead, hedge delay, send rate, retry quota left). Counts come from the lab's
// own counters (/diagnostics/summary, which the page reads anyway, and the metric families
// below), never from the answers the stream happened to carry: a storm's thousands of
// refusals a second are counted whole. Pure (no DOM): node tests drive it.

/// The pipeline strategies that control overload, in the order the panel names them.
export const OVERLOAD_STRATEGIES = ['adaptive_throttle', 'concurrency_limit', 'bulkhead', 'hedging', 'adaptive_retry',
  'retry_quota'];

/// The metric families the panel reads: GET /metrics?family=… answers these only (a few KB,
/// where the whole telemetry of a busy lab is some 300 KB).
export const OVERLOAD_FAMILIES = [
  'quote_lab_overload_rejections_total', 'quote_lab_hedges_total', 'quote_lab_throttle_drop_ratio',
  'quote_lab_concurrency_limit', 'quote_lab_concurrency_in_flight', 'quote_lab_hedge_delay_seconds',
  'quote_lab_adaptive_retry_send_rate', 'quote_lab_bulkhead_active', 'quote_lab_retry_quota_available',
];

/// The path that reads them (the page's lab is added by net.js).
export const overloadMetricsPath = () => `/metrics?family=${OVERLOAD_FAMILIES.join(',')}`;

/// The policies with an overload strategy, in the index's order: [{name, strategies, terms,
/// settings}] where `settings[strategy]` is that pipeline step as the index shows it and
/// `terms[strategy]` its name in prose, {es, en}, as the index's `strategies` say it (the
/// strategy's own name where an older lab's index has none).
export function overloadPolicies(index) {
  const known = Object.fromEntries((index?.strategies || []).map(s => [s.name, s.term]));
  const out = [];
  for (const [name, policy] of Object.entries(index?.policies || {})) {
    const steps = (policy?.pipeline || []).filter(s => OVERLOAD_STRATEGIES.includes(s.strategy));
    if (!steps.length) continue;
    steps.sort((a, b) => OVERLOAD_STRATEGIES.indexOf(a.strategy) - OVERLOAD_STRATEGIES.indexOf(b.strategy));
    const strategies = steps.map(s => s.strategy);
    out.push({ name, strategies, settings: Object.fromEntries(steps.map(s => [s.strategy, s])),
      terms: Object.fromEntries(strategies.map(s => [s, known[s] || { es: s, en: s }])) });
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
/// through) from the summary's modes; `rejected` {reason: n} and `rejectedTotal`; `hedges`
/// {sent, won, skipped} (null for a policy that does not hedge); and the live quantities,
/// null where the lab has none yet (adaptive retry's rate exists once a 429 turned it on):
/// `dropRatio` (0–1), `limit`, `inFlight`, `bulkheadActive` with `bulkheadMax` (the policy's
/// setting), `hedgeDelayMs`, `sendRate` (calls/s), `quotaAvailable` with `quotaCapacity` (the
/// policy's setting).
export function overloadRows(policies, summaryModes, metrics) {
  const samples = samplesByMode(metrics);
  return policies.map(p => {
    const m = summaryModes?.[p.name] || {};
    const rejected = {};
    for (const s of samples.quote_lab_overload_rejections_total?.[p.name] || [])
      if (s.value > 0) rejected[s.labels.reason] = (rejected[s.labels.reason] || 0) + Number(s.value);
    const outcome = k => (samples.quote_lab_hedges_total?.[p.name] || []).filter(s => s.labels.outcome === k)
      .reduce((sum, s) => sum + Number(s.value), 0);
    const delayS = one(samples, 'quote_lab_hedge_delay_seconds', p.name);
    return {
      name: p.name, strategies: p.strategies, terms: p.terms,
      requests: Number(m.requests ?? 0), calls: Number(m.attempts ?? 0),
      rejected, rejectedTotal: Object.values(rejected).reduce((a, b) => a + b, 0),
      hedges: p.strategies.includes('hedging') ? { sent: outcome('sent'), won: outcome('won'), skipped: outcome('skipped') } : null,
      dropRatio: one(samples, 'quote_lab_throttle_drop_ratio', p.name),
      limit: one(samples, 'quote_lab_concurrency_limit', p.name),
      inFlight: one(samples, 'quote_lab_concurrency_in_flight', p.name),
      bulkheadActive: one(samples, 'quote_lab_bulkhead_active', p.name),
      bulkheadMax: p.settings.bulkhead?.max_concurrent ?? null,
      hedgeDelayMs: delayS == null ? null : delayS * 1000,
      sendRate: one(samples, 'quote_lab_adaptive_retry_send_rate', p.name),
      quotaAvailable: one(samples, 'quote_lab_retry_quota_available', p.name),
      quotaCapacity: p.settings.retry_quota?.capacity ?? null,
    };
  });
}

/// A drop probability (0–1) as a percentage with one decimal, rounded down: the throttle's p
/// stays below 1, so 0.9996 reads 99.9, never 100; a p above 0 but under 0.1 % is 0.1.
export const dropPercent = p => (p == null ? null : p > 0 && p < 0.001 ? 0.1 : Math.floor(p * 1000) / 10);

/// Whether the live quantities are still moving with no answer coming in: a drop probability
/// that the window has not emptied yet, calls in flight, quotes inside a bulkhead. The page
/// reads the lab again while it is so (each second at most), and stops once it settles.
export const stillMoving = rows => rows.some(r => r.dropRatio > 0 || r.inFlight > 0 || r.bulkheadActive > 0);
