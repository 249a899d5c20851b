// The pages' pure parts, without a browser: number format and language, the story's
// per-second points (and the incidents drawn at their own time), the waterfall's rows and
// which answer it shows, the storm cards' outcomes, the overload strategies panel's rows, the
// class ranking, lab keys, the live stream's backoff and the Spanish-page check. Fast and exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeFormat, localeFor, pickLanguage, scenarioTitle, TEXT } from '../../public/i18n.js';
import { Story, MAX_SAMPLES, WINDOW_MS } from '../../public/story.js';
import { waterfallRows, waterfallEndMs, axisTicks } from '../../public/waterfall.js';
import { streamRetryDelayMs, withLab, labOwner, labKey, keepLabKey, labKeyHeaders, holdsAnyLabKey, refusedForKey, mayAct } from '../../public/net.js';
import { timeStepMs } from '../../public/charts.js';
import { LatestAnswers, OWN_HOLD_MS, OTHERS_EVERY_MS } from '../../public/latest.js';
import { stormGoodput, stormOutcomes } from '../../public/views.js';
import { dropPercent, overloadFamilies, overloadMetricsPath, overloadPolicies, overloadRows, stillMoving, OVERLOAD_COUNTERS } from '../../public/overload.js';
import { curveOf, kneeOf, parseSweepField, stepSeconds, sweepKey, withSweep } from '../../public/sweep.js';
import { cellOrder, cellState, DEFAULTS, DEPTHS, LOADS, mapKey, mapQuery, retryAfterMs } from '../../public/metamap.js';
import { foreignWords } from './spanish.mjs';

test('one number format: seconds from 1,000 ms, the reader\'s locale, correct plurals', () => {
  const es = makeFormat('es', 'es-AR');
  const en = makeFormat('en', 'en-US');
  assert.equal(es.ms(1443.92), '1,44 s');
  assert.equal(en.ms(1443.92), '1.44 s');
  assert.equal(es.ms(221.4), '221 ms');
  assert.equal(es.ms(999.4), '999 ms');
  assert.equal(en.ms(0.012), '0.01 ms');
  assert.equal(es.num(109701), '109.701');
  assert.equal(en.num(109701), '109,701');
  assert.equal(es.fixed(30, 1), '30,0');
  assert.equal(en.fixed(29.94, 1), '29.9');
  assert.equal(es.count(1, 'attempt'), '1 intento');
  assert.equal(es.count(4, 'attempt'), '4 intentos');
  assert.equal(en.count(1, 'request'), '1 request');
  assert.equal(es.count(0, 'request'), '0 solicitudes');
  assert.equal(es.perSecond(1.46, 1), '1,5/s');
  assert.equal(en.perSecond(1234), '1,234/s');
  assert.equal(localeFor('es', ['en-US', 'es-MX']), 'es-MX');
  assert.equal(localeFor('es', ['en-US']), 'es');
});

// Counters as /diagnostics/summary reports them.
const modes = (legacy, resilient = {}) => ({
  legacy: { requests: 0, successes: 0, degraded: 0, failures: 0, attempts: 0, ...legacy },
  resilient: { requests: 0, successes: 0, degraded: 0, failures: 0, attempts: 0, ...resilient },
});

test('the story: rates and error % from the counters, percentiles from the answers seen, per second', () => {
  const story = new Story();
  assert.equal(story.counters(modes({}), 0), false);             // the baseline
  for (const ms of [100, 200, 300, 400]) story.sample('legacy', ms);
  // 1.5 s later: 30 legacy requests, 6 failed, 120 carrier calls
  assert.equal(story.counters(modes({ requests: 30, successes: 24, failures: 6, attempts: 120 }), 1500), true);
  const [p] = story.points.legacy;
  assert.deepEqual(p, { x: 1500, requests: 30, rate: 20, calls: 80, errors: 20, p50: 200, p95: 400, p99: 400 });
  assert.deepEqual(story.points.resilient[0], { x: 1500, requests: 0, rate: 0, calls: 0, errors: null, p50: null, p95: null, p99: null });
  // read again too soon: no point, and the counters are owed: the next second is not flat
  const later = modes({ requests: 31, successes: 25, failures: 6, attempts: 121 });
  assert.equal(story.counters(later, 1600), false);
  assert.equal(story.owed, true);
  assert.equal(story.idle(2600), false);
  assert.equal(story.counters(later, 2600), true);
  assert.equal(story.points.legacy[1].requests, 1);
  assert.equal(story.totals.legacy, 31);                           // the late answer is counted
  // nothing since: a flat second, zero rate
  assert.equal(story.owed, false);
  assert.equal(story.idle(3600), true);
  assert.equal(story.points.legacy[2].rate, 0);
  assert.equal(story.totals.legacy, 31);
});

test('the story keeps a whole storm however many answers it had, and forgets only what left the window', () => {
  const story = new Story();
  story.counters(modes({}), 0);
  let requests = 0;
  for (let s = 1; s <= 60; s++) {         // a 60 s storm of 5,000 answers a second
    for (let i = 0; i < 5000; i++) story.sample('resilient', i % 7);
    requests += 5000;
    story.counters(modes({}, { requests, degraded: requests, attempts: 2 }), s * 1000);
    assert.ok(story.samples.resilient.length === 0);
  }
  assert.equal(story.points.resilient.length, 60);
  assert.equal(story.totals.resilient, 300000);
  assert.equal(story.points.resilient.reduce((n, p) => n + p.requests, 0), 300000);
  // two hours of idle seconds later only the window is kept
  for (let s = 61; s <= 7200; s++) story.idle(s * 1000);
  assert.equal(story.points.resilient.length, WINDOW_MS / 1000 + 1);
  // samples within one second are capped
  for (let i = 0; i < 3 * MAX_SAMPLES; i++) story.sample('legacy', i);
  assert.equal(story.samples.legacy.length, MAX_SAMPLES);
});

