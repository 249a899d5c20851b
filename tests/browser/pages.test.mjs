// The pages as a room sees them, in Debian's Chromium: the breaker before its first read,
// incidents at their own time, a student's page and key, the class view (projector, ranking,
// actions only for the teacher) and one Spanish on every page. Each test starts its own lab
// (harness.mjs). Env: QUOTE_LAB_BINARY, ARTIFACT_DIR; UPDATE_SCREENSHOTS=1 also writes docs/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTIFACTS, startLab, openPage, minFontPx, TEXT_NODES } from './harness.mjs';
import { notSpanish } from './spanish.mjs';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
// The live stream opens within a second here; sanitizer builds on two busy cores get 15 s.
const LIVE_MS = 15000;
const live = page => page.locator('#live[data-state=live]').waitFor({ timeout: LIVE_MS });
const sleep = ms => new Promise(r => setTimeout(r, ms));

async function shot(page, name, options = {}) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, name), ...options });
  if (process.env.UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: path.join(DOCS, name), ...options });
}

test('before its first read of the breaker the page says "conectando…", never a green "cerrado"', async () => {
  const lab = await startLab();
  let release;
  const held = new Promise(r => { release = r; });
  const { browser, page, problems } = await openPage(lab, {
    before: p => p.route(u => u.pathname === '/dependency/state', async route => { await held; await route.continue(); }),
  });
  try {
    await page.locator('#mode-legacy .mode-title', { hasText: 'legacy' }).waitFor({ timeout: 10000 });
    await page.waitForTimeout(300);  // the page's 250 ms redraw has run: still nothing read
    const badge = page.locator('#breaker-state');
    assert.equal(await badge.getAttribute('data-state'), 'connecting');
    assert.equal(await badge.textContent(), 'conectando…');
    assert.doesNotMatch(await badge.getAttribute('class'), /closed/);
    assert.notEqual(await badge.evaluate(n => getComputedStyle(n).backgroundColor), 'rgb(20, 108, 46)');  // not the green
    release();
    await page.locator('#breaker-state[data-state=closed]').waitFor({ timeout: 10000 });
    assert.equal(await badge.textContent(), 'cerrado');
    assert.deepEqual(problems, []);
  } finally {
    release();
    await browser.close();
    await lab.stop();
  }
});

test('a quote made before the page opened is plotted at its own time, not when the page loaded', async () => {
  const lab = await startLab();
  const { body: before } = await lab.get('/quote-legacy?scenario=ok');
  await sleep(3000);
  const opened = Date.now();
  const { browser, page, problems } = await openPage(lab);
  try {
    await live(page);
    // The baseline and two seconds after it.
    await page.waitForFunction(() => Number(document.querySelector('#mode-legacy .traffic-box').dataset.points) >= 3, null, { timeout: 10000 });
    const drawn = await page.evaluate(() => Chart.getChart(document.querySelector('#mode-legacy canvas.latency'))
      .data.datasets.find(d => d.key === 'p50').data.filter(p => p.y != null));
    const at = Date.parse(before.timestamp_utc);
    assert.equal(drawn.length, 1, JSON.stringify(drawn));
    assert.ok(drawn[0].x <= at && at - drawn[0].x < 1000, `drawn at ${drawn[0].x - at} ms from its time`);
    assert.ok(drawn[0].x < opened - 2000, 'drawn before the page opened');
    assert.equal(drawn[0].y, before.elapsed_ms + before.queue_ms);
    // The waterfall shows it too (the lab's latest answer, read from /incidents at load).
    assert.equal(await page.locator('#mode-legacy .answer-origin').getAttribute('data-request-id'), before.request_id);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await lab.stop();
  }
});

