// quote lab dashboard: the breaker, the last legacy and resilient storms side by side (and
// the last storm of each other policy), per mode the lab's last answer (whoever asked for
// it) as a waterfall and the story over time, the overload strategies (what each admitted,
// refused or hedged, its live value, the last answer of one of them), and the latest
// requests.
// Live updates come from Server-Sent Events (/events); without them the page polls. Every
// request goes through net.js (timeouts, reachability, the lab's address).
import { TEXT, localeFor, makeFormat, pickLanguage, scenarioTitle } from './i18n.js';
import { api, isReachable, keepLabKey, labKeyHeaders, onReachability, openStream, PAGE_LAB, QUOTE_TIMEOUT_MS, refusedForKey } from './net.js';
import { LatestAnswers } from './latest.js';
import { MODES, Story } from './story.js';
import { StoryCharts } from './charts.js';
import { renderWaterfall, waterfallEndMs, waterfallRows } from './waterfall.js';
import { overloadMetricsPath, overloadPolicies, overloadRows, stillMoving } from './overload.js';
import { parseSweepField, stepSeconds, SWEEP_MAX_SENDING_S, SweepView, withSweep } from './sweep.js';
import { MetamapView } from './metamap.js';
import { el, figure, renderBreakerView, renderCountersView, renderIncidentsView, renderOverloadView, renderStormCardsView } from './views.js';

const MAX_SEEN = 2000;      // request ids remembered to draw each answer once
const POLL_EVERY_S = 2;     // without the live stream

const params = new URLSearchParams(location.search);
const state = {
  lang: pickLanguage(location.search, localStorage.getItem('quote-lab-lang'), navigator.language),
  index: null, carrierMode: null, breaker: null, breakerAt: 0, summary: null, incidents: [],
  storms: {}, stormStatus: null, seen: new Set(), live: false, active: false,
  // The overload panel: its policies (from the index), the lab's last reading of their
  // metric families, whether an answer of theirs came since, whether their values still move.
  overload: [], overloadMetrics: null, overloadActive: false, overloadMoving: false,
  projector: params.get('projector') === '1', admin: true,
};
const story = new Story();
let sweeps = null;  // the goodput sweeps' chart and tables (sweep.js), once the page is built
let metamap = null;  // the metastability map (metamap.js), once the page is built
const latest = new LatestAnswers();
const latestOverload = new LatestAnswers();  // one slot, 'overload': the last answer of any overload policy
let charts = null;
let fmt = null;
const t = () => TEXT[state.lang];
const f = () => fmt;
const $ = (sel, root = document) => root.querySelector(sel);
// Form fields left empty (the "carrier mode" scenario) are not sent at all.
const query = form => new URLSearchParams([...new FormData(form)].filter(([, v]) => v !== ''));

function setLanguage(lang) {
  state.lang = lang;
  fmt = makeFormat(lang, localeFor(lang, navigator.languages || [navigator.language]));
}
setLanguage(state.lang);

// The teacher token (--admin-token), asked once per tab and sent on every request: the
// lab needs it only on routes that change it for everyone.
const TOKEN_KEY = 'quote-lab-admin-token';
const authHeaders = () => { const tok = sessionStorage.getItem(TOKEN_KEY); return tok ? { Authorization: `Bearer ${tok}` } : {}; };
// Every request of a student's lab carries its key (a quote moves the lab's breaker, so it
// needs it like a change; reads ignore it). The lab's messages (a refusal's) come in the
// page's language, not only the browser's.
const call = (path, options = {}) => api(path, { ...options,
  headers: { 'Accept-Language': state.lang, ...authHeaders(), ...labKeyHeaders() } });