test('the story: counters that go down are a reset or a restart, not a negative rate; late reads are ignored', () => {
  const story = new Story();
  story.counters(modes({ requests: 500 }), 0);
  assert.equal(story.counters(modes({ requests: 3 }), 2000), false);
  assert.equal(story.counters(modes({ requests: 5 }), 3000), true);
  assert.equal(story.points.legacy[0].requests, 2);
  // two reads crossed: the older one, answered first but handled last, is not a reset
  assert.equal(story.counters(modes({ requests: 4 }), 2500), false);
  assert.equal(story.counters(modes({ requests: 9 }), 4000), true);
  assert.equal(story.totals.legacy, 6);
});

test('the story: after a reset its counters start from zero, and an answer just after it is counted, not past', () => {
  const story = new Story();
  story.counters(modes({ requests: 7 }), 0);
  story.reset(5000);
  assert.equal(story.isPast(5200), false);
  assert.equal(story.counters(modes({ requests: 1 }), 6000), true);
  assert.equal(story.totals.legacy, 1);
  assert.equal(story.points.legacy.length, 1);
});

test('the story: a storm\'s last counters timed before a flat second are read again, not lost', () => {
  const story = new Story();
  story.counters(modes({}), 0);
  assert.equal(story.counters(modes({ requests: 40 }), 1000), true);
  assert.equal(story.idle(2000), true);  // a flat second, on Date.now()
  // the storm's last answers, read on a clock 30 ms behind: not drawn yet, and owed
  assert.equal(story.counters(modes({ requests: 55 }), 1970), false);
  assert.equal(story.owed, true);
  assert.equal(story.idle(3000), false);  // owed: the page reads the lab, not a flat second
  assert.equal(story.counters(modes({ requests: 55 }), 3000), true);
  assert.equal(story.totals.legacy, 55);
});

test('the breaker shading: one span per open or half-open phase', () => {
  const story = new Story();
  story.breaker('closed', 0);
  story.breaker('open', 1000);
  story.breaker('open', 1500);
  story.breaker('half_open', 31000);
  story.breaker('closed', 31200);
  assert.deepEqual(story.bands, [{ from: 1000, to: 31000, state: 'open' }, { from: 31000, to: 31200, state: 'half_open' }]);
});

test('the waterfall: queue first, then attempts and backoffs end to end, the lab total and the browser', () => {
  const answer = { elapsed_ms: 1443.9, queue_ms: 3912.5, events: [
    { event: 'attempt_failed', attempt: 1, elapsed_ms: 360.2, reason: 'timeout' },
    { event: 'backoff', attempt: 1, wait_ms: 95 },
    { event: 'circuit_opened', attempt: 2 },
    { event: 'short_circuit', attempt: 2 },
    { event: 'fallback_used', attempt: 2, reason: 'cached_quote' }] };
  const rows = waterfallRows(answer, 5400);
  assert.deepEqual(rows.map(r => [r.kind, r.start, r.ms]), [
    ['queue', 0, 3912.5], ['attempt_failed', 3912.5, 360.2], ['backoff', 4272.7, 95], ['circuit_opened', 4367.7, null],
    ['short_circuit', 4367.7, null], ['fallback_used', 4367.7, null], ['total', 0, 5356.4], ['client', 0, 5400]]);
  assert.equal(waterfallEndMs(rows), 5400);
  // no queue_ms (a lab before that field), or no wait (0): attempts start at 0, no queue row
  assert.equal(waterfallRows({ elapsed_ms: 10, events: [{ event: 'attempt_success', attempt: 1, elapsed_ms: 9 }] })[0].start, 0);
  assert.deepEqual(waterfallRows({ elapsed_ms: 10, queue_ms: 0, events: [{ event: 'attempt_success', attempt: 1, elapsed_ms: 9 }] })
    .map(r => r.kind), ['attempt_success', 'total']);
  // an incident (no steps): the lab's total only
  assert.deepEqual(waterfallRows({ elapsed_ms: 1443, queue_ms: 12 }).map(r => [r.kind, r.ms]), [['queue', 12], ['total', 1455]]);
  assert.deepEqual(axisTicks(1443), [0, 500, 1000]);
  assert.deepEqual(axisTicks(400), [0, 100, 200, 300, 400]);
});