test('a student\'s page: its own requests only, said so; the lab key kept and sent, a refusal offers the field', async () => {
  const lab = await startLab();
  await lab.get('/quote-legacy?scenario=ok');                        // the teacher's
  // Opening a lab's page hands out no key: only the step-0 claim does.
  const before = await openPage(lab, { query: '?lab=ana' });
  await live(before.page);
  assert.equal(await before.page.evaluate(() => localStorage.getItem('quote-lab-key:ana')), null);
  await before.browser.close();
  const { status: claimed, body: claim } = await lab.post('/claim?name=ana');
  assert.equal(claimed, 201);
  const key = claim.lab_key;
  const ana = await openPage(lab, { query: '?lab=ana', before: p => p.addInitScript(k => localStorage.setItem('quote-lab-key:ana', k), key) });
  let other = null;
  try {
    await live(ana.page);
    assert.equal((await lab.get('/quote-resilient?scenario=ok&lab=ana')).status, 403);  // a stranger's curl
    const { body: mine } = await lab.get('/quote-resilient?scenario=ok&lab=ana', { 'X-Lab-Key': key });
    await ana.page.locator(`#incidents-body tr[data-request-id="${mine.request_id}"]`).waitFor({ timeout: 5000 });
    assert.equal(await ana.page.locator('#incidents-title').textContent(), 'Últimas solicitudes del laboratorio ana (solo las de este laboratorio)');
    assert.equal(await ana.page.locator('#incidents-body tr').count(), 1);
    // The curl shows in the student's waterfall, said to be someone else's.
    await ana.page.locator(`#mode-resilient .answer-origin[data-request-id="${mine.request_id}"][data-own=false]`).waitFor({ timeout: 2000 });

    const [reset] = await Promise.all([ana.page.waitForResponse(r => r.url().includes('/reset-lab')), ana.page.locator('#reset').click()]);
    assert.equal(reset.status(), 200);
    assert.equal(reset.request().headers()['x-lab-key'], key);

    // Another browser (a classmate, or Ana on another laptop) on one of Ana's labs: refused,
    // the lab's message shown with a field; the key pasted, the reset goes through.
    other = await openPage(lab, { query: '?lab=ana-paso3' });
    await live(other.page);
    const [refused] = await Promise.all([other.page.waitForResponse(r => r.url().includes('/reset-lab')), other.page.locator('#reset').click()]);
    assert.equal(refused.status(), 403);
    await other.page.locator('#lab-key-form').waitFor({ state: 'visible', timeout: 5000 });
    assert.equal(await other.page.locator('#lab-key-message').textContent(), (await refused.json()).message);
    await other.page.fill('#lab-key-input', key);
    const [again] = await Promise.all([other.page.waitForResponse(r => r.url().includes('/reset-lab')), other.page.locator('#lab-key-form button').click()]);
    assert.equal(again.status(), 200);
    assert.equal(await other.page.locator('#lab-key-form').isHidden(), true);
    assert.deepEqual(other.problems.filter(p => !p.includes('403')), []);
    assert.deepEqual(ana.problems, []);
  } finally {
    await other?.browser.close();
    await ana.browser.close();
    await lab.stop();
  }
});

test('/class: projected at 1920x1080 in large type, ranked by carrier calls per request among labs with enough requests', async () => {
  const lab = await startLab();
  for (let i = 0; i < 6; i++) await lab.get('/quote-legacy?scenario=ok&lab=ana');                // 1 call each
  for (let i = 0; i < 6; i++) await lab.get('/quote-resilient?scenario=provider_down&lab=ben');  // 2 calls, then refused
  for (let i = 0; i < 2; i++) await lab.get('/quote-resilient?scenario=ok&lab=eva');             // too few to rank
  const { browser, page, problems } = await openPage(lab, { path: '/class', query: '?projector=1', viewport: { width: 1920, height: 1080 } });
  try {
    await page.waitForFunction(() => document.querySelectorAll('#class-rows tr').length === 3, null, { timeout: 10000 });
    const rows = await page.locator('#class-rows tr').evaluateAll(trs => trs.map(tr => [tr.dataset.lab, tr.dataset.place, tr.cells[0].textContent]));
    assert.deepEqual(rows, [['ben', '1', '1'], ['ana', '2', '2'], ['eva', '', '—']]);
    assert.match(await page.locator('#class-order').textContent(), /al menos 5 solicitudes/);
    assert.equal(await page.locator('#class-projector').getAttribute('aria-pressed'), 'true');
    const px = await minFontPx(page, TEXT_NODES);
    assert.ok(px >= 20, `smallest text at ${px} px`);
    assert.equal(await page.locator('#class-reset').isVisible(), false);  // no actions on the projector
    await shot(page, 'classroom-class-projector-1920x1080.png');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await lab.stop();
  }
});