// A change (a quote, reset, carrier mode, storm). When the student's lab refuses it for want
// of its key, the page shows the lab's message and a field for the key, and repeats the
// change once the key is saved.
let retryChange = null;
async function change(path, options) {
  const res = await call(path, options);
  if (refusedForKey(res.status, res.body)) {
    $('#lab-key-message').textContent = res.body.message;
    $('#lab-key-form').hidden = false;
    retryChange = () => change(path, options);
  } else if (res.status < 400) {
    $('#lab-key-form').hidden = true;
  }
  return res;
}

// Every answer says whether the lab wants the teacher token (X-Admin-Token: "required",
// or "accepted" for the one we sent; absent when the lab has none): ask for it once.
async function checkAdmin() {
  const probe = () => call('/carrier').then(r => r.headers.get('X-Admin-Token') || 'none');
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
  $('#admin-token-enter').hidden = state.admin;
}

// The teacher who dismissed the prompt (or mistyped the token) enters it from the note.
function askTokenAgain() {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(TOKEN_KEY + '-asked');
  checkAdmin();
}

const renderBreaker = () => renderBreakerView(state.breaker, state.breakerAt, t(), fmt);
const renderCounters = () => state.summary && renderCountersView(state.summary, t(), fmt);
const renderIncidents = () => renderIncidentsView(state.incidents, t(), fmt);
const renderStormCards = () =>
  renderStormCardsView(state.storms, state.stormStatus?.running ? state.stormStatus.options?.mode : null, t(), fmt);

// ---------- panels ----------
function scenarioOptions(select, withCarrierMode) {
  if (withCarrierMode) select.append(el('option', { value: '', class: 'carrier-mode-option' }));
  for (const s of state.index.scenarios)
    select.append(el('option', { value: s.name, class: 'scenario-option', text: scenarioTitle(s, state.lang) }));
}

function buildPanels() {
  const tpl = $('#mode-template');
  const boxes = {};
  for (const mode of MODES) {
    const section = $(`#mode-${mode}`);
    section.append(tpl.content.cloneNode(true));
    $('.mode-title', section).id = `${mode}-title`;
    const select = $('select[name=scenario]', section);
    select.id = `${mode}-scenario`;
    scenarioOptions(select, true);
    select.value = '';  // Run follows the carrier mode until a scenario is picked here
    select.addEventListener('change', () => renderDescription(mode));
    for (const input of section.querySelectorAll('input')) input.id = `${mode}-${input.name}`;
    $('form', section).addEventListener('submit', ev => { ev.preventDefault(); runQuote(mode); });
    boxes[mode] = { traffic: $('canvas.traffic', section), latency: $('canvas.latency', section) };
  }
  if (typeof Chart !== 'undefined') charts = new StoryCharts(boxes, f, t);
  else for (const c of document.querySelectorAll('canvas.chart')) c.replaceWith(el('p', { class: 'note', text: t().chartMissing }));

  const modeSelect = $('#carrier-mode');
  scenarioOptions(modeSelect, false);
  modeSelect.addEventListener('change', async () => {
    const { status } = await change(`/carrier/mode?mode=${encodeURIComponent(modeSelect.value)}`, { method: 'PUT' }).catch(() => ({}));
    if (status === 200) setCarrierMode(modeSelect.value, performance.now());
    else modeSelect.value = state.carrierMode;  // refused: the select shows the lab's mode again
  });
  // Every policy of the lab can be stormed: the course's two first (in the page), then the
  // named ones in the policies file's order ("breaker" is the course breaker, not a policy).
  const stormMode = $('#storm-mode');
  for (const name of Object.keys(state.index.policies || {}))
    if (name !== 'breaker' && !MODES.includes(name)) stormMode.append(el('option', { value: name, text: name }));
  overrideFields($('#storm-override-fields'), 'storm', state.index.policy_overrides);
  const stormScenario = $('#storm-scenario');
  scenarioOptions(stormScenario, true);
  stormScenario.value = 'provider_down';
  $('#storm-form').addEventListener('submit', startStorm);
  $('#storm-load').addEventListener('change', stormLoadField);
  sweeps = new SweepView($('#sweep'), t, f);
  overrideFields($('#metamap-override-fields'), 'metamap', state.index.policy_overrides);
  metamap = new MetamapView($('#metamap'), { api, w: t, f, index: state.index, headers: () => labKeyHeaders() });
  $('#reset').addEventListener('click', async () => { await change('/reset-lab', { method: 'POST' }).catch(() => {}); await refreshAll(); });
  $('#lab-key-form').addEventListener('submit', ev => {
    ev.preventDefault();
    if (!keepLabKey($('#lab-key-input').value)) return;
    $('#lab-key-input').value = '';
    $('#lab-key-form').hidden = true;
    const again = retryChange;
    retryChange = null;
    if (again) again().then(() => refreshAll()).catch(() => {});
  });
  $('#projector').addEventListener('click', () => setProjector(!state.projector));
  $('#admin-token-enter').addEventListener('click', askTokenAgain);
  for (const b of document.querySelectorAll('.lang button'))
    b.addEventListener('click', () => { setLanguage(b.dataset.lang); localStorage.setItem('quote-lab-lang', state.lang); applyLanguage(); });
  window.addEventListener('resize', scaleCharts);
}