test('the waterfall: a refusal is an instant; a hedged call is drawn inside its attempt, from its send to the answer; a token wait is a bar before its attempt', () => {
  // throttled: the gate refused the attempt, the fallback answered
  const refused = waterfallRows({ elapsed_ms: 0.02, events: [
    { event: 'rejected', attempt: 1, reason: 'throttled' },
    { event: 'fallback_used', attempt: 1, reason: 'cached_quote' }] });
  assert.deepEqual(refused.map(r => [r.kind, r.reason, r.start, r.ms]), [
    ['rejected', 'throttled', 0, null], ['fallback_used', 'cached_quote', 0, null], ['total', undefined, 0, 0.02]]);
  // hedged: the lab lists the hedge steps before their attempt; the attempt began with the
  // first call (420 ms to the winning answer), the hedge went at 300 ms and won
  const won = waterfallRows({ elapsed_ms: 421, queue_ms: 5, events: [
    { event: 'hedge', attempt: 1, wait_ms: 300 },
    { event: 'hedge_won', attempt: 1 },
    { event: 'attempt_success', attempt: 1, elapsed_ms: 420 }] });
  assert.deepEqual(won.map(r => [r.kind, r.start, r.ms]), [
    ['queue', 0, 5], ['attempt_success', 5, 420], ['hedge', 305, 120], ['hedge_won', 425, null], ['total', 0, 426]]);
  assert.equal(won[2].after, 300);
  // the budget said no: the skip sits on its attempt; a later attempt starts after the first
  const skipped = waterfallRows({ elapsed_ms: 1800, events: [
    { event: 'hedge_skipped', attempt: 1, reason: 'hedge_budget' },
    { event: 'attempt_failed', attempt: 1, elapsed_ms: 1500, reason: 'timeout' },
    { event: 'fallback_used', attempt: 1, reason: 'cached_quote' }] });
  assert.deepEqual(skipped.map(r => [r.kind, r.reason, r.start, r.ms]), [
    ['attempt_failed', 'timeout', 0, 1500], ['hedge_skipped', 'hedge_budget', 0, null], ['fallback_used', 'cached_quote', 1500, null],
    ['total', undefined, 0, 1800]]);
  // every new step and reason has words in both languages, the lab's one term in Spanish
  const es = makeFormat('es', 'es-AR');
  const say = (lang, row) => TEXT[lang].ev[row.kind](row.attempt, TEXT[lang].reason[row.reason] ?? '', row, makeFormat(lang, lang));
  assert.equal(say('es', refused[0]), 'intento 1: rechazado sin llamar al proveedor (la limitación adaptativa la descartó)');
  assert.equal(TEXT.es.ev.hedge(1, '', won[2], es), 'intento 1: llamada de cobertura, enviada a los 300 ms');
  assert.equal(say('es', won[3]), 'intento 1: la llamada de cobertura respondió primero');
  assert.equal(say('es', skipped[1]), 'intento 1: llamada de cobertura omitida (sin presupuesto de coberturas)');
  assert.equal(say('en', won[2]), 'attempt 1: hedged call, sent at 300 ms');
  // aws_adaptive: the retry waited for its token, a bar of its own between the carrier's
  // Retry-After and the attempt it let go
  const paced = waterfallRows({ elapsed_ms: 2005, events: [
    { event: 'attempt_failed', attempt: 1, elapsed_ms: 20, reason: 'http_429' },
    { event: 'retry_after', attempt: 1, wait_ms: 1000 },
    { event: 'token_wait', attempt: 2, wait_ms: 960 },
    { event: 'attempt_success', attempt: 2, elapsed_ms: 25 }] });
  assert.deepEqual(paced.map(r => [r.kind, r.start, r.ms]), [
    ['attempt_failed', 0, 20], ['retry_after', 20, 1000], ['token_wait', 1020, 960], ['attempt_success', 1980, 25],
    ['total', 0, 2005]]);
  assert.equal(say('es', paced[2]), 'intento 2: espera de su ficha (reintento adaptativo)');
  assert.equal(say('en', paced[2]), 'attempt 2: wait for its token (adaptive retry)');
  for (const reason of ['throttled', 'concurrency_limit', 'bulkhead_full', 'client_rate_limited', 'hedge_budget'])
    for (const lang of ['es', 'en']) assert.ok(TEXT[lang].reason[reason], `${lang} ${reason}`);
  assert.match(TEXT.es.reason.concurrency_limit, /límite adaptativo de concurrencia/);
  assert.match(TEXT.es.reason.bulkhead_full, /mamparo/);
  assert.match(TEXT.es.reason.client_rate_limited, /reintento adaptativo/);
});

