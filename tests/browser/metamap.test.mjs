// The metastability map on the dashboard, in Debian's Chromium: drawn from GET /experiments/map
// in simulated time, the cells the route gives, drawn again when a student moves the trigger or
// a policy's setting, one Spanish. QUOTE_LAB_BINARY, ARTIFACT_DIR; UPDATE_SCREENSHOTS=1 also
// writes the map's picture to docs/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTIFACTS, startLab, openPage } from './harness.mjs';
import { notSpanish } from './spanish.mjs';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
// 25 cells of about 0.01-0.2 s each on the lab's simulation thread: about 2 s here; a loaded
// machine gets 30 s.
const MAP_MS = 30000;
const DEPTHS = [0.2, 0.4, 0.6, 0.8, 1.0];
const LOADS = [0.15, 0.3, 0.45, 0.6, 0.75];

// Waits until the map of `map` (its settings as a query: "policy=legacy&length_s=4") is whole.
const drawn = (page, map = 'policy=legacy&length_s=4') => page.waitForFunction(m => {
  const box = document.querySelector('#metamap');
  return box?.dataset.map === m && box.dataset.cells === '25'
    && document.querySelectorAll('#metamap td[data-state=pending]').length === 0;
}, map, { timeout: MAP_MS });
const cell = (page, d, l) => page.locator(`#metamap td[data-depth="${d}"][data-load="${l}"]`);
// Every cell's verdict as the page shows it, row by row.
const verdicts = page => page.locator('#metamap td[data-depth]').evaluateAll(tds => tds.map(td => `${td.dataset.depth}/${td.dataset.load}:${td.textContent}`));

// What the route answers for the same cells (each a cache hit by now): the page draws what the lab says.
async function routeVerdicts(lab, query) {
  const out = [];
  for (const d of DEPTHS)
    for (const l of LOADS) {
      const { status, body } = await lab.get(`/experiments/map?${query}&depth=${d}&load=${l}`);
      assert.equal(status, 200);
      out.push(`${d}/${l}:${body.recovered_after_s == null ? 'nunca' : `${body.recovered_after_s} s`}`);
    }
  return out;
}

test('the map in Spanish: Huang et al.\'s critical cell never recovers; one attempt or a shorter trigger redraw it', async () => {
  const lab = await startLab();
  const { browser, page, problems } = await openPage(lab, { viewport: { width: 1920, height: 1080 } });
  try {
    await drawn(page);
    assert.equal(await page.locator('#metamap-title').textContent(), 'El mapa de la metaestabilidad (tiempo simulado)');
    // The defaults: legacy, −60 % for 4 s at 45 % of capacity, chosen.
    const critical = cell(page, 0.6, 0.45);
    assert.equal(await critical.textContent(), 'nunca');
    assert.equal(await critical.getAttribute('data-state'), 'never');
    assert.match(await critical.getAttribute('class'), /chosen/);
    assert.equal(await page.locator('.metamap-sentence').textContent(),
      'Con legacy, un disparador de −60 % durante 4 s y una carga del 45 % de la capacidad (22,5 llegadas/s) no se recupera: '
      + 'en los 20 s después del disparador nunca hay 2 segundos seguidos con un 90 % de respuestas útiles en vivo. '
      + `Llamadas al proveedor por solicitud: ${new Intl.NumberFormat('es-AR', { maximumFractionDigits: 2 }).format(
        (await lab.get('/experiments/map?policy=legacy&depth=0.6&length_s=4&load=0.45')).body.calls_per_quote)}.`);
    assert.equal(await page.locator('.metamap-bound').textContent(),
      'Cargas en negrita: por debajo de la cota del teorema 2 (la capacidad ÷ 4 llamadas por solicitud en el peor caso = 25 % de la capacidad): ahí ningún disparador puede dejar al sistema caído.');
    // Below Theorem 2's bound every trigger recovers; the page's cells are the route's.
    for (const d of DEPTHS) assert.equal(await cell(page, d, 0.15).getAttribute('data-state'), 'quick');
    assert.deepEqual(await verdicts(page), await routeVerdicts(lab, 'policy=legacy&length_s=4'));
    assert.deepEqual((await notSpanish(page)).filter(f => f.where.startsWith('metamap')), []);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.locator('#metamap').screenshot({ path: path.join(ARTIFACTS, 'metamap-1920x1080.png') });
    if (process.env.UPDATE_SCREENSHOTS === '1') await page.locator('#metamap').screenshot({ path: path.join(DOCS, 'metamap-1920x1080.png') });

    // One attempt instead of legacy's four: the retries that kept the queue full are gone.
    await page.fill('#metamap-override-max_attempts', '1');
    await drawn(page, 'policy=legacy&length_s=4&max_attempts=1');
    assert.equal(await critical.textContent(), '0 s');
    assert.deepEqual(await verdicts(page), await routeVerdicts(lab, 'policy=legacy&length_s=4&max_attempts=1'));
    await page.fill('#metamap-override-max_attempts', '');

    // A shorter trigger: the critical cell recovers (Fig. 5's third row).
    await page.locator('#metamap-length').fill('1');
    await drawn(page, 'policy=legacy&length_s=1');
    assert.equal(await page.locator('.metamap-length-value').textContent(), '1 s');
    assert.equal(await critical.textContent(), '0 s');
    assert.deepEqual(await verdicts(page), await routeVerdicts(lab, 'policy=legacy&length_s=1'));

    // Clicking a cell chooses it without drawing the map again.
    const generation = await page.locator('#metamap').getAttribute('data-generation');
    await cell(page, 1, 0.75).click();
    await page.locator('#metamap td.chosen[data-depth="1"][data-load="0.75"]').waitFor({ timeout: 5000 });
    assert.match(await page.locator('.metamap-sentence').textContent(), /^Con legacy, un disparador de −100 % durante 1 s y una carga del 75 %/);
    assert.equal(await page.locator('#metamap-depth').inputValue(), '4');
    assert.equal(await page.locator('#metamap').getAttribute('data-generation'), generation);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await lab.stop();
  }
});

test('the map in English for resilient: its breaker holds every cell, recovering after the probe', async () => {
  const lab = await startLab();
  const { browser, page, problems } = await openPage(lab, { locale: 'en-GB', query: '?lang=en' });
  try {
    await drawn(page);
    await page.selectOption('#metamap-policy', 'resilient');
    await drawn(page, 'policy=resilient&length_s=4');
    // The breaker opens during the trigger and stays open 30 s: every cell recovers, late.
    const states = await page.locator('#metamap td[data-depth]').evaluateAll(tds => tds.map(td => td.dataset.state));
    assert.ok(!states.includes('never'), states.join(' '));
    assert.match(await page.locator('.metamap-sentence').textContent(), /^With resilient, a trigger of −60 % for 4 s under a load of 45 % of capacity \(22\.5 arrivals\/s\) recovers \d+ s after the trigger ends\./);
    assert.deepEqual(await verdicts(page).then(v => v.map(x => x.replace('never', 'nunca'))), await routeVerdicts(lab, 'policy=resilient&length_s=4'));
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await lab.stop();
  }
});