// `knownAt` (performance.now()): when the lab said so. A read sent before the last change
// was heard of (a refresh crossing the change's event) must not put the old mode back.
let carrierModeAt = 0;
function setCarrierMode(mode, knownAt = performance.now()) {
  if (!mode || knownAt < carrierModeAt) return;
  carrierModeAt = knownAt;
  state.carrierMode = mode;
  $('#carrier-mode').value = mode;
  for (const o of document.querySelectorAll('.carrier-mode-option')) o.textContent = t().carrierModeOption(mode);
  for (const m of MODES) renderDescription(m);
}

function renderDescription(mode) {
  const section = $(`#mode-${mode}`);
  const name = $('select[name=scenario]', section).value || state.carrierMode;
  const s = state.index.scenarios.find(x => x.name === name);
  $('.scenario-description', section).textContent = s ? s.description[state.lang] : '';
}

// ---------- projector ----------
function setProjector(on) {
  state.projector = on;
  document.documentElement.classList.toggle('projector', on);
  $('#projector').setAttribute('aria-pressed', String(on));
  const url = new URL(location.href);
  if (on) url.searchParams.set('projector', '1'); else url.searchParams.delete('projector');
  history.replaceState(null, '', url);
  scaleCharts();
}

// Chart text follows the page's type size (projector mode scales it with the screen).
function scaleCharts() {
  if (!charts) return;
  const rootPx = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  charts.setScale(Math.round(rootPx * (state.projector ? 0.85 : 0.75)));
  charts.draw(story, Date.now());
}

// ---------- one quote ----------
async function runQuote(mode) {
  const section = $(`#mode-${mode}`);
  const form = $('form', section);
  const totals = $('.totals', section);
  $('button[type=submit]', form).disabled = true;
  totals.replaceChildren(el('span', { class: 'running', text: t().running }));
  const started = performance.now();
  try {
    const { status, body } = await change(`/quote-${mode}?${query(form)}`, { timeoutMs: QUOTE_TIMEOUT_MS });
    if (refusedForKey(status, body)) { totals.replaceChildren(); return; }
    if (body.error) { totals.replaceChildren(el('span', { class: 'error', text: body.message })); return; }
    latest.offer(body, performance.now(), { own: true, clientMs: performance.now() - started });
    renderAnswers();
    addAnswer(body);
  } catch (e) {
    const text = e.kind === 'timeout' ? t().timeoutMsg(e.seconds) : t().unreachableMsg;
    totals.replaceChildren(el('span', { class: 'error', 'data-error': e.kind || 'error', text }));
    if (!e.kind) throw e;
  } finally {
    $('button[type=submit]', form).disabled = false;
  }
}

const rowLabel = r => {
  const reason = r.reason ? (t().reason[r.reason] || r.reason) : '';
  return (t().ev[r.kind] || (() => r.kind))(r.attempt, reason, r, fmt);
};

