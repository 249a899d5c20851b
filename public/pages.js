// The course's pages: /incidents, /diagnostics/summary, /metrics and /dependency/state
// for a browser. The lab answers a browser at those paths with pages.html; this script
// reads the very same URL as JSON (Accept: application/json, so the same data curl gets)
// and draws it as tables, in Spanish or English. A student lab's `?lab=NAME` in the page's
// URL is passed on to every fetch and every link (net.js withLab).
import { BASE as PREFIX, PAGE_LAB, keepLabKey, withLab } from './net.js';
import { TEXT as DASHBOARD_TEXT, pickLanguage } from './i18n.js';

const VIEW = location.pathname.slice(PREFIX.length).replace(/\/+$/, '') || '/';
const REFRESH_MS = 5000;

const TEXT = {
  es: {
    navDashboard: 'Panel', navIncidents: 'Incidentes', navDiagnostics: 'Diagnóstico', navMetrics: 'Métricas',
    navDependency: 'Dependencia', asJson: 'Los mismos datos en JSON:', updated: t => `Actualizado a las ${t}; se actualiza cada 5 s.`,
    unreachable: 'No se pudo contactar al laboratorio; se reintenta en 5 s.',
    titles: {
      '/incidents': 'Incidentes: los últimos flujos de cotización',
      '/diagnostics/summary': 'Diagnóstico: contadores y latencias por modo y escenario',
      '/metrics': 'Métricas: la telemetría del laboratorio',
      '/dependency/state': 'Dependencia: el disyuntor del proveedor',
    },
    intros: {
      '/incidents': 'Cada fila es una solicitud de cotización, la más reciente primero.',
      '/diagnostics/summary': 'Lo que pasó desde que se restableció el laboratorio, por política (legacy, resilient) y por escenario.',
      '/metrics': 'Las mismas series que Prometheus lee en /metrics-prometheus, en tablas.',
      '/dependency/state': 'Solo las solicitudes de la política resilient consultan este disyuntor; legacy no tiene disyuntor ni respaldo.',
    },
    show: 'Mostrar', last: n => `últimos ${n}`, count: n => n === 1 ? '1 flujo' : `${n} flujos`, empty: 'Todavía no hay datos.',
    col: {
      time: 'Hora', mode: 'Modo', scenario: 'Escenario', status: 'Estado', attempts: 'Intentos', retries: 'Reintentos',
      timeouts: 'Tiempos límite agotados', fallback: 'Respaldo', short: 'Rechazada', elapsed: 'Tiempo', request_id: 'request_id',
      requests: 'Solicitudes', successes: 'Completadas', degraded: 'Degradadas', failures: 'Fallidas', fallbacks: 'Respaldos',
      circuit_opens: 'Aperturas', short_circuits: 'Rechazos', attempts: 'Llamadas al proveedor', p50: 'p50', p95: 'p95', p99: 'p99', max: 'máx.',
      field: 'Campo', value: 'Valor', labels: 'Etiquetas', sum: 'Suma', mean: 'Media', bucket: '≤ (s)', countCol: 'Cantidad',
      policy: 'Política',
    },
    modes: { legacy: 'legacy', resilient: 'resilient' },
    all: 'todos los escenarios', yes: 'sí', no: 'no', none: '—',
    status: { completed: 'completada', degraded: 'degradada', failed: 'fallida' },
    state: { closed: 'cerrado', open: 'abierto', half_open: 'semiabierto' },
    policies: 'Políticas', breakerPolicy: 'Disyuntor', carrierMode: 'Modo del proveedor', carrier: 'Proveedor',
    fallbackQuote: 'Cotización de respaldo', stateFile: 'Archivo de estado', buckets: 'intervalos',
    backendAlone: 'Solo esta réplica: Redis no responde, así que esta réplica decide sola (disyuntor, límite de solicitudes y clase) hasta que vuelva.',
    prometheusText: 'el texto de Prometheus', types: { counter: 'contador', gauge: 'indicador', histogram: 'histograma' },
    fields: {
      name: 'Nombre', circuit_status: 'Estado del disyuntor', consecutive_failures: 'Fallos consecutivos',
      opened_until: 'Abierto hasta', cooldown_left_ms: 'Enfriamiento restante', open_events: 'Aperturas',
      short_circuit_count: 'Rechazos', last_outcome: 'Último resultado', last_latency_ms: 'Última latencia',
      state_file: 'Archivo de estado', state_file_set_aside: 'Archivo apartado (corrupto)', state_file_error: 'Error al guardar',
      quote_id: 'quote_id', amount: 'Monto', currency: 'Moneda', cached_at: 'Guardada', age_s: 'Antigüedad', customer_id: 'customer_id',
      items: 'items', seed: 'Cotización inicial (aún no hubo cotización en vivo)', priced_at: 'Cotizada', source: 'Origen',
      timeout_ms: 'Tiempo límite por intento', max_attempts: 'Intentos máximos', backoff_base_ms: 'Espera base entre reintentos', backoff_max_ms: 'Espera máxima entre reintentos',
      jitter: 'Variación aleatoria', jitter_min_ms: 'Variación aleatoria mínima', jitter_max_ms: 'Variación aleatoria máxima', circuit_breaker: 'Disyuntor',
      fallback: 'Respaldo', failure_threshold: 'Fallos que lo abren', open_duration_s: 'Tiempo abierto',
      calls_total: 'Llamadas recibidas', in_flight: 'En curso', peak_in_flight: 'Pico en curso', wasted_calls: 'Llamadas desperdiciadas',
      wasted_seconds: 'Tiempo desperdiciado', mode: 'Modo', refused_calls: 'Llamadas rechazadas', overloaded_calls: 'Llamadas con el proveedor saturado',
      bookings: 'Reservas', duplicate_bookings: 'Reservas duplicadas', idempotent_replays: 'Repeticiones idempotentes', deadline_dropped: 'Descartadas por plazo total',
      shed_calls: 'Llamadas descartadas (descarte de carga)', queued: 'En cola',
      retry_budget_ratio: 'Presupuesto de reintentos', retry_budget_min_per_s: 'Reintentos mínimos por segundo', deadline_ms: 'Plazo total', idempotency_key: 'Clave de idempotencia',
      state_backend: 'Almacenamiento del estado',
    },
    values: {
      none: 'ninguna', additive: 'sumada', full: 'completa', equal: 'mitad fija', decorrelated: 'decorrelacionada',
      success: 'éxito', timeout: 'tiempo límite agotado', connect_error: 'error de conexión', http_5xx: 'error del proveedor (5xx)',
      http_429: 'el proveedor pide esperar (429)', bad_response: 'respuesta inválida', short_circuit: 'rechazo',
      live: 'en vivo', fallback: 'de respaldo',
    },
    // The lab's Prometheus HELP lines are English: each family's meaning in Spanish.
    help: {
      quote_lab_quote_requests_total: 'Solicitudes de cotización respondidas, por política, escenario y estado final (completada: cotización en vivo; degradada: de respaldo; fallida: 503).',
      quote_lab_carrier_attempts_total: 'Intentos de llamar al proveedor, por política y resultado; short_circuit = el disyuntor rechazó la llamada y no salió del laboratorio.',
      quote_lab_retries_total: 'Llamadas al proveedor que reintentaban un intento fallido.',
      quote_lab_fallbacks_total: 'Solicitudes respondidas con la cotización de respaldo.',
      quote_lab_breaker_transitions_total: 'Cambios de estado del disyuntor, de un estado a otro.',
      quote_lab_http_requests_total: 'Solicitudes HTTP respondidas por el laboratorio, por ruta y código.',
      quote_lab_quote_duration_seconds: 'Tiempo que tardó el laboratorio en responder una cotización, reintentos y esperas incluidos, en segundos.',
      quote_lab_breaker_state: 'Estado del disyuntor de cada dependencia: 1 para el estado actual, 0 para los demás.',
      quote_lab_carrier_calls_total: 'Llamadas que recibió el proveedor simulado, por escenario (reintentos incluidos: compáralas con las solicitudes para ver la amplificación).',
      quote_lab_carrier_in_flight: 'Llamadas que el proveedor simulado atiende ahora mismo.',
      quote_lab_carrier_peak_in_flight: 'Máximo de llamadas que el proveedor simulado atendió a la vez desde el inicio o el último restablecimiento.',
      quote_lab_carrier_wasted_calls_total: 'Llamadas que el proveedor terminó cuando quien llamó ya se había rendido (tiempo límite agotado): trabajo desperdiciado.',
      quote_lab_carrier_wasted_seconds_total: 'Tiempo del proveedor, en segundos, gastado en llamadas cuyo llamador ya se había rendido.',
      quote_lab_carrier_shed_calls_total: 'Llamadas que un proveedor que descarta carga respondió con un 503 en vez de atenderlas, por motivo (queue_full, codel, priority, workers_busy).',
      quote_lab_carrier_queued_calls: 'Llamadas que esperan ahora en las colas de los proveedores que descartan carga, de todos los laboratorios.',
    },
  },
  en: {
    navDashboard: 'Dashboard', navIncidents: 'Incidents', navDiagnostics: 'Diagnostics', navMetrics: 'Metrics',
    navDependency: 'Dependency', asJson: 'The same data as JSON:', updated: t => `Updated at ${t}; refreshes every 5 s.`,
    unreachable: 'The lab could not be reached; trying again in 5 s.',
    titles: {
      '/incidents': 'Incidents: the latest quote flows',
      '/diagnostics/summary': 'Diagnostics: counters and latencies per mode and scenario',
      '/metrics': "Metrics: the lab's telemetry",
      '/dependency/state': "Dependency: the carrier's circuit breaker",
    },
    intros: {
      '/incidents': 'One row per quote request, newest first.',
      '/diagnostics/summary': 'What happened since the lab was last reset, per mode (legacy, resilient) and per scenario.',
      '/metrics': 'The series Prometheus reads at /metrics-prometheus, as tables.',
      '/dependency/state': 'Only resilient requests ask this breaker; legacy has no breaker and no fallback.',
    },
    show: 'Show', last: n => `last ${n}`, count: n => n === 1 ? '1 flow' : `${n} flows`, empty: 'No data yet.',
    col: {
      time: 'Time', mode: 'Mode', scenario: 'Scenario', status: 'Status', attempts: 'Attempts', retries: 'Retries',
      timeouts: 'Timeouts', fallback: 'Fallback', short: 'Short-circuited', elapsed: 'Elapsed', request_id: 'request_id',
      requests: 'Requests', successes: 'Completed', degraded: 'Degraded', failures: 'Failed', fallbacks: 'Fallbacks',
      circuit_opens: 'Opens', short_circuits: 'Short-circuits', attempts: 'Carrier calls', p50: 'p50', p95: 'p95', p99: 'p99', max: 'max',
      field: 'Field', value: 'Value', labels: 'Labels', sum: 'Sum', mean: 'Mean', bucket: '≤ (s)', countCol: 'Count',
      policy: 'Policy',
    },
    modes: { legacy: 'legacy', resilient: 'resilient' },
    all: 'all scenarios', yes: 'yes', no: 'no', none: '—',
    status: { completed: 'completed', degraded: 'degraded', failed: 'failed' },
    state: { closed: 'closed', open: 'open', half_open: 'half-open' },
    policies: 'Policies', breakerPolicy: 'Breaker', carrierMode: 'Carrier mode', carrier: 'Carrier',
    fallbackQuote: 'Fallback quote', stateFile: 'State file', buckets: 'buckets',
    backendAlone: 'This replica only: Redis is not answering, so this replica decides alone (breaker, rate limit and class) until it is back.',
    prometheusText: 'the Prometheus text', types: { counter: 'counter', gauge: 'gauge', histogram: 'histogram' },
    fields: {
      name: 'Name', circuit_status: 'Circuit status', consecutive_failures: 'Consecutive failures',
      opened_until: 'Open until', cooldown_left_ms: 'Cooldown left', open_events: 'Times opened',
      short_circuit_count: 'Short-circuits', last_outcome: 'Last outcome', last_latency_ms: 'Last latency',
      state_file: 'State file', state_file_set_aside: 'Set-aside file (corrupt)', state_file_error: 'Save error',
      quote_id: 'quote_id', amount: 'Amount', currency: 'Currency', cached_at: 'Cached at', age_s: 'Age', customer_id: 'customer_id',
      items: 'items', seed: 'Seed (no live quote yet)', priced_at: 'Priced at', source: 'Source',
      timeout_ms: 'Timeout per attempt', max_attempts: 'Max attempts', backoff_base_ms: 'Backoff base', backoff_max_ms: 'Backoff cap',
      jitter: 'Jitter', jitter_min_ms: 'Jitter min', jitter_max_ms: 'Jitter max', circuit_breaker: 'Circuit breaker',
      fallback: 'Fallback', failure_threshold: 'Failures that open it', open_duration_s: 'Open for',
      calls_total: 'Calls received', in_flight: 'In flight', peak_in_flight: 'Peak in flight', wasted_calls: 'Wasted calls',
      wasted_seconds: 'Wasted time', mode: 'Mode', refused_calls: 'Refused calls', overloaded_calls: 'Calls that found it overloaded',
      bookings: 'Bookings', duplicate_bookings: 'Duplicate bookings', idempotent_replays: 'Idempotent replays', deadline_dropped: 'Dropped past the deadline',
      shed_calls: 'Shed calls (load shedding)', queued: 'Queued',
      retry_budget_ratio: 'Retry budget ratio', retry_budget_min_per_s: 'Minimum retries per second', deadline_ms: 'Total deadline', idempotency_key: 'Idempotency key',
      state_backend: 'State backend',
    },
    values: {},
    help: {},
  },
};

