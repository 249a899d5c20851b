// The overload strategies panel in Debian's Chromium, the lab at its defaults: storms on
// `throttled` against carrier_offline and on `hedged` against tail_latency, started from the
// page's form, show what each refused or hedged (the lab's own counts), a live drop
// probability that falls back to 0 once the throttle's window empties, and the last answer
// of an overload policy as a waterfall with its refusal or its hedged call. Env:
// QUOTE_LAB_BINARY, ARTIFACT_DIR; UPDATE_SCREENSHOTS=1 also writes the panel's picture to docs/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTIFACTS, startLab, openPage, stormFromPage, minFontPx } from './harness.mjs';
import { notSpanish } from './spanish.mjs';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
// The live stream opens within a second here; sanitizer builds on two busy cores get 15 s.
const LIVE_MS = 15000;
const UI_MS = 10000;
// The five overload policies the lab ships, in its policies file's order.
const OVERLOAD = ['throttled', 'adaptive_limit', 'bulkhead', 'hedged', 'aws_adaptive'];

async function shot(locator, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await locator.screenshot({ path: path.join(ARTIFACTS, name) });
  if (process.env.UPDATE_SCREENSHOTS === '1') await locator.screenshot({ path: path.join(DOCS, name) });
}

// A figure's number as the page holds it (data-value; '' when the lab has none).
const value = (page, policy, key) =>
  page.locator(`.overload-card[data-policy=${policy}] [data-key=${key}]`).getAttribute('data-value').then(v => (v === '' ? null : Number(v)));
// Waits until that number `op` `n` (op: '>', '===').
const waitValue = (page, policy, key, op, n, timeout = UI_MS) => page.waitForFunction(([p, k, o, want]) => {
  const v = document.querySelector(`.overload-card[data-policy=${p}] [data-key=${k}]`)?.dataset.value;
  if (v === undefined || v === '') return false;
  return o === '>' ? Number(v) > want : Number(v) === want;
}, [policy, key, op, n], { timeout }).catch(async e => {
  throw new Error(`${e.message}\n${policy} ${key}: ${await value(page, policy, key)}, wanted ${op} ${n}`);
});