// Each mode's waterfall: the lab's latest answer (latest.js), said whose it is.
function renderAnswers() {
  const shown = latest.shown;
  const rows = Object.fromEntries(MODES.filter(m => shown[m]).map(m => [m, waterfallRows(shown[m].answer, shown[m].clientMs)]));
  const endMs = Math.max(400, ...Object.values(rows).map(waterfallEndMs));  // one axis for both modes
  for (const mode of MODES) {
    const section = $(`#mode-${mode}`);
    const last = shown[mode];
    if (!last) { clearAnswer(mode); continue; }
    const a = last.answer;
    const inLab = a.elapsed_ms + (a.queue_ms ?? 0);
    const at = fmt.time(a.timestamp_utc);
    const origin = $('.answer-origin', section);
    origin.dataset.requestId = a.request_id;
    origin.dataset.own = String(last.own);
    origin.textContent = (last.own ? t().answerOwn(at) : t().answerOther(at)) + (a.events ? '' : ` · ${t().answerSummary}`);
    $('.totals', section).replaceChildren(...[
      el('span', { class: `badge key-number ${a.status}`, 'data-status': a.status, text: t().status[a.status] }),
      figure('attempts', fmt.num(a.attempts), fmt.word(a.attempts, 'attempt')),
      figure('server', fmt.ms(inLab), t().serverTime),
      last.clientMs != null && figure('client', fmt.ms(last.clientMs), t().clientTime)].filter(Boolean));
    const q = a.quote;
    $('.quote-line', section).textContent = !('quote' in a) ? ''
      : q ? `${t().quote} ${fmt.num(q.amount, 2)} ${q.currency} (${q.seed ? t().seed : t().source[q.source]}${q.source === 'fallback' ? ', ' + t().age(fmt.num(q.age_s, 1)) : ''})`
      : `${t().quote} ${t().none}`;
    renderWaterfall($('.waterfall', section), rows[mode], endMs, rowLabel, fmt);
    $('.explanation', section).textContent = a.explanation ? a.explanation[state.lang] : '';
  }
}

function clearAnswer(mode) {
  const section = $(`#mode-${mode}`);
  for (const sel of ['.totals', '.waterfall']) $(sel, section).replaceChildren();
  for (const sel of ['.explanation', '.quote-line', '.answer-origin']) $(sel, section).textContent = '';
}

// ---------- overload strategies ----------
const isOverload = mode => state.overload.some(p => p.name === mode);
const renderOverload = () =>
  renderOverloadView(overloadRows(state.overload, state.summary?.modes, state.overloadMetrics), t(), fmt, state.lang);

// The last answer of an overload policy, on an axis of its own.
function renderOverloadAnswer() {
  const box = $('.overload-answer');
  const last = latestOverload.shown.overload;
  const origin = $('.answer-origin', box);
  if (!last) {
    $('.waterfall', box).replaceChildren();
    origin.textContent = $('.explanation', box).textContent = '';
    return;
  }
  const a = last.answer;
  const rows = waterfallRows(a);
  origin.dataset.requestId = a.request_id;
  origin.dataset.policy = a.policy;
  origin.textContent = `${t().overloadAnswerOf(a.policy, fmt.time(a.timestamp_utc))} · ${t().status[a.status] || a.status}`;
  renderWaterfall($('.waterfall', box), rows, Math.max(100, waterfallEndMs(rows)), rowLabel, fmt);
  $('.explanation', box).textContent = a.explanation ? a.explanation[state.lang] : '';
}

// An answer of an overload policy from the stream: the panel reads the lab's counts on the
// next second, and the answer may become the one drawn (at most one a second, as above).
function offerOverload(q) {
  if (!q?.events || !isOverload(q.mode)) return;
  state.overloadActive = true;
  if (latestOverload.offer({ ...q, policy: q.mode, mode: 'overload' }, performance.now()).length) renderOverloadAnswer();
}