const state = {
  lang: pickLanguage(location.search, localStorage.getItem('quote-lab-lang'), navigator.language),
  data: null,
  timer: null,
};
const t = () => TEXT[state.lang];
const $ = sel => document.querySelector(sel);

function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'text') node.textContent = v;
    else if (k === 'class') node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

// One number format for every page: the reader's locale, seconds above 1,000 ms.
const number = (n, digits = 0) => new Intl.NumberFormat(state.lang === 'es' ? 'es' : 'en',
  { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(n);
const ms = v => v == null ? t().none
  : v >= 1000 ? `${number(v / 1000, 2)} s` : `${number(v, Number.isInteger(v) || v >= 10 ? 0 : 2)} ms`;
const seconds = v => v == null ? t().none : ms(v * 1000);
const time = iso => iso ? new Date(iso).toLocaleTimeString(state.lang) : t().none;
const dateTime = iso => iso ? new Date(iso).toLocaleString(state.lang) : t().none;
const yesNo = b => b ? t().yes : t().no;

// How a field of the lab's JSON reads, by its name (units are in the names).
function fieldValue(key, v) {
  if (v == null) return t().none;
  if (typeof v === 'boolean') return yesNo(v);
  if (key === 'circuit_status') return t().state[v] || v;
  if (key.endsWith('_ms') && typeof v === 'number') return ms(v);
  if ((key.endsWith('_s') || key === 'wasted_seconds') && typeof v === 'number') return seconds(v);
  if (/(_at|_until)$/.test(key)) return dateTime(v);
  if (typeof v === 'number') return number(v, Number.isInteger(v) ? 0 : 2);
  // Names the lab gives things (the breaker's, a quote's id, a file) are code, not words.
  if (CODE_FIELDS.includes(key) || key.startsWith('state_file')) return el('code', { text: String(v) });
  return t().values[v] || String(v);
}
const CODE_FIELDS = ['name', 'quote_id', 'currency', 'idempotency_key', 'mode'];

function table(headers, rows, className = '') {
  return el('table', { class: className }, [
    el('thead', {}, [el('tr', {}, headers.map(h => el('th', { scope: 'col', text: h })))]),
    el('tbody', {}, rows.map(r => el('tr', {}, r.map(c => c instanceof Node ? el('td', {}, [c]) : el('td', { text: c }))))),
  ]);
}

// A two-column table of an object's plain fields (nested objects are left to the caller).
function fieldsTable(obj, skip = []) {
  const rows = Object.entries(obj).filter(([k, v]) => !skip.includes(k) && (v === null || typeof v !== 'object'))
    .map(([k, v]) => [t().fields[k] || k, fieldValue(k, v)]);
  return table([t().col.field, t().col.value], rows, 'fields');
}

const badge = (kind, text) => el('span', { class: `badge ${kind}`, text });
const section = (title, ...children) => el('section', {}, [el('h2', { text: title }), ...children]);

function renderIncidents(d) {
  const limit = d.limit;
  const choices = el('p', { class: 'choices' }, [t().show + ': ']);
  for (const n of [10, 50, 200]) {
    const url = new URL(location.href);
    url.searchParams.set('limit', n);
    choices.append(n === limit ? el('strong', { text: t().last(n) }) : el('a', { href: url.pathname + url.search, text: t().last(n) }), ' ');
  }
  const c = t().col;
  const rows = d.incidents.map(i => [time(i.timestamp_utc), t().modes[i.mode] || i.mode, i.scenario,
    badge(i.status, t().status[i.status] || i.status), number(i.attempts), number(i.retries), number(i.timeout_count),
    yesNo(i.fallback_used), yesNo(i.short_circuited), ms(i.elapsed_ms), el('code', { text: i.request_id })]);
  return [choices, el('p', { text: t().count(d.incidents.length) }),
    d.incidents.length ? table([c.time, c.mode, c.scenario, c.status, c.attempts, c.retries, c.timeouts, c.fallback, c.short,
      c.elapsed, c.request_id], rows, 'incidents') : el('p', { class: 'muted', text: t().empty })];
}

const COUNTERS = ['requests', 'successes', 'degraded', 'failures', 'attempts', 'retries', 'timeouts', 'fallbacks',
  'circuit_opens', 'short_circuits'];

function countersRow(label, s) {
  return [label, ...COUNTERS.map(k => number(s[k] ?? 0)),
    ...['p50', 'p95', 'p99', 'max'].map(p => ms(s.latency_ms ? s.latency_ms[p] : null))];
}

function policiesTable(policies) {
  const keys = Object.keys(policies.legacy || {});
  const rows = keys.map(k => [t().fields[k] || k, fieldValue(k, policies.legacy[k]), fieldValue(k, policies.resilient[k])]);
  return table([t().col.policy, t().modes.legacy, t().modes.resilient], rows, 'fields');
}

function breakerLine(dep) {
  return el('p', {}, [badge(`state ${dep.circuit_status}`, t().state[dep.circuit_status] || dep.circuit_status), ' ',
    `${t().fields.consecutive_failures}: ${number(dep.consecutive_failures)} · ${t().fields.cooldown_left_ms}: ${ms(dep.cooldown_left_ms)}`,
    ' · ', el('a', { href: withLab(PREFIX + '/dependency/state'), text: t().navDependency })]);
}

function renderDiagnostics(d) {
  const c = t().col;
  const headers = [c.scenario, ...COUNTERS.map(k => c[k]), c.p50, c.p95, c.p99, c.max];
  const out = [];
  for (const [mode, s] of Object.entries(d.modes)) {
    const rows = [countersRow(t().all, s), ...Object.entries(s.scenarios || {}).map(([name, x]) => countersRow(name, x))];
    out.push(section(t().modes[mode] || mode, table(headers, rows, 'counters')));
  }
  out.push(section(t().policies, policiesTable(d.policies),
    fieldsTable({ failure_threshold: d.policies.breaker.failure_threshold, open_duration_s: d.policies.breaker.open_duration_s })));
  out.push(section(t().breakerPolicy, breakerLine(d.dependency), el('p', { text: `${t().carrierMode}: ${d.carrier_mode}` })));
  return out;
}

// Prometheus labels are code (names and values as the lab exports them).
const labelText = labels => Object.keys(labels).length
  ? el('code', { text: Object.entries(labels).map(([k, v]) => `${k}="${v}"`).join(', ') }) : t().none;

function renderFamily(f) {
  const c = t().col;
  const head = el('p', { class: 'muted' }, [el('code', { text: f.name }), ` · ${t().types[f.type] || f.type} · ${t().help[f.name] || f.help}`]);
  if (f.type !== 'histogram')
    return section(f.name, head, table([c.labels, c.value], f.samples.map(s => [labelText(s.labels), fieldValue('', s.value)]), 'metric'));
  const rows = f.samples.map(s => {
    const buckets = el('details', {}, [el('summary', { text: t().buckets }),
      table([c.bucket, c.countCol], s.buckets.map(b => [String(b.le), number(b.count)]), 'buckets')]);
    return [labelText(s.labels), number(s.count), seconds(s.sum), s.count ? seconds(s.sum / s.count) : t().none, buckets];
  });
  return section(f.name, head, table([c.labels, c.countCol, c.sum, c.mean, t().buckets], rows, 'metric'));
}

function renderMetrics(d) {
  const raw = el('p', {}, [el('a', { href: withLab(PREFIX + '/metrics-prometheus'), text: t().prometheusText }),
    ' (', el('code', { text: '/metrics-prometheus' }), ')']);
  const out = [raw, section(t().breakerPolicy, breakerLine(d.dependency))];
  if (d.carrier) out.push(section(t().carrier, fieldsTable(d.carrier, ['calls_by_scenario']),
    table([t().col.scenario, t().fields.calls_total], Object.entries(d.carrier.calls_by_scenario || {}).map(([k, v]) => [k, number(v)]))));
  for (const f of d.metrics) out.push(renderFamily(f));
  return out;
}

function renderDependency(d) {
  const fields = ['name', 'circuit_status', 'consecutive_failures', 'opened_until', 'cooldown_left_ms', 'open_events',
    'short_circuit_count', 'last_outcome', 'last_latency_ms'];
  const breaker = Object.fromEntries(fields.filter(k => k in d).map(k => [k, d[k]]));
  const files = Object.fromEntries(Object.entries(d).filter(([k]) => k.startsWith('state_')));
  const rest = Object.fromEntries(Object.entries(d).filter(([k, v]) => !(k in breaker) && !(k in files) && v !== null && typeof v !== 'object'));
  const out = [el('p', {}, [badge(`state ${d.circuit_status}`, t().state[d.circuit_status] || d.circuit_status)])];
  if (d.state_backend?.kind === 'redis' && !d.state_backend.healthy) out.push(el('p', { class: 'backend-alone', text: t().backendAlone }));
  out.push(section(t().breakerPolicy, fieldsTable({ ...breaker, ...rest })));
  if (d.fallback_quote) out.push(section(t().fallbackQuote, fieldsTable(d.fallback_quote)));
  out.push(section(t().stateFile, fieldsTable(files)));
  return out;
}

const VIEWS = {
  '/incidents': renderIncidents,
  '/diagnostics/summary': renderDiagnostics,
  '/metrics': renderMetrics,
  '/dependency/state': renderDependency,
};

function draw() {
  const view = $('#view');
  view.replaceChildren();
  if (!state.data) return;
  view.append(...VIEWS[VIEW](state.data));
}

function showError(message) {
  const box = $('#error');
  box.hidden = !message;
  box.textContent = message || '';
}

async function load() {
  clearTimeout(state.timer);
  try {
    // The page's own URL (its query, ?lab= included) as JSON: exactly what curl gets. The
    // language asked for is the page's, so a 400's message comes in the reader's language.
    const res = await fetch(PREFIX + VIEW + location.search,
      { headers: { Accept: 'application/json', 'Accept-Language': state.lang }, cache: 'no-store' });
    const body = await res.json();
    // The answer that creates a student's lab carries its key, once: kept for the dashboard.
    if (typeof body.lab_key === 'string') keepLabKey(body.lab_key);
    if (!res.ok) {
      state.data = null;
      showError(`HTTP ${res.status} · ${body.error}: ${body.message}` + (body.allowed ? ` (${body.allowed.join(', ')})` : ''));
    } else {
      state.data = body;
      showError('');
    }
    $('#updated').textContent = t().updated(new Date().toLocaleTimeString(state.lang));
  } catch {
    showError(t().unreachable);
  }
  draw();
  state.timer = setTimeout(load, REFRESH_MS);
}

function applyLanguage() {
  document.documentElement.lang = state.lang;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t()[node.dataset.i18n];
  for (const b of document.querySelectorAll('.lang button')) b.setAttribute('aria-pressed', String(b.dataset.lang === state.lang));
  // A student's lab says so, in the words the dashboard uses ("Lab: ana").
  $('#lab-name').hidden = PAGE_LAB == null;
  if (PAGE_LAB != null) $('#lab-name').textContent = DASHBOARD_TEXT[state.lang].labName(PAGE_LAB);
  $('#title').textContent = t().titles[VIEW] || VIEW;
  $('#intro').textContent = t().intros[VIEW] || '';
  document.title = `quote lab · ${t().titles[VIEW] || VIEW}`;
  draw();
}

function init() {
  for (const a of document.querySelectorAll('nav a')) {
    a.href = withLab(PREFIX + a.dataset.path);
    if (a.dataset.path === VIEW) a.setAttribute('aria-current', 'page');
  }
  $('#curl').textContent = `curl '${location.origin}${PREFIX}${VIEW}${location.search}'`;
  for (const b of document.querySelectorAll('.lang button'))
    b.addEventListener('click', () => { state.lang = b.dataset.lang; localStorage.setItem('quote-lab-lang', state.lang); applyLanguage(); load(); });
  applyLanguage();
  if (!VIEWS[VIEW]) return showError(`no page for ${VIEW}`);
  load();
}

init();
