// A class in Chromium: the lab at its default settings, the
// teacher's page projected at 1920×1080 and three students on /?lab=NAME, each in a browser
// context of their own. Asserts what the people in the room see. Screenshots go to
// ARTIFACT_DIR; with UPDATE_SCREENSHOTS=1 they also replace the ones in docs/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTIFACTS, startLab, openPage, charted, waitCharted, outage } from './harness.mjs';
import { notSpanish } from './spanish.mjs';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const STUDENTS = ['ana', 'ben', 'eva'];

async function shot(page, name, options = {}) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, name), ...options });
  if (process.env.UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: path.join(DOCS, name), ...options });
}

const rowIds = page => page.locator('#incidents-body tr').evaluateAll(rows => rows.map(r => r.dataset.requestId));
const breaker = page => page.locator('#breaker-state').getAttribute('data-state');
const points = (page, mode) => page.locator(`#mode-${mode} .traffic-box`).getAttribute('data-points').then(Number);
// A quote asked by curl (not the page) and seen on the page: the live stream delivers events
// in order, so whatever reached the page before it has been drawn when it is there (in the
// DOM: projector mode hides the table).
async function curlQuoteSeen(lab, page, mode) {
  const { body } = await lab.get(`/quote-${mode}?scenario=ok`);
  await page.locator(`#incidents-body tr[data-request-id="${body.request_id}"]`).waitFor({ state: 'attached', timeout: 10000 });
  return body.request_id;
}
// The legacy traffic chart's request rate as drawn (its own data, Chart.js): the time of each
// point (epoch ms), of those with requests, and where its axis starts.
const legacyRate = page => page.evaluate(() => {
  const chart = Chart.getChart(document.querySelector('#mode-legacy canvas.traffic'));
  const rate = chart.data.datasets.find(d => d.key === 'rate').data;
  return { all: rate.map(p => p.x), busy: rate.filter(p => p.y > 0).map(p => p.x), axisMin: chart.scales.x.min };
});
const runPanel = async (page, mode, scenario) => {
  await page.selectOption(`#${mode}-scenario`, scenario);
  await page.locator(`#mode-${mode} button[type=submit]`).click();
};