// GET / as the lab shows its policies: a pipeline each (settings trimmed to what matters).
const INDEX = { policies: {
  legacy: { pipeline: [{ strategy: 'retry' }, { strategy: 'timeout' }] },
  resilient: { pipeline: [{ strategy: 'fallback' }, { strategy: 'retry' }, { strategy: 'circuit_breaker' }, { strategy: 'timeout' }] },
  breaker: { failure_threshold: 2 },
  throttled: { pipeline: [{ strategy: 'fallback' }, { strategy: 'retry' }, { strategy: 'adaptive_throttle', k: 1.5 }, { strategy: 'timeout' }] },
  adaptive_limit: { pipeline: [{ strategy: 'retry' }, { strategy: 'concurrency_limit', initial_limit: 3 }] },
  bulkhead: { pipeline: [{ strategy: 'bulkhead', max_concurrent: 4, max_queued: 0 }, { strategy: 'retry' }] },
  hedged: { pipeline: [{ strategy: 'retry' }, { strategy: 'hedging', delay: {}, budget: { share: 0.15 } }] },
  aws_adaptive: { pipeline: [{ strategy: 'retry' }, { strategy: 'retry_quota', capacity: 500 },
    { strategy: 'adaptive_retry', max_wait_ms: 1000 }] },
}, strategies: [  // as GET / lists them (pipeline_json's strategies_to_json)
  { name: 'bulkhead', term: { es: 'mamparo', en: 'bulkhead' }, rejects: 'bulkhead_full', hedges: false, gauges: [
    { family: 'quote_lab_bulkhead_active', label: { es: 'cotizaciones dentro del mamparo', en: 'quotes inside the bulkhead' },
      shows: 'count', out_of: 'max_concurrent', settles: true },
    { family: 'quote_lab_bulkhead_queued', label: { es: 'cotizaciones en la cola del mamparo', en: "quotes in the bulkhead's queue" },
      shows: 'count', out_of: 'max_queued', settles: true }] },
  { name: 'retry', term: { es: 'reintentos', en: 'retry' }, rejects: null, hedges: false, gauges: [] },
  { name: 'retry_quota', term: { es: 'cuota de reintentos', en: 'retry quota' }, rejects: null, hedges: false, gauges: [
    { family: 'quote_lab_retry_quota_available', label: { es: 'cuota de reintentos que queda', en: 'retry quota left' },
      shows: 'count', out_of: 'capacity', settles: false }] },
  { name: 'adaptive_throttle', term: { es: 'limitación adaptativa', en: 'adaptive throttling' }, rejects: 'throttled', hedges: false,
    gauges: [{ family: 'quote_lab_throttle_drop_ratio', label: { es: 'probabilidad de descarte ahora', en: 'drop probability now' },
      shows: 'percent', settles: true }] },
  { name: 'adaptive_retry', term: { es: 'reintento adaptativo', en: 'adaptive retry' }, rejects: 'client_rate_limited', hedges: false,
    gauges: [{ family: 'quote_lab_adaptive_retry_send_rate', label: { es: 'ritmo de envío permitido', en: 'send rate allowed' },
      shows: 'per_second', settles: false, before_first: { es: 'sin límite (ningún 429 todavía)', en: 'no limit (no 429 yet)' } }] },
  { name: 'concurrency_limit', term: { es: 'límite adaptativo de concurrencia', en: 'adaptive concurrency limit' },
    rejects: 'concurrency_limit', hedges: false, gauges: [
      { family: 'quote_lab_concurrency_limit', label: { es: 'límite de llamadas en curso', en: 'limit on calls in flight' }, shows: 'count', settles: false },
      { family: 'quote_lab_concurrency_in_flight', label: { es: 'llamadas en curso', en: 'calls in flight' }, shows: 'count', settles: true }] },
  { name: 'hedging', term: { es: 'llamadas de cobertura', en: 'hedged requests' }, rejects: null, hedges: true, gauges: [
    { family: 'quote_lab_hedge_delay_seconds', label: { es: 'espera antes de la llamada de cobertura', en: 'wait before the hedged call' },
      shows: 'milliseconds', settles: false }] },
] };
// GET /metrics?family=… after a throttled and a hedged storm.
const family = (name, samples) => ({ name, type: 'counter', samples: samples.map(([labels, value]) => ({ labels, value })) });
const METRICS = { metrics: [
  family('quote_lab_overload_rejections_total', [[{ mode: 'throttled', reason: 'throttled' }, 14324]]),
  family('quote_lab_hedges_total', [[{ mode: 'hedged', outcome: 'won' }, 6], [{ mode: 'hedged', outcome: 'sent' }, 10]]),
  family('quote_lab_throttle_drop_ratio', [[{ mode: 'throttled' }, 0.9993]]),
  family('quote_lab_concurrency_limit', [[{ mode: 'adaptive_limit' }, 3]]),
  family('quote_lab_concurrency_in_flight', [[{ mode: 'adaptive_limit' }, 0]]),
  family('quote_lab_hedge_delay_seconds', [[{ mode: 'hedged' }, 0.297]]),
  family('quote_lab_bulkhead_active', [[{ mode: 'bulkhead' }, 0]]),
  family('quote_lab_retry_quota_available', [[{ mode: 'aws_adaptive' }, 495]]),
] };

