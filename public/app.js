// quote lab dashboard: two modes side by side, the carrier's breaker, live latency charts.
// Live updates come from Server-Sent Events (/events); if the stream drops, the page polls
// until it reconnects. Everything shown is read from the lab's own JSON routes.
'use strict';

const BASE = location.pathname.startsWith('/04') ? '/04' : '';
// A student's own lab (/?lab=ana): every request of this page goes to that lab.
const LAB = new URLSearchParams(location.search).get('lab');
const labUrl = path => LAB === null ? BASE + path
  : BASE + path + (path.includes('?') ? '&' : '?') + 'lab=' + encodeURIComponent(LAB);
const MODES = ['legacy', 'resilient'];
const MAX_POINTS = 300;

const TEXT = {
  es: {
    title: 'Laboratorio de cotizaciones: legacy vs resiliente',
    carrierMode: 'Modo del proveedor (requests sin escenario)',
    reset: 'Reiniciar lab', live: 'en vivo', polling: 'sin conexión en vivo: consultando cada 2 s',
    tokenPrompt: 'Este lab tiene token del docente. Pegalo para reiniciar, cambiar el modo del proveedor y lanzar tormentas (o cancelá para solo mirar):',
    adminNote: 'Sin el token del docente: reiniciar, cambiar el modo del proveedor y lanzar tormentas quedan ocultos.',
    tokenRejected: 'El lab no aceptó ese token del docente: reiniciar, cambiar el modo del proveedor y lanzar tormentas siguen ocultos. Recargá la página para ingresarlo de nuevo.',
    breakerTitle: 'Circuit breaker del proveedor', cooldown: 'Enfriamiento restante', failures: 'Fallos consecutivos',
    shortCircuits: 'Cortocircuitos', openEvents: 'Aperturas', fallbackQuote: 'Cotización de respaldo',
    incidents: 'Últimas requests (de cualquier cliente)', colTime: 'Hora', colMode: 'Modo', colScenario: 'Escenario',
    colStatus: 'Estado', colAttempts: 'Intentos', colElapsed: 'Tiempo', scenario: 'Escenario', run: 'Ejecutar',
    legacy: 'Legacy: reintentos agresivos', resilient: 'Resiliente: backoff, circuit breaker y respaldo',
    policyLegacy: p => `timeout ${p.timeout_ms} ms × ${p.max_attempts} intentos, sin espera, sin breaker, sin respaldo`,
    policyResilient: (p, b) => `timeout ${p.timeout_ms} ms × ${p.max_attempts} intentos, espera ${p.backoff_base_ms} ms × 2^(n−1) + ${p.jitter_min_ms}–${p.jitter_max_ms} ms, breaker ${b.failure_threshold} fallos / ${b.open_duration_s} s, respaldo`,
    status: { completed: 'completada', degraded: 'degradada', failed: 'fallida' },
    attempts: 'intentos', elapsed: 'tiempo', quote: 'cotización', source: { live: 'en vivo', fallback: 'respaldo' },
    age: s => `de hace ${s} s`, none: '—', running: 'ejecutando…',
    ev: {
      attempt_success: n => `intento ${n}: respuesta`, attempt_failed: (n, r) => `intento ${n}: falló (${r})`,
      backoff: () => 'espera (backoff)', circuit_opened: () => 'circuito abierto', short_circuit: () => 'cortocircuito: no se llamó',
      half_open_probe: n => `intento ${n}: sonda (semiabierto)`, fallback_used: () => 'respaldo usado',
      retry_skipped: (n, r) => `reintento omitido (${r})`,
    },
    counters: { requests: 'requests', successes: 'completadas', degraded: 'degradadas', failures: 'fallidas',
      attempts: 'llamadas', retries: 'reintentos', fallbacks: 'respaldos', short_circuits: 'cortocircuitos' },
    chartLabel: 'latencia (ms) de cada request', chartMissing: 'Falta la librería de gráficos (paquete libjs-chart.js).',
    seconds: 's', carrierModeOption: '— modo del proveedor —',
    state: { closed: 'cerrado', open: 'abierto', half_open: 'semiabierto' },
    stormTitle: 'Experimento: tormenta de reintentos', clients: 'Clientes', durationS: 'Duración (s)', stormStart: 'Lanzar tormenta',
    stormHelp: 'Muchos clientes a la vez contra el lab: compará amplificación, latencia de /health y trabajo desperdiciado.',
    stormRunning: 'Ya hay una tormenta en curso.',
    stormResult: r => `${r.mode} · ${r.scenario} · ${r.clients} clientes: ${r.requests} requests (${r.throughput_rps} req/s), latencia p50 ${r.latency_ms.p50} ms / p99 ${r.latency_ms.p99} ms, ${r.amplification ?? '—'} llamadas al proveedor por request, /health p99 ${r.health_latency_ms.p99 ?? '—'} ms, ${r.wasted_carrier_calls ?? '—'} llamadas desperdiciadas.`,
  },
  en: {
    title: 'Quote lab: legacy vs resilient',
    carrierMode: 'Carrier mode (requests without a scenario)',
    reset: 'Reset lab', live: 'live', polling: 'live updates lost: polling every 2 s',
    tokenPrompt: 'This lab has a teacher token. Paste it to reset, change the carrier mode and start storms (or cancel to just watch):',
    adminNote: 'Without the teacher token: reset, carrier mode and storms are hidden.',
    tokenRejected: 'The lab did not accept that teacher token: reset, carrier mode and storms stay hidden. Reload the page to enter it again.',
    breakerTitle: "The carrier's circuit breaker", cooldown: 'Cooldown left', failures: 'Consecutive failures',
    shortCircuits: 'Short-circuits', openEvents: 'Times opened', fallbackQuote: 'Fallback quote',
    incidents: 'Latest requests (from any client)', colTime: 'Time', colMode: 'Mode', colScenario: 'Scenario',
    colStatus: 'Status', colAttempts: 'Attempts', colElapsed: 'Elapsed', scenario: 'Scenario', run: 'Run',
    legacy: 'Legacy: aggressive retries', resilient: 'Resilient: backoff, circuit breaker and fallback',
    policyLegacy: p => `timeout ${p.timeout_ms} ms × ${p.max_attempts} attempts, no wait, no breaker, no fallback`,
    policyResilient: (p, b) => `timeout ${p.timeout_ms} ms × ${p.max_attempts} attempts, wait ${p.backoff_base_ms} ms × 2^(n−1) + ${p.jitter_min_ms}–${p.jitter_max_ms} ms, breaker ${b.failure_threshold} failures / ${b.open_duration_s} s, fallback`,
    status: { completed: 'completed', degraded: 'degraded', failed: 'failed' },
    attempts: 'attempts', elapsed: 'elapsed', quote: 'quote', source: { live: 'live', fallback: 'fallback' },
    age: s => `${s} s old`, none: '—', running: 'running…',
    ev: {
      attempt_success: n => `attempt ${n}: answered`, attempt_failed: (n, r) => `attempt ${n}: failed (${r})`,
      backoff: () => 'wait (backoff)', circuit_opened: () => 'breaker opened', short_circuit: () => 'short-circuit: not called',
      half_open_probe: n => `attempt ${n}: half-open probe`, fallback_used: () => 'fallback served',
      retry_skipped: (n, r) => `retry skipped (${r})`,
    },
    counters: { requests: 'requests', successes: 'completed', degraded: 'degraded', failures: 'failed',
      attempts: 'carrier calls', retries: 'retries', fallbacks: 'fallbacks', short_circuits: 'short-circuits' },
    chartLabel: 'latency (ms) of each request', chartMissing: 'The chart library is missing (package libjs-chart.js).',
    seconds: 's', carrierModeOption: '— carrier mode —',
    state: { closed: 'closed', open: 'open', half_open: 'half-open' },
    stormTitle: 'Experiment: retry storm', clients: 'Clients', durationS: 'Duration (s)', stormStart: 'Start storm',
    stormHelp: 'Many clients at once against the lab: compare amplification, /health latency and wasted work.',
    stormRunning: 'A storm is already running.',
    stormResult: r => `${r.mode} · ${r.scenario} · ${r.clients} clients: ${r.requests} requests (${r.throughput_rps} req/s), latency p50 ${r.latency_ms.p50} ms / p99 ${r.latency_ms.p99} ms, ${r.amplification ?? '—'} carrier calls per request, /health p99 ${r.health_latency_ms.p99 ?? '—'} ms, ${r.wasted_carrier_calls ?? '—'} wasted carrier calls.`,
  },
};