// The panel's metric families (a few KB: GET /metrics?family=…), for the page's lab.
async function refreshOverload() {
  if (!state.overload.length) return;
  const before = resets;
  const { body } = await call(overloadMetricsPath(state.overload));
  if (before !== resets) return;  // read before a reset the page heard of: the next read counts
  state.overloadMetrics = body;
  state.overloadMoving = stillMoving(overloadRows(state.overload, state.summary?.modes, body));
  renderOverload();
}

// Every answer, from any client: once into the story and the breaker. One the lab finished
// before the page started counting (an incident read at load) is drawn at its own time.
function addAnswer(q) {
  if (!q || !q.request_id || state.seen.has(q.request_id) || !MODES.includes(q.mode)) return;
  state.seen.add(q.request_id);
  if (state.seen.size > MAX_SEEN) state.seen.delete(state.seen.values().next().value);  // oldest first
  const ms = q.elapsed_ms + (q.queue_ms ?? 0);
  const at = Date.parse(q.timestamp_utc);
  if (story.isPast(at)) story.past(q.mode, ms, at); else story.sample(q.mode, ms);
  state.active = true;
  applyBreaker(q.dependency);
}

// An answer for the waterfalls (the live stream's full answers; incidents, without their
// steps, only when the stream is not there to bring them).
function offerAnswer(q) {
  if (!q || !MODES.includes(q.mode)) return;
  if (latest.offer(q, performance.now()).length) renderAnswers();
}

// ---------- breaker ----------
function applyBreaker(dep) {
  if (!dep || !dep.circuit_status) return;
  state.breaker = dep;
  state.breakerAt = performance.now();
  story.breaker(dep.circuit_status, Date.now());
  // A storm brings thousands of answers a second: draw the breaker once per frame.
  if (!breakerFrame) breakerFrame = requestAnimationFrame(() => { breakerFrame = 0; renderBreaker(); });
}
let breakerFrame = 0;

setInterval(() => {
  if (latest.due(performance.now()).length) renderAnswers();
  if (latestOverload.due(performance.now()).length) renderOverloadAnswer();
  renderBreaker();
  // The breaker turns half-open by itself when the cooldown ends: ask the lab then.
  const b = state.breaker;
  if (b && b.circuit_status === 'open' && b.cooldown_left_ms - (performance.now() - state.breakerAt) <= 0) {
    state.breaker = { ...b, cooldown_left_ms: 1e9 };  // one request, not one per tick
    refreshBreaker();
  }
}, 250);

// Failures of background reads show on the badge (net.js), not as errors here.
const quietly = promise => promise.catch(e => { if (!e.kind) throw e; });
const refreshBreaker = () => quietly(call('/dependency/state').then(r => applyBreaker(r.body)));

// ---------- counters, incidents ----------
// Counter reads sent before the page heard of a reset may count what the reset cleared.
let resets = 0;
async function refreshSummary() {
  const before = resets;
  const { body, answeredAt } = await call('/diagnostics/summary');
  state.summary = body;
  if (before !== resets) story.owed = true;  // the next second reads again
  else if (story.counters(body.modes, answeredAt)) drawStory();
  renderCounters();
  renderOverload();
}

async function refreshIncidents() {
  state.incidents = (await call('/incidents?limit=10')).body.incidents || [];
  renderIncidents();
  for (const i of [...state.incidents].reverse()) addAnswer(i);  // catches up after polling
  if (!state.live) for (const m of MODES) offerAnswer(state.incidents.find(i => i.mode === m));
}

// ---------- the story over time ----------
function drawStory() {
  if (!charts) return;
  charts.draw(story, Date.now());
  for (const mode of MODES) {
    const box = $(`#mode-${mode} .traffic-box`);
    box.dataset.points = String(story.points[mode].length);
    box.dataset.requests = String(story.totals[mode]);
  }
}