test('a class: three students in their own labs, the teacher projecting storms, a lab restart', async () => {
  let lab = await startLab();
  const teacher = await openPage(lab, { viewport: { width: 1920, height: 1080 } });
  const students = [];
  try {
    const tp = teacher.page;
    await tp.locator('#live[data-state=live]').waitFor({ timeout: 10000 });
    assert.equal(await tp.locator('#lab-name').isHidden(), true);  // the teacher's lab has no name

    // Three students open their pages; each says whose lab it is.
    for (const name of STUDENTS) students.push(await openPage(lab, { locale: 'en-US', query: `?lab=${name}` }));
    for (const [i, { page }] of students.entries()) {
      await page.locator('#live[data-state=live]').waitFor({ timeout: 10000 });
      assert.equal(await page.locator('#lab-name').isVisible(), true);
      assert.equal(await page.locator('#lab-name').textContent(), `Lab: ${STUDENTS[i]}`);
      assert.equal(await page.title(), `Lab: ${STUDENTS[i]} · quote lab`);
    }

    // The teacher opens the breaker of the projected lab: its badge, charts and table fill.
    // One request opens it (two failed attempts, SPEC's threshold).
    const clicks = 1;
    await tp.selectOption('#resilient-scenario', 'provider_down');
    await tp.locator('#mode-resilient button[type=submit]').click();
    await tp.locator('#mode-resilient .badge').waitFor();
    await tp.locator('#breaker-state[data-state=open]').waitFor({ timeout: 10000 });
    assert.equal(await breaker(tp), 'open');
    await waitCharted(tp, 'resilient', clicks, 10000);
    // The charts read the lab's counters and the table its incidents: two requests, either
    // may come back first.
    await tp.waitForFunction(n => document.querySelectorAll('#incidents-body tr').length === n, clicks, { timeout: 10000 })
      .catch(async e => { throw new Error(`${e.message}\nthe table holds ${(await rowIds(tp)).length} rows, ${clicks} expected`); });
    const rowsBefore = await rowIds(tp);
    assert.equal(rowsBefore.length, clicks);

    // Three students, each on their own page: Reset, carrier mode provider_down, Run.
    await Promise.all(students.map(async ({ page }) => {
      const [reset] = await Promise.all([page.waitForResponse(r => r.url().includes('/reset-lab')), page.locator('#reset').click()]);
      assert.equal(reset.status(), 200);
      const [changed] = await Promise.all([page.waitForResponse(r => r.url().includes('/carrier/mode')),
        page.selectOption('#carrier-mode', 'provider_down')]);
      assert.equal(changed.status(), 200);
      await page.locator('#mode-resilient button[type=submit]').click();
      await page.locator('#mode-resilient .badge:is([data-status=degraded], [data-status=failed])').waitFor({ timeout: 15000 })
        .catch(async e => { throw new Error(`${e.message}\nthe panel shows: ${await page.locator('#mode-resilient').innerText()}`); });
    }));
    const labs = (await lab.get('/class')).body.labs;
    assert.deepEqual(labs.map(l => l.name).sort(), STUDENTS);
    assert.ok(labs.every(l => l.carrier_mode === 'provider_down' && l.requests === 1), JSON.stringify(labs));

    // Nothing of it on the teacher's page: the breaker still open once (half-open when its
    // 30 s are over on a slow machine; a reset would close it and count 0 openings), the
    // charts still count the teacher's requests (a reset would clear them), the table
    // unchanged, the carrier mode still ok.
    const seen = await curlQuoteSeen(lab, tp, 'legacy');
    assert.notEqual(await breaker(tp), 'closed');
    assert.equal(await tp.locator('#breaker-opens').textContent(), '1');
    await waitCharted(tp, 'resilient', clicks, 5000);
    await waitCharted(tp, 'legacy', 1, 5000);
    assert.ok((await points(tp, 'resilient')) >= 2);
    assert.deepEqual(await rowIds(tp), [seen, ...rowsBefore]);
    assert.equal(await tp.locator('#carrier-mode').inputValue(), 'ok');
    // The teacher's reset closes the teacher's breaker; the next quote follows the teacher's
    // carrier mode (ok), not the students' provider_down.
    await tp.locator('#reset').click();
    await tp.locator('#breaker-state[data-state=closed]').waitFor({ timeout: 5000 });
    await tp.waitForFunction(() => document.querySelectorAll('#incidents-body tr').length === 0, null, { timeout: 5000 });
    // The story's first reading of the lab's counters after the reset (a flat legacy second
    // comes only from one; a storm started before it would begin before the chart's first
    // point): the quote below is then counted in the charts' requests, not drawn
    // at its own time as one from before the chart began (what a page opened late does).
    await tp.waitForFunction(() => {
      const box = document.querySelector('#mode-legacy .traffic-box').dataset;
      return box.requests === '0' && Number(box.points) >= 1;  // cleared (the curl quote gone), then read
    }, null, { timeout: 10000 });
    await runPanel(tp, 'resilient', '');
    // Whatever its status (under ThreadSanitizer the carrier's 115-150 ms "ok" can pass the
    // 220 ms timeout), the quote ran against the teacher's mode and was not short-circuited.
    await tp.locator('#mode-resilient .badge[data-status]').waitFor({ timeout: 20000 });
    const latest = (await lab.get('/incidents?limit=1')).body.incidents[0];
    assert.equal(latest.scenario, 'ok');
    assert.equal(latest.short_circuited, false);
    assert.ok(latest.attempts >= 1);
    await shot(students[0].page, 'classroom-student-1280x720.png');

    // The class view lists the three labs, with what each student did.
    const classPage = await teacher.browser.newPage();
    await classPage.goto(lab.url + '/class', { waitUntil: 'domcontentloaded' });
    await classPage.waitForFunction(() => document.querySelectorAll('#class-rows tr').length === 3, null, { timeout: 10000 });
    const rows = await classPage.locator('#class-rows tr').evaluateAll(trs => trs.map(tr => [...tr.cells].map(c => c.textContent)));
    assert.deepEqual(rows.map(r => r[1]).sort(), STUDENTS);
    assert.ok(rows.every(r => r[3] === 'provider_down'), JSON.stringify(rows));
    assert.equal(await classPage.locator('#class-rows a').first().getAttribute('href'), `/?lab=${rows[0][1]}`);
    // The carrier-mode choice says what each scenario is, in the page's Spanish.
    await classPage.waitForFunction(() => document.querySelector('#class-mode option[value=provider_down]')?.textContent.includes('—'),
      null, { timeout: 10000 });
    assert.equal(await classPage.locator('#class-mode option[value=provider_down]').textContent(), 'provider_down — Proveedor caído');
    await shot(classPage, 'classroom-class-1920x1080.png');
    await classPage.close();

    // A legacy storm; a quote asked during it waits for a worker, and its waterfall says so.
    await tp.selectOption('#storm-mode', 'legacy');
    await tp.selectOption('#storm-scenario', 'provider_down');
    await tp.fill('#storm-clients', '30');
    await tp.fill('#storm-duration', '4');
    const stormStart = await tp.evaluate(() => Date.now());
    await tp.locator('#storm-start').click();
    await tp.waitForFunction(() => document.querySelector('#storm-progress').value >= 0.3, null, { timeout: 15000 });
    // Any answer will do: what is checked is its wait for a worker. (On a loaded machine the
    // carrier's 115-150 ms "ok" can pass the 220 ms timeout and the answer is degraded.) Workers
    // go first come, first served: the quote waits behind the storm's 30 requests.
    // Its answer, read in one go from the page (the storm's answers redraw the panels while
    // the test reads): the earlier answer's badge stays up until this one replaces it.
    const before = await tp.locator('#mode-resilient .answer-origin').getAttribute('data-request-id');
    await runPanel(tp, 'resilient', 'ok');
    const drawn = await tp.waitForFunction(previous => {
      const panel = document.querySelector('#mode-resilient');
      const origin = panel.querySelector('.answer-origin');
      const queue = panel.querySelector('.waterfall li[data-kind=queue]');
      if (!origin.dataset.requestId || origin.dataset.requestId === previous || origin.dataset.own !== 'true') return null;
      return queue ? { ms: Number(queue.dataset.ms), px: queue.querySelector('.wf-bar').getBoundingClientRect().width } : { ms: 0, px: 0 };
    }, before, { timeout: 30000 });
    const { ms: queueMs, px: queuePx } = await drawn.jsonValue();
    assert.ok(queueMs > 0 && queuePx > 3, `queue ${queueMs} ms drawn ${queuePx} px wide`);
    await tp.locator('#projector').click();
    await shot(tp, 'classroom-teacher-storm-1920x1080.png');
    await tp.locator('#storm-legacy[data-requests]:not([data-requests=""])').waitFor({ timeout: 30000 });
    const legacyStorm = Number(await tp.locator('#storm-legacy').getAttribute('data-requests'));

    // Then a resilient one. Both results stand side by side until a reset.
    await tp.locator('#projector').click();
    await tp.selectOption('#storm-mode', 'resilient');
    await tp.locator('#storm-start').click();
    await tp.locator('#storm-resilient[data-requests]:not([data-requests=""])').waitFor({ timeout: 30000 });
    await tp.locator('#projector').click();
    assert.equal(Number(await tp.locator('#storm-legacy').getAttribute('data-requests')), legacyStorm);
    const [lb, rb] = await Promise.all(['#storm-legacy', '#storm-resilient'].map(s => tp.locator(s).boundingBox()));
    assert.equal(Math.round(lb.y), Math.round(rb.y));
    assert.ok(lb.x + lb.width <= rb.x);
    // Drawn whole: every request the lab counted is in the charts, one point per second
    // from the storm's first seconds on, still there after the second storm.
    const summary = (await lab.get('/diagnostics/summary')).body.modes;
    assert.ok(summary.legacy.requests >= legacyStorm);
    await waitCharted(tp, 'legacy', summary.legacy.requests, 10000);
    await waitCharted(tp, 'resilient', summary.resilient.requests, 10000);
    const rate = await legacyRate(tp);
    assert.ok(rate.busy.length >= 3, `legacy storm drawn over ${rate.busy.length} seconds`);
    assert.ok(rate.all[0] <= stormStart && rate.axisMin <= rate.all[0],
      `the chart starts ${rate.all[0] - stormStart} ms after the storm did (axis from ${rate.axisMin - stormStart} ms)`);
    await tp.waitForTimeout(1200);  // the next story point, for the picture only
    await shot(tp, 'classroom-teacher-1920x1080.png');

    // One of the course's pages, for a student's lab.
    const sp = students[0].page;
    await sp.goto(lab.url + '/dependency/state?lab=ana', { waitUntil: 'domcontentloaded' });
    await sp.locator('table.fields').first().waitFor({ timeout: 5000 });
    assert.equal(await sp.locator('#nav-dashboard').getAttribute('href'), '/?lab=ana');
    assert.equal(await sp.locator('#lab-name').isVisible(), true);
    assert.equal(await sp.locator('#lab-name').textContent(), 'Lab: ana');
    await shot(sp, 'pages-dependency-state-1280x720.png', { fullPage: true });

    // The lab restarts (killed, then started on the same port and state file).
    await lab.stop({ keep: true, signal: 'SIGKILL' });
    await tp.locator('#live[data-state=unreachable]').waitFor({ timeout: 15000 });
    assert.equal(await tp.locator('#live').textContent(), 'laboratorio no disponible: reconectando…');
    lab = await startLab([], { port: lab.port, dir: lab.dir });
    await tp.locator('#live[data-state=live]').waitFor({ timeout: 20000 });
    await curlQuoteSeen(lab, tp, 'resilient');  // the live stream is back
    assert.deepEqual((await lab.get('/class')).body.labs.map(l => l.name).sort(), STUDENTS);  // kept in the state file

    assert.deepEqual(teacher.problems.filter(outage), []);
    for (const s of students) assert.deepEqual(s.problems.filter(outage), []);
  } finally {
    for (const s of students) await s.browser.close();
    await teacher.browser.close();
    await lab.stop();
  }
});