test('overload strategies: one row per policy with a strategy, the lab\'s counts and live values, none invented', () => {
  const policies = overloadPolicies(INDEX);
  // in each pipeline's order, named by the lab's terms
  assert.deepEqual(policies.map(p => [p.name, p.strategies]), [['throttled', ['adaptive_throttle']],
    ['adaptive_limit', ['concurrency_limit']], ['bulkhead', ['bulkhead']], ['hedged', ['hedging']],
    ['aws_adaptive', ['retry_quota', 'adaptive_retry']]]);
  assert.deepEqual(policies.find(p => p.name === 'aws_adaptive').terms,
    { retry_quota: { es: 'cuota de reintentos', en: 'retry quota' }, adaptive_retry: { es: 'reintento adaptativo', en: 'adaptive retry' } });
  const rows = overloadRows(policies, { throttled: { requests: 14330, attempts: 50 }, hedged: { requests: 108, attempts: 108 } }, METRICS);
  const by = Object.fromEntries(rows.map(r => [r.name, r]));
  const live = (policy, family) => by[policy].live.find(g => g.family === family);
  assert.deepEqual([by.throttled.requests, by.throttled.calls, by.throttled.rejected, by.throttled.rejectedTotal],
    [14330, 50, { throttled: 14324 }, 14324]);
  assert.deepEqual([live('throttled', 'quote_lab_throttle_drop_ratio').value, live('throttled', 'quote_lab_throttle_drop_ratio').shows],
    [0.9993, 'percent']);
  assert.equal(by.throttled.hedges, null);                       // it does not hedge
  assert.deepEqual([by.throttled.refuses, by.hedged.refuses], [true, false]);
  assert.deepEqual(by.hedged.hedges, { sent: 10, won: 6, skipped: 0 });
  assert.equal(live('hedged', 'quote_lab_hedge_delay_seconds').value, 0.297);
  assert.deepEqual(by.adaptive_limit.live.map(g => [g.family, g.value]),
    [['quote_lab_concurrency_limit', 3], ['quote_lab_concurrency_in_flight', 0]]);
  // a bulkhead's places out of the policy's own max_concurrent; without a queue (max_queued 0), no queue figure
  assert.deepEqual(by.bulkhead.live.map(g => [g.family, g.value, g.outOf]), [['quote_lab_bulkhead_active', 0, 4]]);
  const queued = overloadPolicies({ ...INDEX, policies: { bulkhead: { pipeline: [{ strategy: 'bulkhead', max_concurrent: 4, max_queued: 8 }] } } });
  assert.deepEqual(queued[0].live.map(g => [g.family, g.outOf]), [['quote_lab_bulkhead_active', 4], ['quote_lab_bulkhead_queued', 8]]);
  // adaptive retry's rate exists once a 429 turned it on: unknown, not 0, with its own caption
  assert.deepEqual([live('aws_adaptive', 'quote_lab_adaptive_retry_send_rate').value,
    live('aws_adaptive', 'quote_lab_adaptive_retry_send_rate').beforeFirst.es], [null, 'sin límite (ningún 429 todavía)']);
  assert.deepEqual([by.aws_adaptive.requests, by.aws_adaptive.rejectedTotal], [0, 0]);
  // the retry quota's capacity left, out of the policy's own capacity
  assert.deepEqual([live('aws_adaptive', 'quote_lab_retry_quota_available').value,
    live('aws_adaptive', 'quote_lab_retry_quota_available').outOf], [495, 500]);
  assert.equal(live('throttled', 'quote_lab_retry_quota_available'), undefined);
  // before the first reading (or the lab reset): zeros and unknowns, never an error
  assert.deepEqual(overloadRows(policies, undefined, null).map(r => [r.requests, r.rejectedTotal, r.live.every(g => g.value === null)]),
    policies.map(() => [0, 0, true]));
  // a policies file without any: no rows (the page hides the panel)
  assert.deepEqual(overloadPolicies({ policies: { legacy: INDEX.policies.legacy }, strategies: INDEX.strategies }), []);
  // the page keeps reading while a value that settles still moves, and stops once it settles
  assert.equal(stillMoving(rows), true);
  const settled = { metrics: METRICS.metrics.map(f => f.name === 'quote_lab_throttle_drop_ratio' ? family(f.name, [[{ mode: 'throttled' }, 0]]) : f) };
  assert.equal(stillMoving(overloadRows(policies, {}, settled)), false);
  // the probability as a room reads it: below 100 % however close, above 0 however small
  assert.deepEqual([0.9996, 0.198, 0.0004, 0, null].map(dropPercent), [99.9, 19.8, 0.1, 0, null]);
  // it asks the lab for the counters and its policies' gauges only, each once
  assert.deepEqual(overloadFamilies(policies), [...OVERLOAD_COUNTERS, 'quote_lab_throttle_drop_ratio', 'quote_lab_concurrency_limit',
    'quote_lab_concurrency_in_flight', 'quote_lab_bulkhead_active', 'quote_lab_hedge_delay_seconds',
    'quote_lab_retry_quota_available', 'quote_lab_adaptive_retry_send_rate']);
  assert.equal(overloadMetricsPath(policies.slice(0, 1)),
    '/metrics?family=quote_lab_overload_rejections_total,quote_lab_hedges_total,quote_lab_throttle_drop_ratio');
});

test('the live stream backoff: full jitter under an exponential cap', () => {
  assert.equal(streamRetryDelayMs(0, 0.5), 500);
  assert.equal(streamRetryDelayMs(3, 0.5), 4000);
  assert.equal(streamRetryDelayMs(10, 0.999), 9990);   // capped at 10 s
  assert.equal(streamRetryDelayMs(5, 0), 0);
});

test('chart time ticks: whole seconds, about six at most', () => {
  assert.equal(timeStepMs(3000), 1000);
  assert.equal(timeStepMs(9000), 2000);
  assert.equal(timeStepMs(10 * 60 * 1000), 120000);
});

test('withLab: a lab name appended to any path, none for the teacher\'s lab', () => {
  assert.equal(withLab('/incidents?limit=10', 'ana'), '/incidents?limit=10&lab=ana');
  assert.equal(withLab('/04/', 'ben-2'), '/04/?lab=ben-2');
  assert.equal(withLab('/dependency/state', null), '/dependency/state');
  assert.equal(withLab('/class', ''), '/class?lab=');  // the lab answers an empty name with a 400
  assert.equal(withLab('/', 'a b&c'), '/?lab=a%20b%26c');
  assert.equal(withLab('/incidents'), '/incidents');  // node has no page: the teacher's lab
});

const answer = (id, at, extra = {}) => ({ request_id: id, mode: 'legacy', timestamp_utc: new Date(at).toISOString(), events: [], elapsed_ms: 1, ...extra });

test('the waterfall shows the lab\'s latest answer, whoever asked: a curl at once, a storm once a second, the page\'s own Run held', () => {
  const latest = new LatestAnswers();
  // a curl on an idle page: drawn at once
  assert.deepEqual(latest.offer(answer('curl', 1000), 0), ['legacy']);
  assert.equal(latest.shown.legacy.answer.request_id, 'curl');
  assert.equal(latest.shown.legacy.own, false);
  // a storm's answers: the newest waits until a second has passed, then replaces it
  assert.deepEqual(latest.offer(answer('s1', 1100), 100), []);
  assert.deepEqual(latest.offer(answer('s2', 1200), 200), []);
  assert.deepEqual(latest.offer(answer('old', 900), 300), []);      // older than what is shown: never
  assert.deepEqual(latest.due(OTHERS_EVERY_MS - 1), []);
  assert.deepEqual(latest.due(OTHERS_EVERY_MS), ['legacy']);
  assert.equal(latest.shown.legacy.answer.request_id, 's2');
  // the page's own Run: at once, with what the browser measured, and held
  assert.deepEqual(latest.offer(answer('mine', 2000), 1500, { own: true, clientMs: 12 }), ['legacy']);
  assert.equal(latest.shown.legacy.clientMs, 12);
  assert.deepEqual(latest.offer(answer('mine', 2000), 1600), []);   // its echo on the live stream
  latest.offer(answer('s3', 2100), 1700);
  assert.deepEqual(latest.due(1500 + OWN_HOLD_MS - 1), []);
  assert.deepEqual(latest.due(1500 + OWN_HOLD_MS), ['legacy']);
  // an incident (no steps) gives way to the same answer in full
  const summary = answer('inc', 5000);
  delete summary.events;
  latest.clear();
  assert.deepEqual(latest.offer(summary, 0), ['legacy']);
  assert.deepEqual(latest.offer(answer('inc', 5000), 10), ['legacy']);
  assert.ok(latest.shown.legacy.answer.events);
  assert.deepEqual(latest.offer({ mode: 'resilient', request_id: 'r', timestamp_utc: 'x' }, 0), ['resilient']);
});