// About once a second: the lab's counters when something happened (an answer, a storm),
// else a flat second without asking the lab. Without the live stream the page's polling
// reads them every 2 s instead (a class of refused pages costs the lab no more than that).
let ticking = false;
async function storyTick() {
  if (ticking || !state.live) return;
  ticking = true;
  try {
    const storm = state.stormStatus?.running;
    // The overload panel reads its families when one of its policies answered, is stormed
    // (or a storm of unknown policy runs), or its live values have not settled yet.
    const overload = state.overloadActive || state.overloadMoving
      || (storm && (!state.stormStatus.options?.mode || isOverload(state.stormStatus.options.mode)));
    const busy = state.active || storm || story.owed || overload;
    state.active = false;
    state.overloadActive = false;
    if (busy) {
      const [read] = await Promise.all([quietly(refreshSummary().then(() => true)), overload && quietly(refreshOverload())]);
      if (!read) story.owed = true;  // the lab did not answer: its counters are still owed
    } else if (story.idle(Date.now())) drawStory();
  } finally { ticking = false; }
}

// ---------- storm experiment ----------
// A form's optional overrides (the storm's, the map's), one field per row of the lab's override table (GET /,
// `policy_overrides`): a choice is a select, a number an input with the table's range; an
// empty field keeps the policy's own value (query() leaves it out).
function overrideFields(box, prefix, overrides = []) {
  const fields = overrides.map(o => {
    const id = `${prefix}-override-${o.name}`;
    const input = o.kind === 'choice'
      ? el('select', { name: o.name, id }, el('option', { value: '', text: '—' }), ...o.choices.map(c => el('option', { value: c, text: c })))
      : el('input', { name: o.name, id, type: 'number', min: o.min, max: o.max, step: o.kind === 'integer' ? 1 : 0.01 });
    return el('label', {}, el('span', { 'data-override': o.name }), ' ', input);
  });
  box.replaceChildren(...fields);
  overrideLabels();
}

// Each field's label in the page's language: what it changes, and a number's range.
function overrideLabels() {
  for (const o of state.index?.policy_overrides || []) {
    for (const label of document.querySelectorAll(`[data-override="${o.name}"]`))
      label.textContent = o.kind === 'choice' ? o.description[state.lang] : `${o.description[state.lang]} (${o.min}–${o.max})`;
  }
}

// Clients, arrivals per second or a sweep of them: the lab refuses two at once, so only the
// chosen one is enabled (a disabled field is not part of the form's query). A sweep's
// duration is each step's, as many seconds as its steps fit in the lab's minute.
function stormLoadField() {
  const load = $('#storm-load').value;
  for (const id of ['clients', 'rate', 'sweep']) {
    $(`#storm-${id}-field`).hidden = id !== load;
    $(`#storm-${id}`).disabled = id !== load;
  }
  const label = $('#storm-duration-label');
  label.dataset.i18n = load === 'sweep' ? 'sweepStepS' : 'durationS';
  label.textContent = t()[label.dataset.i18n];
  if (load === 'sweep') {
    const duration = $('#storm-duration');
    const values = parseSweepField($('#storm-sweep').value).rates?.length ?? 6;
    duration.value = stepSeconds(values, Math.min(Number(duration.value) || 5, 5));
  }
}