const state = {
  lang: (localStorage.getItem('quote-lab-lang') || navigator.language || 'en').toLowerCase().startsWith('es') ? 'es' : 'en',
  index: null, breaker: null, breakerAt: 0, last: {}, summary: null, incidents: [],
  charts: {}, seen: new Set(), live: false, pollTimer: null,
};
const t = () => TEXT[state.lang];
// Numbers in the reader's convention: 1,44 s in Spanish, 1.44 s in English.
const fmt = (n, digits = 0) => n == null ? '—'
  : new Intl.NumberFormat(state.lang === 'es' ? 'es-AR' : 'en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(n);
// Form fields left empty (the "carrier mode" scenario) are not sent at all.
const query = form => new URLSearchParams([...new FormData(form)].filter(([, v]) => v !== ''));
const $ = (sel, root = document) => root.querySelector(sel);

// The teacher token (--admin-token), asked once per tab and sent on every request: the
// lab needs it only on routes that change it for everyone.
const TOKEN_KEY = 'quote-lab-admin-token';
const authHeaders = () => { const tok = sessionStorage.getItem(TOKEN_KEY); return tok ? { Authorization: `Bearer ${tok}` } : {}; };

async function api(path, options = {}) {
  const res = await fetch(labUrl(path), { ...options, headers: { Accept: 'application/json', ...authHeaders() } });
  return { status: res.status, body: await res.json() };
}

// Every answer says whether the lab wants the teacher token (X-Admin-Token: "required",
// or "accepted" for the one we sent; absent when the lab has none): ask for it once.
async function checkAdmin() {
  const probe = () => fetch(labUrl('/carrier'), { headers: { Accept: 'application/json', ...authHeaders() } })
    .then(r => r.headers.get('X-Admin-Token') || 'none');
  let status = await probe();
  if (status === 'required' && !sessionStorage.getItem(TOKEN_KEY + '-asked')) {
    sessionStorage.setItem(TOKEN_KEY + '-asked', '1');
    const tok = window.prompt(t().tokenPrompt);
    if (tok && tok.trim()) { sessionStorage.setItem(TOKEN_KEY, tok.trim()); status = await probe(); }
  }
  // A token the lab refuses (mistyped, or the lab restarted with another) is said so and
  // forgotten, so that the next load asks again, instead of hiding the controls silently.
  const rejected = status === 'required' && sessionStorage.getItem(TOKEN_KEY) !== null;
  if (rejected) { sessionStorage.removeItem(TOKEN_KEY); sessionStorage.removeItem(TOKEN_KEY + '-asked'); }
  state.admin = status !== 'required';
  for (const node of document.querySelectorAll('.admin-only')) node.hidden = !state.admin;
  const note = $('#admin-note');
  note.dataset.i18n = rejected ? 'tokenRejected' : 'adminNote';  // applyLanguage keeps it
  note.textContent = t()[note.dataset.i18n];
  note.hidden = state.admin;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v; else if (k === 'text') node.textContent = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

// ---------- panels ----------
function buildPanels() {
  const tpl = $('#mode-template');
  for (const mode of MODES) {
    const section = $(`#mode-${mode}`);
    section.append(tpl.content.cloneNode(true));
    $('.mode-title', section).id = `${mode}-title`;
    const select = $('select[name=scenario]', section);
    select.id = `${mode}-scenario`;
    select.append(el('option', { value: '', class: 'carrier-mode-option', text: t().carrierModeOption }));
    for (const s of state.index.scenarios) select.append(el('option', { value: s.name, text: s.name }));
    select.value = 'provider_down';
    select.addEventListener('change', () => renderDescription(mode));
    for (const input of section.querySelectorAll('input')) input.id = `${mode}-${input.name}`;
    $('form', section).addEventListener('submit', ev => { ev.preventDefault(); runQuote(mode); });
    $('.chart', section).setAttribute('aria-label', `${mode}: ${t().chartLabel}`);
    makeChart(mode, section);
  }
  const modeSelect = $('#carrier-mode');
  for (const s of state.index.scenarios) modeSelect.append(el('option', { value: s.name, text: s.name }));
  modeSelect.value = state.index.carrier_mode;
  modeSelect.addEventListener('change', async () => {
    await api(`/carrier/mode?mode=${encodeURIComponent(modeSelect.value)}`, { method: 'PUT' });
  });
  const stormScenario = $('#storm-scenario');
  stormScenario.append(el('option', { value: '', class: 'carrier-mode-option', text: t().carrierModeOption }));
  for (const s of state.index.scenarios) stormScenario.append(el('option', { value: s.name, text: s.name }));
  stormScenario.value = 'provider_down';
  $('#storm-form').addEventListener('submit', async ev => {
    ev.preventDefault();
    const params = query(ev.target);
    if (!params.has('scenario')) params.set('scenario', $('#carrier-mode').value);  // the storm names its scenario
    const { status, body } = await api(`/experiments/storm?${params}`, { method: 'POST' });
    if (status === 409) $('#storm-result').textContent = t().stormRunning;
    else if (status >= 400) $('#storm-result').textContent = body.message;
    else renderStorm(body);
  });
  $('#reset').addEventListener('click', async () => { await api('/reset-lab', { method: 'POST' }); await refreshAll(); });
  for (const b of document.querySelectorAll('.lang button'))
    b.addEventListener('click', () => { state.lang = b.dataset.lang; localStorage.setItem('quote-lab-lang', state.lang); applyLanguage(); });
}

function renderDescription(mode) {
  const section = $(`#mode-${mode}`);
  const name = $('select[name=scenario]', section).value || $('#carrier-mode').value;
  const s = state.index.scenarios.find(x => x.name === name);
  $('.scenario-description', section).textContent = s ? s.description[state.lang] : '';
}

async function runQuote(mode) {
  const section = $(`#mode-${mode}`);
  const form = $('form', section);
  const params = query(form);
  $('button[type=submit]', form).disabled = true;
  $('.totals', section).textContent = t().running;
  try {
    const { body } = await api(`/quote-${mode}?${params}`);
    if (body.error) { $('.totals', section).textContent = body.message; return; }
    state.last[mode] = body;
    renderAnswer(mode);
    addPoint(body);
    applyBreaker(body.dependency);
  } finally {
    $('button[type=submit]', form).disabled = false;
  }
}

function renderAnswer(mode) {
  const section = $(`#mode-${mode}`);
  const a = state.last[mode];
  if (!a) return;
  const totals = $('.totals', section);
  totals.replaceChildren(
    el('span', { class: `badge ${a.status}`, 'data-status': a.status, text: t().status[a.status] }),
    el('span', { text: `${a.attempts} ${t().attempts}` }),
    el('span', { text: `${t().elapsed} ${fmt(a.elapsed_ms)} ms` }),
    el('span', { text: a.quote ? `${t().quote} ${fmt(a.quote.amount, 2)} ${a.quote.currency} (${t().source[a.quote.source]}${a.quote.source === 'fallback' ? ', ' + t().age(fmt(a.quote.age_s, 1)) : ''})` : `${t().quote} ${t().none}` }));
  const scale = Math.max(400, ...a.events.map(e => e.elapsed_ms || e.wait_ms || 0));
  const rows = a.events.map(e => {
    const ms = e.elapsed_ms ?? e.wait_ms;
    const label = t().ev[e.event] ? t().ev[e.event](e.attempt, e.reason) : e.event;
    const bar = el('div', { class: `bar ${e.event}`, title: ms != null ? `${ms} ms` : e.event });
    bar.style.width = ms != null ? `${Math.max(1, (100 * ms) / scale)}%` : '3px';
    return el('li', { 'data-event': e.event, 'data-reason': e.reason || '' },
      el('span', { text: ms != null ? `${label} · ${fmt(ms)} ms` : label, title: label }), bar);
  });
  $('.timeline', section).replaceChildren(...rows);
  $('.explanation', section).textContent = a.explanation ? a.explanation[state.lang] : '';
}

// ---------- breaker ----------
function applyBreaker(dep) {
  if (!dep) return;
  state.breaker = dep;
  state.breakerAt = performance.now();
  renderBreaker();
}

function renderBreaker() {
  const b = state.breaker;
  if (!b) return;
  const badge = $('#breaker-state');
  badge.className = `state ${b.circuit_status}`;
  badge.dataset.state = b.circuit_status;
  badge.textContent = t().state[b.circuit_status] || b.circuit_status;
  const left = b.circuit_status === 'open' ? Math.max(0, b.cooldown_left_ms - (performance.now() - state.breakerAt)) : 0;
  $('#breaker-cooldown').textContent = b.circuit_status === 'open' ? `${fmt(left / 1000, 1)} ${t().seconds}` : t().none;
  $('#breaker-failures').textContent = b.consecutive_failures;
  $('#breaker-shorts').textContent = b.short_circuit_count;
  $('#breaker-opens').textContent = b.open_events;
  const q = b.fallback_quote;
  $('#breaker-fallback').textContent = q ? `${fmt(q.amount, 2)} ${q.currency} · ${q.quote_id} · ${t().age(fmt(q.age_s, 1))}` : t().none;
}

setInterval(() => {
  renderBreaker();
  // The breaker turns half-open by itself when the cooldown ends: ask the lab then.
  const b = state.breaker;
  if (b && b.circuit_status === 'open' && b.cooldown_left_ms - (performance.now() - state.breakerAt) <= 0) {
    state.breaker = { ...b, cooldown_left_ms: 1e9 };  // one request, not one per tick
    refreshBreaker();
  }
}, 250);

async function refreshBreaker() { applyBreaker((await api('/dependency/state')).body); }

// ---------- counters, incidents ----------
async function refreshSummary() {
  state.summary = (await api('/diagnostics/summary')).body;
  renderCounters();
}

function renderCounters() {
  if (!state.summary) return;
  for (const mode of MODES) {
    const m = state.summary.modes[mode];
    const box = $(`#mode-${mode} .counters`);
    box.replaceChildren(...Object.entries(t().counters).map(([k, label]) =>
      el('div', { 'data-counter': k }, el('b', { text: m[k] }), label)));
  }
}

async function refreshIncidents() {
  state.incidents = (await api('/incidents?limit=10')).body.incidents;
  renderIncidents();
  for (const i of [...state.incidents].reverse()) addPoint(i);  // catches up after polling
}

function renderIncidents() {
  $('#incidents-body').replaceChildren(...state.incidents.map(i => el('tr', { 'data-request-id': i.request_id },
    el('td', { text: new Date(i.timestamp_utc).toLocaleTimeString(state.lang) }), el('td', { text: i.mode }),
    el('td', { text: i.scenario }), el('td', {}, el('span', { class: `badge ${i.status}`, text: t().status[i.status] })),
    el('td', { text: i.attempts }), el('td', { text: `${fmt(i.elapsed_ms)} ms` }),
    el('td', { class: 'mono', text: i.request_id }))));
}

// ---------- charts ----------
function makeChart(mode, section) {
  const canvas = $('.chart', section);
  canvas.parentElement.dataset.points = '0';
  if (typeof Chart === 'undefined') { canvas.replaceWith(el('p', { class: 'policy', text: t().chartMissing })); return; }
  const color = s => ({ completed: '#1b7f3b', degraded: '#a15c00', failed: '#b3261e' }[s] || '#555');
  state.charts[mode] = new Chart(canvas, {
    type: 'scatter',
    data: { datasets: [{ label: t().chartLabel, data: [], pointRadius: 3,
      pointBackgroundColor: ctx => color(ctx.raw && ctx.raw.status) }] },
    options: { locale: state.lang, animation: false, maintainAspectRatio: false, plugins: { legend: { display: false } },
      layout: { padding: { right: 12, top: 6 } },
      scales: {
        x: { type: 'linear', ticks: { maxTicksLimit: 6, callback: v => new Date(v).toLocaleTimeString(state.lang) } },
        y: { beginAtZero: true, suggestedMax: 1600, title: { display: true, text: 'ms' } } } },
  });
}

function addPoint(q) {
  if (!q || !q.request_id || state.seen.has(q.request_id) || !MODES.includes(q.mode)) return;
  state.seen.add(q.request_id);
  const box = $(`#mode-${q.mode} .chart-box`);
  box.dataset.points = String(Number(box.dataset.points) + 1);
  const chart = state.charts[q.mode];
  if (!chart) return;
  const data = chart.data.datasets[0].data;
  data.push({ x: new Date(q.timestamp_utc).getTime(), y: q.elapsed_ms, status: q.status });
  if (data.length > MAX_POINTS) data.shift();
  scheduleChartUpdate(q.mode);
}

// During a storm thousands of answers a second can arrive: redraw each chart at most
// once per frame, not once per answer.
const pendingCharts = new Set();
function scheduleChartUpdate(mode) {
  if (pendingCharts.size === 0) requestAnimationFrame(() => {
    // Both charts share one time axis, so side by side means at the same time.
    const all = MODES.flatMap(m => state.charts[m] ? state.charts[m].data.datasets[0].data : []);
    const min = Math.min(...all.map(p => p.x)), max = Math.max(...all.map(p => p.x));
    const pad = Math.max(1000, (max - min) * 0.05);
    for (const m of MODES) {
      const chart = state.charts[m];
      if (!chart) continue;
      chart.data.datasets[0].data.sort((a, b) => a.x - b.x);
      if (all.length) { chart.options.scales.x.min = min - pad; chart.options.scales.x.max = max + pad; }
      chart.update('none');
    }
    pendingCharts.clear();
  });
  pendingCharts.add(mode);
}

function clearCharts() {
  state.seen.clear();
  for (const mode of MODES) {
    $(`#mode-${mode} .chart-box`).dataset.points = '0';
    if (state.charts[mode]) { state.charts[mode].data.datasets[0].data = []; state.charts[mode].update('none'); }
  }
}

// ---------- storm experiment ----------
function renderStorm(status) {
  state.storm = status;
  $('#storm-start').disabled = !!status.running;
  $('#storm-progress').value = status.running && status.progress ? status.progress.fraction : (status.last_result ? 1 : 0);
  $('#storm-result').textContent = status.last_result && !status.running ? t().stormResult(status.last_result) : '';
}

// ---------- live updates ----------
let refreshQueued = false;
function queueRefresh() {  // at most one summary + incidents fetch per 300 ms, however busy
  if (refreshQueued) return;
  refreshQueued = true;
  setTimeout(async () => { refreshQueued = false; await Promise.all([refreshSummary(), refreshIncidents()]); }, 300);
}

function setLive(on) {
  state.live = on;
  const badge = $('#live');
  badge.className = on ? 'live on' : 'live';
  badge.textContent = on ? t().live : t().polling;
  if (on && state.pollTimer) { clearInterval(state.pollTimer); state.pollTimer = null; }
  if (!on && !state.pollTimer) state.pollTimer = setInterval(refreshAll, 2000);
}

// A refused stream (503: the lab has all the dashboards it can stream to) is closed for
// good by the browser: retry it with capped exponential backoff and full jitter, so a
// class of refused pages does not come back in lockstep.
let streamFailures = 0;
function connect() {
  const source = new EventSource(labUrl('/events'));
  source.onopen = () => { streamFailures = 0; setLive(true); };
  source.onerror = () => {
    setLive(false);  // a dropped stream reconnects by itself (retry: 2000); a refused one does not
    if (source.readyState !== EventSource.CLOSED) return;
    const capMs = Math.min(60000, 2000 * 2 ** streamFailures++);
    setTimeout(connect, 1000 + Math.random() * capMs);
  };
  source.addEventListener('quote', e => { const q = JSON.parse(e.data); addPoint(q); applyBreaker(q.dependency); queueRefresh(); });
  source.addEventListener('breaker', () => refreshBreaker());
  source.addEventListener('carrier_mode', e => { $('#carrier-mode').value = JSON.parse(e.data).mode; });
  source.addEventListener('reset', () => { clearCharts(); renderStorm({ running: false, last_result: null }); state.last = {}; for (const m of MODES) clearAnswer(m); refreshAll(); });
  source.addEventListener('resync', () => refreshAll());
  source.addEventListener('storm_progress', e => renderStorm({ ...(state.storm || {}), running: true, progress: JSON.parse(e.data) }));
  source.addEventListener('storm_result', e => renderStorm({ running: false, last_result: JSON.parse(e.data) }));
}

function clearAnswer(mode) {
  const section = $(`#mode-${mode}`);
  $('.totals', section).replaceChildren();
  $('.timeline', section).replaceChildren();
  $('.explanation', section).textContent = '';
}

async function refreshAll() {
  await Promise.all([refreshBreaker(), refreshSummary(), refreshIncidents(),
    api('/experiments/storm').then(r => renderStorm(r.body)),
    api('/carrier').then(r => { $('#carrier-mode').value = r.body.mode; })]);
}

function applyLanguage() {
  document.documentElement.lang = state.lang;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t()[node.dataset.i18n];
  for (const b of document.querySelectorAll('.lang button')) b.setAttribute('aria-pressed', String(b.dataset.lang === state.lang));
  for (const o of document.querySelectorAll('.carrier-mode-option')) o.textContent = t().carrierModeOption;
  const p = state.index.policies;
  for (const mode of MODES) {
    const section = $(`#mode-${mode}`);
    $('.mode-title', section).textContent = t()[mode];
    $('.policy', section).textContent = mode === 'legacy' ? t().policyLegacy(p.legacy) : t().policyResilient(p.resilient, p.breaker);
    renderDescription(mode);
    renderAnswer(mode);
    const chart = state.charts[mode];
    if (chart) { chart.options.locale = state.lang; chart.data.datasets[0].label = t().chartLabel; chart.update('none'); }
  }
  setLive(state.live);
  if (state.storm) renderStorm(state.storm);
  renderBreaker();
  renderCounters();
  renderIncidents();
}

async function main() {
  state.index = (await api('/')).body;
  buildPanels();
  applyLanguage();
  await checkAdmin();
  await refreshAll();
  connect();
}

main();