test('incidents from before the page counted are drawn at their own second, not in the current one', () => {
  const story = new Story();
  assert.equal(story.isPast(50000), true);                          // nothing counted yet
  story.past('legacy', 1440, 41234);
  story.past('legacy', 1460, 41900);
  story.past('legacy', 120, 10500);
  story.counters(modes({ requests: 3 }), 60000);                    // the baseline
  assert.equal(story.isPast(59000), true);
  assert.equal(story.isPast(60500), false);
  story.sample('legacy', 7);
  story.counters(modes({ requests: 4 }), 61000);
  const pts = story.points.legacy;
  assert.deepEqual(pts.map(p => [p.x, p.requests, p.p50, p.rate]), [[10000, 1, 120, null], [41000, 2, 1440, null], [61000, 1, 7, 1]]);
  assert.equal(pts[1].p99, 1460);
  assert.equal(story.totals.legacy, 1);                             // the counters' own count
  assert.equal(story.span(61000).min, 10000);
});

test('storm cards: no quote (503) and fallback quote are two outcomes, not one', () => {
  assert.deepEqual(stormOutcomes({ requests: 200, status_counts: { failed: 200 } }), { noQuote: 100, fallback: 0 });
  assert.deepEqual(stormOutcomes({ requests: 200, status_counts: { degraded: 150, completed: 50 } }), { noQuote: 0, fallback: 75 });
  assert.deepEqual(stormOutcomes({ requests: 10, status_counts: { completed: 5, degraded: 2, error: 1, http_4xx: 2 } }), { noQuote: 30, fallback: 20 });
  assert.deepEqual(stormOutcomes({ requests: 0, status_counts: {} }), { noQuote: null, fallback: null });
  assert.equal(TEXT.es.stormKeys.noQuote, 'sin cotización (503)');
  assert.equal(TEXT.es.stormKeys.fallback, 'cotización de respaldo');
});

test('storm cards: the load offered and the share that was useful; a closed loop says clients, an open one arrivals/s', () => {
  assert.deepEqual(stormGoodput({ offered_rps: 97.1, goodput_ratio: 0.0154 }), { offered: 97.1, goodput: 1.54 });
  assert.deepEqual(stormGoodput({ offered_rps: 38.3, goodput_ratio: null }), { offered: 38.3, goodput: null });
  assert.deepEqual(stormGoodput({ requests: 4 }), { offered: null, goodput: null });  // a result from before open-loop storms
  const es = makeFormat('es', 'es');
  const en = makeFormat('en', 'en');
  const open = { scenario: 'ok', load_model: 'open', rate_per_s: 100, clients: null, elapsed_s: 18.92 };
  const closed = { scenario: 'ok', load_model: 'closed', clients: 10, elapsed_s: 10.2 };
  assert.equal(TEXT.es.stormOf(open, es), 'ok · 100 llegadas/s · 18,9 s');
  assert.equal(TEXT.en.stormOf(open, en), 'ok · 100 arrivals/s · 18.9 s');
  assert.equal(TEXT.es.stormOf(closed, es), 'ok · 10 clientes · 10,2 s');
  assert.equal(TEXT.es.stormKeys.goodput, 'respuestas útiles (a tiempo)');
  assert.equal(TEXT.es.loadOpen, 'llegadas por segundo (carga abierta)');
});

test('lab keys: one per owner (the name up to the first "-"), sent on changes, a 403 for want of it recognised', () => {
  const store = new Map();
  const fake = { getItem: k => store.get(k) ?? null, setItem: (k, v) => store.set(k, v), get length() { return store.size; }, key: i => [...store.keys()][i] };
  assert.equal(labOwner('Ana-paso3'), 'ana');
  assert.equal(labOwner('ana-tail-2'), 'ana');
  assert.equal(labOwner(null), null);
  assert.equal(labOwner(''), null);
  assert.equal(holdsAnyLabKey(fake), false);
  assert.equal(keepLabKey('  K3Y  ', 'ana', fake), true);
  assert.equal(labKey('ana-paso3', fake), 'K3Y');
  assert.deepEqual(labKeyHeaders('ANA-tail-2', fake), { 'X-Lab-Key': 'K3Y' });
  assert.deepEqual(labKeyHeaders('ben', fake), {});
  assert.deepEqual(labKeyHeaders(null, fake), {});                   // the teacher's lab has no key
  assert.equal(keepLabKey('x', null, fake), false);
  assert.equal(holdsAnyLabKey(fake), true);
  assert.equal(refusedForKey(403, { error: 'wrong_lab_key' }), true);
  assert.equal(refusedForKey(403, { error: 'lab_key_required' }), true);
  assert.equal(refusedForKey(403, { error: 'cross_site_request' }), false);
  assert.equal(refusedForKey(401, { error: 'lab_key_required' }), false);
});