async function startStorm(ev) {
  ev.preventDefault();
  const params = query(ev.target);
  if (!params.has('scenario')) params.set('scenario', state.carrierMode);  // the storm names its scenario
  const msg = $('#storm-message');
  msg.textContent = '';
  if (params.has('sweep')) {
    // The field's values as its reader writes them ("10,5" on a Spanish page), checked here
    // so the message names the form's fields; the lab takes them comma-separated.
    const sweep = parseSweepField(params.get('sweep'));
    const duration = Number(params.get('duration_s'));
    if (sweep.error) { msg.textContent = sweep.error === 'count' ? t().sweepCount(sweep.got) : t().sweepBadValue(sweep.got); return; }
    if (sweep.rates.length * duration > SWEEP_MAX_SENDING_S) {
      msg.textContent = t().sweepTooLong(sweep.rates.length, duration, SWEEP_MAX_SENDING_S);
      return;
    }
    params.set('sweep', sweep.rates.join(','));
  }
  try {
    const sentAt = performance.now();
    const { status, body } = await change(`/experiments/storm?${params}`, { method: 'POST' });
    if (status === 409) msg.textContent = t().stormRunning;
    else if (refusedForKey(status, body)) msg.textContent = '';
    else if (status >= 400) msg.textContent = body.message;
    else renderStorm(body, sentAt);
  } catch (e) { msg.textContent = t().unreachableMsg; }
}

// `sentAt` (performance.now()): when the read that brought `status` was sent. A read sent
// before the storm's result was heard may queue behind the storm and arrive after it: its
// "running" would bring a finished storm back (Start disabled, "running…" for good).
let stormEndedAt = -Infinity;
function renderStorm(status, sentAt = performance.now()) {
  if (status.running && sentAt < stormEndedAt) return;
  if (!status.running) stormEndedAt = Math.max(stormEndedAt, sentAt);
  state.stormStatus = status;
  if (status.last_result) state.storms[status.last_result.mode] = status.last_result;
  // A lone storm's status has no `sweep`: no curve is being swept.
  sweeps?.show(status.sweeps, status.running ? status.sweep : null);
  $('#storm-start').disabled = !!status.running;
  $('#storm-progress').value = status.running && status.progress ? status.progress.fraction : (status.last_result ? 1 : 0);
  renderStormCards();
}

// ---------- live updates ----------
let incidentsQueued = false;
function queueIncidents() {  // at most one incidents fetch per 300 ms, however busy
  if (incidentsQueued) return;
  incidentsQueued = true;
  setTimeout(() => { incidentsQueued = false; quietly(refreshIncidents()); }, 300);
}

function renderBadge() {
  const badge = $('#live');
  const s = !isReachable() ? 'unreachable' : state.live ? 'live' : 'polling';
  badge.dataset.state = s;
  badge.className = `live ${s}`;
  badge.textContent = t()[s];
}

function onReset(e) {
  resets++;
  story.reset(Date.parse(JSON.parse(e?.data || '{}').at) || Date.now());
  state.storms = {};
  latest.clear();
  latestOverload.clear();
  state.overloadMetrics = null;
  state.seen.clear();
  for (const m of MODES) clearAnswer(m);
  renderOverloadAnswer();
  renderOverload();
  renderStorm({ running: false, last_result: null });
  drawStory();
  quietly(refreshAll());
}

let stormAsked = false;
function connect() {
  openStream({
    quote: e => { const q = JSON.parse(e.data); addAnswer(q); offerAnswer(q); offerOverload(q); queueIncidents(); },
    breaker: () => refreshBreaker(),
    carrier_mode: e => setCarrierMode(JSON.parse(e.data).mode, performance.now()),
    reset: onReset,
    resync: () => quietly(refreshAll()),
    storm_progress: e => {
      const known = state.stormStatus?.running && state.stormStatus.options;
      const progress = JSON.parse(e.data);
      // A sweep's steps say which step they are; a lone storm's progress ends any sweep shown as running.
      const sweep = progress.sweep_step ? state.stormStatus?.sweep : null;
      renderStorm({ ...(state.stormStatus || {}), running: true, last_result: null, progress, sweep });
      // Started elsewhere: ask once which mode it storms (the answer may queue behind it).
      if (!known && !stormAsked) {
        stormAsked = true;
        readStorm().finally(() => { stormAsked = false; });
      }
    },
    storm_sweep: e => {
      const sweep = JSON.parse(e.data);
      // Kept in the status, so that the next progress event carries the new point on.
      const status = state.stormStatus || {};
      state.stormStatus = { ...status, running: true, sweep, sweeps: withSweep(status.sweeps, sweep) };
      sweeps?.show(state.stormStatus.sweeps, sweep);
    },
    storm_result: e => {
      // Its last answers may not all have come through the stream: read the counters once more.
      state.active = true;
      renderStorm({ ...(state.stormStatus || {}), running: false, last_result: JSON.parse(e.data) });
    },
  }, on => {
    const was = state.live;
    state.live = on;
    renderBadge();
    if (on && !was) quietly(refreshAll());  // catch up on what happened while the stream was down
  });
}