test('overload strategies: a throttled and a hedged storm show what each refused or hedged, live', async () => {
  const lab = await startLab();
  const { browser, page, problems } = await openPage(lab);
  const asked = [];
  page.on('request', r => { if (r.url().includes('/metrics')) asked.push(r.url()); });
  try {
    await page.locator('#live[data-state=live]').waitFor({ timeout: LIVE_MS });
    // The storm form lists every policy of GET /, the five overload ones among them; the
    // panel has a card for each of those, and for no other.
    const policies = Object.keys((await lab.get('/')).body.policies).filter(p => p !== 'breaker');
    const stormable = await page.locator('#storm-mode option').evaluateAll(os => os.map(o => o.value));
    assert.deepEqual(stormable, ['legacy', 'resilient', ...policies.filter(p => p !== 'legacy' && p !== 'resilient')]);
    for (const p of OVERLOAD) assert.ok(stormable.includes(p), `${p} in the storm form`);
    assert.deepEqual(await page.locator('.overload-card').evaluateAll(cs => cs.map(c => c.dataset.policy)), OVERLOAD);
    assert.equal(await page.locator('#overload-title').textContent(), 'Estrategias de sobrecarga');
    // each strategy by its Spanish term, as GET /'s strategies give it, in the pipeline's order
    assert.equal(await page.locator('.overload-card[data-policy=aws_adaptive] .strategy').textContent(),
      ' · cuota de reintentos, reintento adaptativo');
    assert.equal(await page.locator('#overload-none').isVisible(), true);  // nothing yet, and it says so

    // hedged against tail_latency: a hedged call goes when the first has not answered by the
    // observed p90, within the budget.
    const hedgedRequests = await stormFromPage(page, 'hedged', 'tail_latency', 5, 4);
    await waitValue(page, 'hedged', 'requests', '===', hedgedRequests);
    await waitValue(page, 'hedged', 'hedgeSent', '>', 0);
    const sent = await value(page, 'hedged', 'hedgeSent');
    assert.ok(sent <= 0.15 * hedgedRequests + 5, `${sent} hedges for ${hedgedRequests} requests: the budget's 15 % (and 1/s)`);
    assert.ok((await value(page, 'hedged', 'hedgeWon')) <= sent);
    assert.ok((await value(page, 'hedged', 'quote_lab_hedge_delay_seconds')) > 0);
    // A hedged curl whose first call outlasts the delay: its hedged call drawn inside the
    // attempt. One curl, asked once: slow_provider answers every call in 640-730 ms, past the
    // ~300 ms the policy learnt on tail_latency (its p90), and the storm left budget for it.
    const { body: hedgedAnswer } = await lab.get('/quote/hedged?scenario=slow_provider');
    assert.deepEqual(hedgedAnswer.events.map(e => e.event), ['hedge', 'attempt_success'], JSON.stringify(hedgedAnswer.events));
    await page.locator(`.overload-answer .answer-origin[data-request-id="${hedgedAnswer.request_id}"]`).waitFor({ timeout: UI_MS });
    const attempt = page.locator('.overload-answer .waterfall li[data-kind^=attempt_]').first();
    const hedge = page.locator('.overload-answer .waterfall li[data-kind=hedge]');
    const start = Number(await attempt.getAttribute('data-start-ms'));
    const end = start + Number(await attempt.getAttribute('data-ms'));
    const sentAt = Number(await hedge.getAttribute('data-start-ms'));
    assert.ok(sentAt > start && sentAt <= end + 0.01, `hedge sent at ${sentAt}, inside the attempt ${start}–${end}`);
    assert.match(await hedge.textContent(), /^intento 1: llamada de cobertura, enviada a los \d+ ms · [\d,]+\sms$/);

    // throttled against a carrier that refuses every connection: after its protection the
    // throttle drops nearly every call without sending it.
    const throttledRequests = await stormFromPage(page, 'throttled', 'carrier_offline', 5, 3);
    await waitValue(page, 'throttled', 'requests', '===', throttledRequests);
    await waitValue(page, 'throttled', 'rejected', '>', 0);
    const rejected = await value(page, 'throttled', 'rejected');
    const calls = await value(page, 'throttled', 'calls');
    assert.ok(rejected > 0.8 * throttledRequests, `${rejected} of ${throttledRequests} dropped`);
    assert.ok(calls < 0.15 * throttledRequests, `${calls} carrier calls for ${throttledRequests} requests`);
    assert.match(await page.locator('.overload-card[data-policy=throttled] .reasons').textContent(),
      /^descartadas por la limitación adaptativa: [\d.]+$/);
    // the drop probability as the lab computes it now: high right after the storm
    await waitValue(page, 'throttled', 'quote_lab_throttle_drop_ratio', '>', 0.5);
    assert.match(await page.locator('.overload-card[data-policy=throttled] [data-key=quote_lab_throttle_drop_ratio] b').textContent(), /^\d{2},\d\s%$/);
    // aws_adaptive's retry quota, full before any retry: the capacity left out of its 500.
    await waitValue(page, 'aws_adaptive', 'quote_lab_retry_quota_available', '===', 500);
    assert.equal(await page.locator('.overload-card[data-policy=aws_adaptive] [data-key=quote_lab_retry_quota_available] b').textContent(), '500 / 500');
    // each live figure captioned as the lab's gauge row says, in Spanish; no 429 yet: no rate limit
    const caption = (policy, family) => page.locator(`.overload-card[data-policy=${policy}] [data-key=${family}] span`).textContent();
    assert.equal(await caption('aws_adaptive', 'quote_lab_retry_quota_available'), 'cuota de reintentos que queda');
    assert.equal(await caption('aws_adaptive', 'quote_lab_adaptive_retry_send_rate'), 'sin límite (ningún 429 todavía)');
    assert.equal(await caption('throttled', 'quote_lab_throttle_drop_ratio'), 'probabilidad de descarte ahora');
    // One Spanish in the panel, numbers and all.
    assert.deepEqual((await notSpanish(page)).filter(f => f.where.startsWith('overload')), []);

    // Projected at 1920x1080: the panel stays (it has requests), its numbers as large as the
    // rest, only the policies that had requests.
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.locator('#projector').click();
    await page.locator('#overload').waitFor({ state: 'visible' });
    assert.ok((await minFontPx(page, '#overload .key-number')) >= 48);
    assert.deepEqual(await page.locator('.overload-card:visible').evaluateAll(cs => cs.map(c => c.dataset.policy)), ['throttled', 'hedged']);
    await shot(page.locator('#overload'), 'dashboard-overload-1920x1080.png');
    // Curls right after the storm: the throttle drops nearly all of them (its drop probability
    // is 0.999 here, thousands of refusals and no accept in its window): at least 18 of 20
    // dropped, asked once; a throttle that dropped half would fail. The last one is the panel's
    // last overload answer, drawn with its own steps: a refusal then the fallback (the words of
    // a refusal: units.test.mjs).
    const curls = [];
    for (let i = 0; i < 20; i++) curls.push((await lab.get('/quote/throttled?scenario=carrier_offline')).body);
    const dropped = curls.filter(c => c.rejected === 'throttled').length;
    assert.ok(dropped >= 18, `${dropped} of 20 curls dropped by the throttle`);
    const last = curls.at(-1);
    await page.locator(`.overload-answer .answer-origin[data-request-id="${last.request_id}"]`).waitFor({ timeout: UI_MS });
    const drawn = await page.locator('.overload-answer .waterfall li[data-kind]').evaluateAll(
      rows => rows.map(r => [r.dataset.kind, r.dataset.reason]).filter(([kind]) => !['queue', 'total', 'client'].includes(kind)));
    assert.deepEqual(drawn, last.events.map(e => [e.event, e.reason ?? '']));
    // The throttle's window (10 s) empties with no throttled traffic: the page keeps reading
    // until its drop probability is back to 0 (then stops); the counts stay.
    await waitValue(page, 'throttled', 'quote_lab_throttle_drop_ratio', '===', 0, 20000);
    assert.equal(await value(page, 'throttled', 'rejected'), rejected + dropped);  // the curls' drops added up
    // The panel reads only its own metric families, never the whole telemetry.
    assert.ok(asked.length > 0);
    assert.ok(asked.every(u => /\/metrics\?family=quote_lab_/.test(u)), asked.find(u => !/family=/.test(u)));

    // A reset empties the counts; projected, the panel then gives its room away.
    await page.locator('#projector').click();
    await page.locator('#reset').click();
    await waitValue(page, 'throttled', 'requests', '===', 0);
    await page.locator('#projector').click();
    await page.locator('#overload').waitFor({ state: 'hidden' });
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await lab.stop();
  }
});