test('the class-wide actions show only to the teacher', () => {
  assert.equal(mayAct('accepted', false), true);
  assert.equal(mayAct('accepted', true), true);
  assert.equal(mayAct('required', false), false);
  assert.equal(mayAct(null, false), true);     // no token set: the teacher's own laptop
  assert.equal(mayAct(null, true), false);     // no token set, a student's browser
  assert.equal(mayAct(undefined, false), false);
});

test('the pages speak Spanish unless English is asked for', () => {
  assert.equal(pickLanguage('', null, 'es-AR'), 'es');
  assert.equal(pickLanguage('', null, 'fr-FR'), 'es');
  assert.equal(pickLanguage('', null, 'en-US'), 'en');
  assert.equal(pickLanguage('?lang=en', 'es', 'es-AR'), 'en');
  assert.equal(pickLanguage('?lab=ana&lang=es', 'en', 'en-US'), 'es');
  assert.equal(pickLanguage('', 'en', 'es-AR'), 'en');              // the reader's button
});

test('the Spanish-page check: English words and retired terms are caught, names the lab gives things are not', () => {
  assert.deepEqual(foreignWords('Requests · Breaker · none / additive'), ['Requests', 'Breaker', 'none', 'additive']);
  assert.deepEqual(foreignWords('Circuit breaker del proveedor (solo resiliente)'), ['Circuit', 'breaker', 'resiliente']);
  assert.deepEqual(foreignWords('Reiniciar el lab · cortocircuito'), ['Reiniciar', 'lab', 'cortocircuito']);
  assert.deepEqual(foreignWords('legacy: 4 intentos, provider_down, /health p99, request_id, resilient, 1,44 s'), []);
  assert.deepEqual(foreignWords('Disyuntor: cerrado, abierto, semiabierto; sin cotización (503)'), []);
  assert.deepEqual(foreignWords('half-open'), ['half', 'open', 'half-open']);
  // every Spanish word of the dashboard itself passes
  const words = JSON.stringify(TEXT.es, (k, v) => (typeof v === 'function' ? String(v) : v));
  const strings = [...words.matchAll(/'([^'`]*)'|`([^`]*)`/g)].map(m => (m[1] ?? m[2]).replace(/\$\{[^}]*\}/g, ' '));
  assert.deepEqual(strings.flatMap(foreignWords), []);
});

test('a goodput sweep\'s curve: its knee and collapse read as bench/goodput_curve.py reads them, one curve per policy and scenario', () => {
  const point = (offered, goodput, live = goodput) => ({ offered_rps: offered, goodput_rps: goodput, goodput_live_rps: live });
  // Legacy on overloaded_fifo (4 calls at a time, about 40 a second): measured by the page's sweep.
  const legacy = [point(88.75, 7), point(10.5, 10.5), point(43, 34.25), point(18.25, 18.25)];
  assert.deepEqual(curveOf(legacy).map(c => c.x), [10.5, 18.25, 43, 88.75]);  // by offered load, whatever the run order
  assert.deepEqual(kneeOf(legacy), { kneeRps: 18.25, topRps: 88.75, peak: 34.25, last: 7, collapses: true });
  // CoDel keeps legacy at the carrier capacity: past the knee it holds.
  assert.deepEqual(kneeOf([point(10.75, 10.75), point(37.5, 35), point(82.25, 40.75)]),
    { kneeRps: 37.5, topRps: 82.25, peak: 40.75, last: 40.75, collapses: false });
  // Resilient's fallback answers every arrival: no knee (its live quotes fall to 0 meanwhile).
  const resilient = kneeOf([point(9.25, 9.25), point(82.25, 82.25, 0)]);
  assert.equal(resilient.kneeRps, resilient.topRps);
  assert.equal(kneeOf([point(20, 5)]).kneeRps, null);  // not even the lowest load tracked
  assert.equal(kneeOf([]), null);
  const es = makeFormat('es', 'es-AR');
  assert.equal(TEXT.es.sweepKnee(kneeOf(legacy), es),
    'Codo en 18,3 llegadas/s; pasado el codo se derrumba: 7 respuestas útiles/s con la carga más alta (88,8 llegadas/s), su máximo 34,3.');
  assert.equal(TEXT.en.sweepKnee(resilient, makeFormat('en', 'en-US')),
    'No knee: goodput follows the offered load up to the highest measured (82.3 arrivals/s: goodput 82.3/s).');
  assert.equal(TEXT.en.sweepKnee(kneeOf(legacy), makeFormat('en', 'en-US')),
    'Knee at 18.3 arrivals/s; past it goodput collapses: 7/s at the highest load (88.8 arrivals/s), its best 34.3/s.');
  // Nothing useful anywhere (legacy against provider_down): neither "holds" nor "collapses".
  assert.equal(TEXT.es.sweepKnee(kneeOf([point(10, 0), point(40, 0)]), es), 'Ninguna carga medida recibió respuestas útiles (hasta 40 llegadas/s).');
  assert.equal(TEXT.es.sweepKnee(kneeOf([point(1, 1), point(2, 1)]), es),
    'Codo en 1 llegadas/s; pasado el codo se sostiene: 1 respuesta útil/s con la carga más alta (2 llegadas/s), su máximo 1.');
  assert.deepEqual(foreignWords(TEXT.es.sweepKnee(kneeOf([point(20, 5)]), es) + ' ' + TEXT.es.sweepHelp), []);
  // One curve per policy, scenario and overrides; a new point replaces its sweep in place.
  assert.equal(sweepKey({ mode: 'legacy', scenario: 'overloaded_fifo', params: {} }), 'legacy · overloaded_fifo');
  assert.equal(sweepKey({ mode: 'resilient', scenario: 'ok', params: { circuit_breaker: 'false' } }), 'resilient · ok · circuit_breaker=false');
  const a = { mode: 'legacy', scenario: 'x', params: {}, points: [1] };
  const b = { mode: 'legacy', scenario: 'y', params: {}, points: [] };
  assert.deepEqual(withSweep([a, b], { ...a, points: [1, 2] }).map(s => s.points.length), [2, 0]);
  assert.deepEqual(withSweep([a], b), [a, b]);
  assert.deepEqual(withSweep(undefined, a), [a]);
  // The form's field as its reader writes it: spaces between values, a decimal comma on a Spanish page.
  assert.deepEqual(parseSweepField('10 20,5 ; 40'), { rates: [10, 20.5, 40] });
  assert.deepEqual(parseSweepField(' 10  80 '), { rates: [10, 80] });
  assert.deepEqual(parseSweepField('10'), { error: 'count', got: 1 });
  assert.deepEqual(parseSweepField(''), { error: 'count', got: 0 });
  assert.deepEqual(parseSweepField(Array(13).fill('5').join(' ')), { error: 'count', got: 13 });
  for (const bad of ['abc', '1e3', '-5', '0', '0,05', '501', '10,20,30'])
    assert.deepEqual(parseSweepField(`10 ${bad}`), { error: 'value', got: bad }, bad);
  // The form's step seconds: as many as fit in the lab's minute of sending.
  assert.equal(stepSeconds(6, 10), 10);
  assert.equal(stepSeconds(12, 10), 5);
  assert.equal(stepSeconds(7, 10), 8);
  assert.equal(stepSeconds(6, 3), 3);
});

test('a scenario in a list: the name a lesson\'s curl sends, then its title in the page\'s language', () => {
  const down = { name: 'provider_down', description: { es: 'Proveedor caído: acepta la conexión…', en: 'Carrier down: accepts…' } };
  assert.equal(scenarioTitle(down, 'es'), 'provider_down — Proveedor caído');
  assert.equal(scenarioTitle(down, 'en'), 'provider_down — Carrier down');
  const fifo = { name: 'overloaded_fifo', description: { es: 'Proveedor sobrecargado, cola FIFO (descarte de carga): 4 a la vez…' } };
  assert.equal(scenarioTitle(fifo, 'es'), 'overloaded_fifo — Proveedor sobrecargado, cola FIFO');
  assert.equal(scenarioTitle({ name: 'mine' }, 'es'), 'mine');  // a scenario without a description
});

test('the metastability map: the chosen cell asked first then its neighbours, states, queries and Retry-After', () => {
  const order = cellOrder(0.6, 0.45);
  assert.equal(order.length, DEPTHS.length * LOADS.length);
  assert.deepEqual(order[0], [0.6, 0.45]);
  assert.deepEqual(order.slice(1, 5).map(c => c.join('/')).sort(), ['0.4/0.45', '0.6/0.3', '0.6/0.6', '0.8/0.45']);
  assert.deepEqual(order.at(-1).length, 2);
  assert.equal(new Set(order.map(c => c.join('/'))).size, 25);
  assert.deepEqual(cellOrder(0.2, 0.15)[0], [0.2, 0.15]);
  assert.equal(cellState(undefined), 'pending');
  assert.equal(cellState({ recovered_after_s: null }), 'never');
  assert.equal(cellState({ recovered_after_s: 0 }), 'quick');
  assert.equal(cellState({ recovered_after_s: 2 }), 'quick');
  assert.equal(cellState({ recovered_after_s: 3 }), 'slow');
  assert.equal(mapQuery({ ...DEFAULTS, overrides: { max_attempts: '1', timeout_ms: '' } }, 0.8, 0.3),
    '/experiments/map?policy=legacy&depth=0.8&length_s=4&load=0.3&max_attempts=1');
  assert.equal(mapKey({ policy: 'resilient', lengthS: 2, overrides: { circuit_breaker: 'false', jitter: '' } }),
    'policy=resilient&length_s=2&circuit_breaker=false');
  assert.equal(retryAfterMs('3', {}), 3000);
  assert.equal(retryAfterMs(null, { retry_after_s: 5 }), 5000);
  assert.equal(retryAfterMs(null, {}), 1000);
  assert.equal(retryAfterMs('x', null), 1000);
});

test('the map speaks one Spanish: its sentences and cells', () => {
  const es = makeFormat('es', 'es-AR');
  const w = TEXT.es;
  const s = { policy: 'legacy', lengthS: 4, depth: 0.6, load: 0.45 };
  for (const text of [w.mapTitle, w.mapHelp, w.mapSettings, w.mapCorner, w.mapCell(null, es), w.mapCell({ recovered_after_s: null }, es),
    w.mapSentence(s, null, es), w.mapSentence(s, { recovered_after_s: null, window_s: 20, calls_per_quote: 3.42 }, es),
    w.mapSentence(s, { recovered_after_s: 3, window_s: 20, calls_per_quote: 1 }, es), w.mapBound(0.25, 4, es),
    w.mapProgress(3, 25, true), w.mapProblem('x'), w.mapUnreachable, w.mapChart, w.mapLoadValue(0.45, es)])
    assert.deepEqual(foreignWords(text), [], text);
  assert.equal(w.mapSentence(s, { recovered_after_s: 3, window_s: 20, calls_per_quote: 1.5 }, es),
    'Con legacy, un disparador de −60 % durante 4 s y una carga del 45 % de la capacidad (22,5 llegadas/s) se recupera 3 s después de que el disparador termina. Llamadas al proveedor por solicitud: 1,5.');
  assert.equal(w.mapBound(0.5, 2, es).includes('50 % de la capacidad'), true);
});