function readCarrierMode() {
  const sentAt = performance.now();
  return quietly(call('/carrier').then(r => setCarrierMode(r.body.mode, sentAt)));
}

function readStorm() {
  const sentAt = performance.now();
  return quietly(call('/experiments/storm').then(r => renderStorm(r.body, sentAt)));
}

let refreshing = null;
function refreshAll() {
  refreshing ??= Promise.all([refreshBreaker(), quietly(refreshSummary()), quietly(refreshIncidents()),
    readStorm(), quietly(refreshOverload()),
    readCarrierMode()]).finally(() => { refreshing = null; });
  return refreshing;
}

function applyLanguage() {
  document.documentElement.lang = state.lang;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t()[node.dataset.i18n];
  overrideLabels();
  for (const b of document.querySelectorAll('.lang button')) b.setAttribute('aria-pressed', String(b.dataset.lang === state.lang));
  // A student's page says whose lab it is (a student who lost ?lab= would be in the teacher's).
  $('#lab-name').hidden = PAGE_LAB == null;
  if (PAGE_LAB != null) {
    $('#lab-name').textContent = t().labName(PAGE_LAB);
    document.title = `${t().labName(PAGE_LAB)} · quote lab`;
    // The lab answers ?lab= with that lab's requests only: the title says so.
    $('#incidents-title').textContent = t().incidentsOf(PAGE_LAB);
  }
  const p = state.index.policies;
  for (const mode of MODES) {
    const section = $(`#mode-${mode}`);
    $('.mode-title', section).textContent = t()[mode];
    $('.policy', section).textContent = mode === 'legacy' ? t().policyLegacy(p.legacy, fmt) : t().policyResilient(p.resilient, p.breaker, fmt);
    $('.shading', section).textContent = mode === 'resilient' ? t().shading : '';
    $('canvas.traffic', section)?.setAttribute('aria-label', `${t()[mode]}: ${t().chartTraffic}`);
    $('canvas.latency', section)?.setAttribute('aria-label', `${t()[mode]}: ${t().chartLatency}`);
  }
  for (const o of document.querySelectorAll('.scenario-option'))
    o.textContent = scenarioTitle(state.index.scenarios.find(s => s.name === o.value) || { name: o.value }, state.lang);
  setCarrierMode(state.carrierMode, carrierModeAt);  // new words, same mode
  renderAnswers();
  renderOverload();
  renderOverloadAnswer();
  renderBadge();
  renderStormCards();
  sweeps?.render();
  metamap?.render();
  renderBreaker();
  renderCounters();
  renderIncidents();
  if (charts) charts.draw(story, Date.now());
}

async function main() {
  // The index may come late (a lab starting up): keep asking, the badge says why.
  for (;;) {
    try { state.index = (await call('/')).body; break; } catch { renderBadge(); await new Promise(r => setTimeout(r, 2000)); }
  }
  state.carrierMode = state.index.carrier_mode;
  state.overload = overloadPolicies(state.index);
  $('#overload').hidden = !state.overload.length;  // a policies file without any
  buildPanels();
  setProjector(state.projector);
  applyLanguage();
  await quietly(checkAdmin());
  await refreshAll();
  connect();
  onReachability(() => renderBadge());
  let ticks = 0;
  setInterval(() => {
    storyTick();
    if (!state.live && ++ticks % POLL_EVERY_S === 0) refreshAll();
  }, 1000);
}

main();
