// The dashboard's pure parts, without a browser: number format, the story's per-second
// points, the waterfall's rows and the live stream's backoff. Fast and exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeFormat, localeFor } from '../../public/i18n.js';
import { Story, MAX_SAMPLES, WINDOW_MS } from '../../public/story.js';
import { waterfallRows, waterfallEndMs, axisTicks } from '../../public/waterfall.js';
import { streamRetryDelayMs, withLab } from '../../public/net.js';
import { timeStepMs } from '../../public/charts.js';

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
  // no queue_ms (a lab before that field): attempts start at 0
  assert.equal(waterfallRows({ elapsed_ms: 10, events: [{ event: 'attempt_success', attempt: 1, elapsed_ms: 9 }] })[0].start, 0);
  assert.deepEqual(axisTicks(1443), [0, 500, 1000]);
  assert.deepEqual(axisTicks(400), [0, 100, 200, 300, 400]);
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