test('the class challenge: two students post designs, the projected class page ranks them in Spanish', async () => {
  const lab = await startLab();
  const { browser, page, problems } = await openPage(lab, { path: '/class', viewport: { width: 1920, height: 1080 } });
  try {
    // No design yet: no challenge table.
    await page.locator('#class-order').waitFor({ timeout: 10000 });
    assert.equal(await page.locator('#class-designs-section').isHidden(), true);
    const designs = {
      // SRE adaptive throttling where resilient has its breaker.
      ana: { pipeline: [{ strategy: 'fallback' }, { strategy: 'retry', max_attempts: 2 },
        { strategy: 'adaptive_throttle', k: 2 }, { strategy: 'timeout', timeout_ms: 220 }] },
      // Legacy's pipeline: four immediate attempts.
      ben: [{ strategy: 'retry', max_attempts: 4, backoff_base_ms: 0, backoff_max_ms: 0, jitter: 'none' },
        { strategy: 'timeout', timeout_ms: 360 }],
    };
    const scores = {};
    for (const [name, design] of Object.entries(designs)) {
      const key = (await lab.post(`/claim?name=${name}`)).body.lab_key;
      const res = await fetch(`${lab.url}/experiments/scorecard?lab=${name}`, {
        method: 'POST', headers: { 'X-Lab-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(design) });
      assert.equal(res.status, 200);
      scores[name] = (await res.json()).scorecard.score;
    }
    await page.waitForFunction(() => document.querySelectorAll('#class-designs tr').length === 2, null, { timeout: 10000 });
    const rows = await page.locator('#class-designs tr').evaluateAll(trs => trs.map(tr => [...tr.cells].map(c => c.textContent)));
    assert.deepEqual(rows.map(r => [r[0], r[1], r[2]]), [['1', 'ana', 'ana'], ['2', 'ben', 'ben']]);
    assert.equal(rows[0][3], scores.ana.toLocaleString('es-AR', { minimumFractionDigits: 1, maximumFractionDigits: 1 }));
    assert.equal(rows[1][3], '0,0');  // legacy's pipeline scores legacy's score
    assert.equal(rows[0][6], 'fallback → retry → adaptive_throttle → timeout');
    assert.equal(await page.locator('#class-designs a').first().getAttribute('href'), '/experiments/scorecard?lab=ana');
    assert.match(await page.locator('#class-designs-order').textContent(), /Como referencia: legacy 0,0, resilient 41,8\./);
    assert.deepEqual(await notSpanish(page), []);
    // Projected: read from the back of the room.
    await page.locator('#class-projector').click();
    await shot(page, 'classroom-challenge-1920x1080.png');
    assert.deepEqual(problems.filter(outage), []);
  } finally {
    await browser.close();
    await lab.stop();
  }
});
