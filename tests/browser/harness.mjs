// What the browser tests share: a `quote-lab serve` of their own on free loopback ports,
// one Debian Chromium (playwright-core) for the whole file, a page per context that records
// every console error, failed request and HTTP error, and the readings of the dashboard.
// Env: QUOTE_LAB_BINARY (the built binary), ARTIFACT_DIR (where screenshots go).
import { after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const BINARY = process.env.QUOTE_LAB_BINARY;
export const ARTIFACTS = process.env.ARTIFACT_DIR || tmpdir();
assert.ok(BINARY, 'set QUOTE_LAB_BINARY to the built quote-lab');

// Flags that keep Chromium off this machine's closed network and runnable as root.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// `port`: 0 for any free one; `dir`: the state folder (a restart passes the previous one).
export async function startLab(extra = [], { port: wanted = 0, dir = mkdtempSync(path.join(tmpdir(), 'quote-lab-browser-')) } = {}) {
  const child = spawn(BINARY, ['serve', '--port', String(wanted), '--carrier-port', '0',
    '--state-file', path.join(dir, 'state.json'), ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`lab did not start:\n${log}`)), 10000);
    const onData = d => {
      log += d;
      const m = /quote-lab listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', code => reject(new Error(`lab exited ${code}:\n${log}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url, port, dir,
    async stop({ keep = false, signal = 'SIGTERM' } = {}) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise(resolve => child.once('exit', resolve));
        child.kill(signal);
        await exited;
      }
      if (!keep) rmSync(dir, { recursive: true, force: true });
    },
    async get(p, headers = {}) { const r = await fetch(url + p, { headers }); return { status: r.status, body: await r.json() }; },
    async post(p, headers = {}) { const r = await fetch(url + p, { method: 'POST', headers }); return { status: r.status, body: await r.json() }; },
  };
}

// `answers`: what the user types into each window.prompt the page opens, in order (null:
// Cancel; prompts beyond the list are cancelled too). `dialogs` lists the messages shown.
// One Chromium for the whole file (a launch costs seconds on a busy machine); each page
// gets a context of its own, closed by the test ("browser.close()" below closes it).
let shared = null;
const chromiumOnce = () => (shared ??= chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS }));
after(async () => { if (shared) await (await shared).close(); });

// `path`: the page to open ("/" the dashboard); `before(page)`: runs before it loads (routes
// that hold a request, storage a browser already had).
export async function openPage(lab, { locale = 'es-AR', answers = [], viewport = { width: 1280, height: 720 }, query = '', path = '/',
  before = null } = {}) {
  const context = await (await chromiumOnce()).newContext({ viewport, locale });
  const browser = context;  // closing it closes the page's context, not the shared Chromium
  const page = await context.newPage();
  const problems = [];
  const dialogs = [];
  page.on('dialog', d => {
    dialogs.push(d.message());
    const answer = answers.shift();
    return answer == null ? d.dismiss() : d.accept(answer);
  });
  page.on('console', m => {
    // Chromium logs every HTTP error it loads; legacy's 503 is the lesson, not a bug.
    const legacyFailed = m.text().includes('status of 503') && m.location().url.includes('/quote-legacy');
    if (m.type() === 'error' && !legacyFailed) problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', e => problems.push(`page error: ${e.message}`));
  let reloading = false;
  page.on('requestfailed', r => {
    // The event stream is cut when the page closes, and a reload aborts what is in flight;
    // anything else failing is a defect.
    const cutByReload = reloading && r.failure()?.errorText === 'net::ERR_ABORTED';
    if (!r.url().endsWith('/events') && !cutByReload) problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`);
  });
  page.on('response', r => {
    const legacyFailed = r.status() === 503 && r.url().includes('/quote-legacy');  // the lesson, not a bug
    if (r.status() >= 400 && !legacyFailed) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  // A reload cuts short the fetches in flight, which would fail them for no fault of the
  // page: reload() first waits until none has been in flight for 500 ms (longer than the
  // page's 300 ms refresh delay), at most 5 s, and forgives the ones it aborts all the same
  // (the page reads the lab's counters every second while something happens). The event
  // stream never ends, so it is left out.
  const inFlight = new Set();
  page.on('request', r => { if (!r.url().endsWith('/events')) inFlight.add(r); });
  page.on('requestfinished', r => inFlight.delete(r));
  page.on('requestfailed', r => inFlight.delete(r));
  const reload = async () => {
    const start = Date.now();
    for (let quietSince = start; Date.now() - quietSince < 500 && Date.now() - start < 5000;) {
      if (inFlight.size) quietSince = Date.now();
      await new Promise(resolve => setTimeout(resolve, 50));
    }
    reloading = true;
    await page.reload({ waitUntil: 'domcontentloaded' });
    reloading = false;
  };
  if (before) await before(page);
  await page.goto(lab.url + path + query, { waitUntil: 'domcontentloaded' });
  return { browser, page, problems, dialogs, reload };
}

// Requests the story charts have counted for a mode since the page opened (or the reset).
export const charted = (page, mode) => page.locator(`#mode-${mode} .traffic-box`).getAttribute('data-requests').then(Number);
export const waitCharted = (page, mode, n, timeout = 5000) => page.waitForFunction(([m, want]) =>
  Number(document.querySelector(`#mode-${m} .traffic-box`)?.dataset.requests) === want, [mode, n], { timeout })
  .catch(async e => { throw new Error(`${e.message}\n${mode}: ${await charted(page, mode)} requests charted, ${n} expected`); });

// Starts a storm from the page's form and waits for its result card.
export async function stormFromPage(page, mode, scenario, clients, durationS) {
  await page.selectOption('#storm-mode', mode);
  await page.selectOption('#storm-scenario', scenario);
  await page.fill('#storm-clients', String(clients));
  await page.fill('#storm-duration', String(durationS));
  // A named policy has no card before its first storm.
  const card = page.locator(`#storm-${mode}`);
  const before = (await card.count()) ? await card.getAttribute('data-requests') : null;
  await page.locator('#storm-start').click();
  await page.waitForFunction(([m, b]) => { const c = document.querySelector(`#storm-${m}`); return c?.dataset.requests && c.dataset.requests !== b; },
    [mode, before], { timeout: 30000 });
  return Number(await page.locator(`#storm-${mode}`).getAttribute('data-requests'));
}

export const minFontPx = (page, selector) => page.evaluate(sel => Math.min(...[...document.querySelectorAll(sel)]
  .filter(n => n.getClientRects().length && n.textContent.trim())
  .map(n => parseFloat(getComputedStyle(n).fontSize))), selector);
// Every visible element that holds text of its own.
export const TEXT_NODES = 'body *:not(script):not(style):not(option)';
export const visibleFormControls = page => page.evaluate(() => [...document.querySelectorAll('form, select, input, textarea')]
  .filter(n => n.getClientRects().length).map(n => n.id || n.name || n.tagName));

// Chromium reports every request a dead lab could not answer; those are the point here.
export const outage = p => !/ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|ERR_CONNECTION_RESET|ERR_ABORTED|net::ERR_/.test(p);