test('/class: a student sees no class-wide actions and is asked for nothing; the teacher enters the token and gets them', async () => {
  const TOKEN = 'chalk-42';
  const lab = await startLab(['--admin-token', TOKEN]);
  await lab.get('/quote-legacy?scenario=ok&lab=ana');
  const student = await openPage(lab, { path: '/class' });
  const teacher = await openPage(lab, { path: '/class', answers: [TOKEN] });
  try {
    await student.page.locator('#class-rows tr').first().waitFor({ timeout: 10000 });
    await student.page.waitForTimeout(500);
    assert.equal(await student.page.locator('#class-reset').isVisible(), false);
    assert.equal(await student.page.locator('#class-actions').isVisible(), false);
    assert.deepEqual(student.dialogs, []);
    await teacher.page.locator('#class-teacher').click();
    await teacher.page.locator('#class-reset').waitFor({ state: 'visible', timeout: 5000 });
    assert.equal(teacher.dialogs.length, 1);
    assert.equal(await teacher.page.locator('#class-teacher').isVisible(), false);
    assert.deepEqual(student.problems, []);
    assert.deepEqual(teacher.problems, []);
  } finally {
    await student.browser.close();
    await teacher.browser.close();
    await lab.stop();
  }
  // No token set: the teacher's laptop shows them, a student's browser (it holds a lab key) does not.
  const open = await startLab();
  await open.get('/quote-legacy?scenario=ok&lab=ana');
  const teacherOpen = await openPage(open, { path: '/class' });
  const studentOpen = await openPage(open, { path: '/class', before: p => p.addInitScript(() => localStorage.setItem('quote-lab-key:ana', 'abcdefghijklmnopqrst')) });
  try {
    await teacherOpen.page.locator('#class-reset').waitFor({ state: 'visible', timeout: 10000 });
    await studentOpen.page.locator('#class-rows tr').first().waitFor({ timeout: 10000 });
    assert.equal(await studentOpen.page.locator('#class-reset').isVisible(), false);
  } finally {
    await teacherOpen.browser.close();
    await studentOpen.browser.close();
    await open.stop();
  }
});

test('one Spanish: no English word and no retired term on any Spanish page', async () => {
  const lab = await startLab();
  // Something on every part of the pages: an open breaker, both waterfalls, both storm cards, a student lab.
  await lab.get('/quote-resilient?scenario=provider_down');
  await lab.get('/quote-legacy?scenario=provider_down');
  for (const mode of ['legacy', 'resilient']) {
    await fetch(`${lab.url}/experiments/storm?mode=${mode}&scenario=provider_down&clients=2&duration_s=1`, { method: 'POST' });
    for (let i = 0; i < 100 && (await lab.get('/experiments/storm')).body.running; i++) await sleep(100);
  }
  await lab.get('/quote-resilient?scenario=ok&lab=ana');
  const { browser, page, problems } = await openPage(lab);
  const found = {};
  try {
    const pages = [
      ['/', '', '#storm-resilient .figure'], ['/', '?projector=1', '#storm-resilient .figure'], ['/', '?lab=ana', '#incidents-body tr'],
      ['/class', '', '#class-rows tr'], ['/incidents', '', '#view table'], ['/diagnostics/summary', '', '#view table'],
      ['/metrics', '', '#view table'], ['/dependency/state', '', '#view table'], ['/dependency/state', '?lab=ana', '#view table'],
    ];
    for (const [where, query, ready] of pages) {
      await page.goto(lab.url + where + query, { waitUntil: 'domcontentloaded' });
      await page.locator(ready).first().waitFor({ timeout: 10000 });
      if (where === '/') await page.locator('#breaker-state:not([data-state=connecting])').waitFor({ timeout: 10000 });
      await page.waitForTimeout(300);
      const bad = await notSpanish(page);
      if (bad.length) found[where + query] = bad;
    }
    assert.deepEqual(found, {});
    // Leaving a page aborts its fetches in flight: not a defect of the pages.
    assert.deepEqual(problems.filter(p => !p.includes('net::ERR_ABORTED')), []);
  } finally {
    await browser.close();
    await lab.stop();
  }
});
