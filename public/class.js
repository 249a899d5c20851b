// The class view (GET /class for a browser): the class challenge's designs, best score first,
// then every student and every student lab, in GET /class's ranking (carrier calls per request
// among those with enough requests), refreshed every 2 s from the same route's JSON. Each name links to that student's page. A projector mode reads from
// the back of the room. The teacher's class-wide actions (restore every student lab, set
// every student lab's carrier mode) show only to the teacher.
import { BASE, holdsAnyLabKey, mayAct, withLab } from './net.js';
import { makeFormat, pickLanguage, scenarioTitle } from './i18n.js';

const TEXT = {
  es: {
    title: 'La clase: un laboratorio por estudiante', projector: 'Modo proyector',
    head: ['Puesto', 'Laboratorio', 'Disyuntor', 'Modo del proveedor', 'Solicitudes', 'Llamadas al proveedor por solicitud', 'Última actividad'],
    studentsHead: ['Puesto', 'Estudiante', 'Laboratorios', 'Solicitudes', 'Llamadas al proveedor por solicitud', 'Última actividad'],
    studentsTitle: 'Por estudiante (todos sus laboratorios)', labsTitle: 'Por laboratorio',
    order: n => `Clasificación: primero quien menos llamadas al proveedor hace por solicitud, entre quienes tienen al menos ${n} solicitudes (el proveedor es compartido: cada llamada que ahorras es capacidad para la clase). Los demás van al final, sin puesto.`,
    unranked: n => `menos de ${n} solicitudes: sin puesto`,
    empty: 'Todavía no hay laboratorios de estudiantes: abre /?lab=TU-NOMBRE o agrega lab=TU-NOMBRE a tus líneas de curl.',
    updated: 'actualizado', unreachable: 'laboratorio no disponible',
    states: { closed: 'cerrado', open: 'abierto', half_open: 'semiabierto' },
    reset: 'Restablecer todos los laboratorios de estudiantes', mode: 'Modo del proveedor para toda la clase',
    apply: 'Aplicar a todos',
    confirmReset: n => `¿Restablecer ${n === 1 ? 'el laboratorio' : `los ${n} laboratorios`} de estudiantes? (el tuyo no cambia)`,
    resetDone: n => `${n === 1 ? '1 laboratorio restablecido' : `${n} laboratorios restablecidos`}`,
    modeDone: (n, m) => `${m} en ${n === 1 ? '1 laboratorio' : `${n} laboratorios`}`,
    designsTitle: 'El reto: los diseños de la clase',
    designsHead: ['Puesto', 'Estudiante', 'Laboratorio', 'Nota', 'Llamadas al proveedor por cotización', 'p99 (ms)', 'Estrategias', 'Enviado'],
    designsOrder: 'Primero la nota más alta (0–100, sobre la batería fija en tiempo simulado), luego menos llamadas al proveedor por cotización, luego el p99 más bajo.',
    reference: 'Como referencia:',
    teacher: 'Soy docente: ingresar el token',
    tokenPrompt: 'Pega el token del docente para restablecer la clase o cambiar su modo del proveedor:',
    adminNote: 'Las acciones para toda la clase son del docente.',
    tokenRejected: 'El laboratorio no aceptó ese token del docente.',
  },
  en: {
    title: 'The class: one lab per student', projector: 'Projector mode',
    head: ['Place', 'Lab', 'Breaker', 'Carrier mode', 'Requests', 'Carrier calls per request', 'Last activity'],
    studentsHead: ['Place', 'Student', 'Labs', 'Requests', 'Carrier calls per request', 'Last activity'],
    studentsTitle: 'Per student (all their labs)', labsTitle: 'Per lab',
    order: n => `Ranking: fewest carrier calls per request first, among those with at least ${n} requests (the carrier is shared: every call you spare is capacity for the class). The others come last, without a place.`,
    unranked: n => `fewer than ${n} requests: no place`,
    empty: 'No student labs yet: open /?lab=YOUR-NAME or add lab=YOUR-NAME to your curl lines.',
    updated: 'updated', unreachable: 'lab unreachable',
    states: { closed: 'closed', open: 'open', half_open: 'half-open' },
    reset: 'Reset every student lab', mode: 'Carrier mode for the whole class', apply: 'Apply to all',
    confirmReset: n => `Reset ${n === 1 ? 'the student lab' : `the ${n} student labs`}? (yours is unchanged)`,
    resetDone: n => `${n === 1 ? '1 lab reset' : `${n} labs reset`}`,
    modeDone: (n, m) => `${m} in ${n === 1 ? '1 lab' : `${n} labs`}`,
    designsTitle: 'The challenge: the class\u2019s designs',
    designsHead: ['Place', 'Student', 'Lab', 'Score', 'Carrier calls per quote', 'p99 (ms)', 'Strategies', 'Posted'],
    designsOrder: 'Highest score first (0–100, over the fixed battery in simulated time), then fewer carrier calls per quote, then the lower p99.',
    reference: 'For reference:',
    teacher: "I'm the teacher: enter the token",
    tokenPrompt: 'Paste the teacher token to reset the class or change its carrier mode:',
    adminNote: 'The class-wide actions are the teacher\u2019s.',
    tokenRejected: 'The lab did not accept that teacher token.',
  },
};
const params = new URLSearchParams(location.search);
let scenarios = [];  // the scenarios of GET / (name, description {es, en}), for the carrier-mode choice
let lang = pickLanguage(location.search, localStorage.getItem('quote-lab-lang'), navigator.language);
let f = makeFormat(lang, lang === 'es' ? 'es-AR' : 'en-US');
let last = null;
let rejected = false;
const $ = sel => document.querySelector(sel);

function cell(content, cls) {
  const td = document.createElement('td');
  if (cls) td.className = cls;
  td.append(content);
  return td;
}

// The teacher token, in the tab's storage under the dashboard's key: entered on either page,
// it serves both. Asked only when the teacher says so (the button): the students who open
// this page are never asked for it.
const TOKEN_KEY = 'quote-lab-admin-token';
const authHeaders = () => { const tok = sessionStorage.getItem(TOKEN_KEY); return tok ? { Authorization: `Bearer ${tok}` } : {}; };
let admin;  // X-Admin-Token of the last answer: null (no token set), 'accepted' or 'required'; undefined before one

function showActions() {
  $('#class-actions').hidden = !mayAct(admin, holdsAnyLabKey());
  $('#class-admin-note').hidden = admin !== 'required';
  $('#class-teacher').hidden = admin !== 'required';
}

async function askToken() {
  const tok = window.prompt(TEXT[lang].tokenPrompt);
  if (!tok || !tok.trim()) return;
  sessionStorage.setItem(TOKEN_KEY, tok.trim());
  await refresh();
  rejected = admin === 'required';
  render();
}

// A class-wide action; its answer (or the lab's error message, in the page's language) is shown.
async function act(method, path, done) {
  const out = $('#class-action-result');
  try {
    const res = await fetch(`${BASE}${path}`, { method, headers: { ...authHeaders(), Accept: 'application/json', 'Accept-Language': lang } });
    const body = await res.json();
    out.textContent = res.ok ? done(body) : body.message;
  } catch {
    out.textContent = TEXT[lang].unreachable;
  }
  refresh();
}

function setProjector(on) {
  document.documentElement.classList.toggle('projector', on);
  $('#class-projector').setAttribute('aria-pressed', String(on));
  const url = new URL(location.href);
  if (on) url.searchParams.set('projector', '1'); else url.searchParams.delete('projector');
  history.replaceState(null, '', url);
}

function render() {
  const t = TEXT[lang];
  document.documentElement.lang = lang;
  $('#class-title').textContent = t.title;
  $('#class-projector').textContent = t.projector;
  $('#class-reset').textContent = t.reset;
  $('#class-mode-label').textContent = t.mode;
  $('#class-mode-apply').textContent = t.apply;
  $('#class-teacher').textContent = t.teacher;
  $('#class-admin-note').textContent = rejected ? t.tokenRejected : t.adminNote;
  const min = last?.min_requests ?? 5;
  $('#class-order').textContent = t.order(min);
  $('#class-students-title').textContent = t.studentsTitle;
  $('#class-designs-title').textContent = t.designsTitle;
  $('#class-labs-title').textContent = t.labsTitle;
  for (const b of document.querySelectorAll('[data-lang]')) b.setAttribute('aria-pressed', String(b.dataset.lang === lang));
  showActions();
  const heads = names => names.map(h => { const th = document.createElement('th'); th.textContent = h; return th; });
  $('#class-head').replaceChildren(...heads(t.head));
  $('#class-students-head').replaceChildren(...heads(t.studentsHead));
  $('#class-designs-head').replaceChildren(...heads(t.designsHead));
  if (!last) return;
  renderDesigns(t);
  // The JSON's order and places: the page ranks exactly as GET /class does.
  const placeCell = row => {
    const place = cell(row.place == null ? '—' : String(row.place), 'place');
    if (row.place == null) place.title = t.unranked(min);
    return place;
  };
  $('#class-students').replaceChildren(...(last.students || []).map(s => {
    const tr = document.createElement('tr');
    tr.dataset.student = s.name;
    tr.dataset.place = s.place == null ? '' : String(s.place);
    tr.append(placeCell(s), cell(s.name), cell(f.num(s.labs)), cell(f.num(s.requests)),
      cell(f.ratio(s.requests > 0 ? s.carrier_calls / s.requests : null)), cell(f.time(s.last_activity_utc)));
    return tr;
  }));
  const select = $('#class-mode');
  if (select.options.length === 0)
    for (const m of last.carrier_modes || []) select.append(new Option(m, m));
  for (const o of select.options) o.textContent = scenarioTitle(scenarios.find(s => s.name === o.value) || { name: o.value }, lang);
  $('#class-empty').textContent = t.empty;
  $('#class-empty').hidden = last.labs.length > 0;
  $('#class-rows').replaceChildren(...last.labs.map(lab => {
    const tr = document.createElement('tr');
    tr.dataset.lab = lab.name;
    tr.dataset.place = lab.place == null ? '' : String(lab.place);
    const link = document.createElement('a');
    link.href = withLab(`${BASE}/`, lab.name);
    link.textContent = lab.name;
    const state = document.createElement('span');
    state.className = `state ${lab.circuit_status}`;
    state.textContent = t.states[lab.circuit_status] || lab.circuit_status;
    tr.append(placeCell(lab), cell(link), cell(state), cell(lab.carrier_mode),
      cell(f.num(lab.requests)), cell(f.ratio(lab.requests > 0 ? lab.carrier_calls / lab.requests : null)),
      cell(f.time(lab.last_activity_utc)));
    return tr;
  }));
}

// The class challenge's designs, in GET /class's order and places.
function renderDesigns(t) {
  const designs = last.designs || [];
  // A score always with its one decimal (23,0 beside 42,3), as GET /class gives it.
  const score = v => Number(v).toLocaleString(lang === 'es' ? 'es-AR' : 'en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  $('#class-designs-section').hidden = designs.length === 0;
  // The baselines' names are code, as the policies are everywhere.
  const code = text => { const c = document.createElement('code'); c.textContent = text; return c; };
  const b = last.design_baselines;
  $('#class-designs-order').replaceChildren(t.designsOrder,
    ...(b ? [` ${t.reference} `, code('legacy'), ` ${score(b.legacy)}, `, code('resilient'), ` ${score(b.resilient)}.`] : []));
  $('#class-designs').replaceChildren(...designs.map(d => {
    const tr = document.createElement('tr');
    tr.dataset.design = d.lab;
    tr.dataset.place = String(d.place);
    const link = document.createElement('a');
    link.href = withLab(`${BASE}/experiments/scorecard`, d.lab);
    link.textContent = d.lab;
    const strategies = document.createElement('code');
    strategies.textContent = d.strategies.join(' → ');
    tr.append(cell(String(d.place), 'place'), cell(d.name), cell(link), cell(score(d.score), 'score'),
      cell(f.ratio(d.calls_per_quote)), cell(f.num(d.p99_ms, 0)), cell(strategies), cell(f.time(d.submitted_utc)));
    return tr;
  }));
}

async function refresh() {
  try {
    const res = await fetch(`${BASE}/class`, { headers: { ...authHeaders(), Accept: 'application/json' } });
    admin = res.headers.get('X-Admin-Token');
    // A token the lab refuses is forgotten, so that the button asks again.
    if (admin === 'required' && sessionStorage.getItem(TOKEN_KEY)) sessionStorage.removeItem(TOKEN_KEY);
    last = await res.json();
    $('#class-status').textContent = `${TEXT[lang].updated} ${f.time(Date.now())}`;
  } catch {
    $('#class-status').textContent = TEXT[lang].unreachable;
  }
  render();
}

for (const b of document.querySelectorAll('[data-lang]'))
  b.addEventListener('click', () => {
    lang = b.dataset.lang;
    f = makeFormat(lang, lang === 'es' ? 'es-AR' : 'en-US');
    localStorage.setItem('quote-lab-lang', lang);
    render();
  });
$('#class-projector').addEventListener('click', () => setProjector(!document.documentElement.classList.contains('projector')));
$('#class-teacher').addEventListener('click', askToken);
$('#class-reset').addEventListener('click', () => {
  const n = last ? last.labs.length : 0;
  if (window.confirm(TEXT[lang].confirmReset(n))) act('POST', '/class/reset', b => TEXT[lang].resetDone(b.count));
});
$('#class-mode-apply').addEventListener('click', () => {
  const mode = $('#class-mode').value;
  if (mode) act('PUT', `/class/carrier-mode?mode=${encodeURIComponent(mode)}`, b => TEXT[lang].modeDone(b.count, b.mode));
});
setProjector(params.get('projector') === '1');
render();
// The scenarios' titles for the carrier-mode choice, in both languages (the lab's index).
fetch(`${BASE}/`, { headers: { Accept: 'application/json' } })
  .then(res => res.json())
  .then(index => { scenarios = index.scenarios || []; if (last) render(); })
  .catch(() => {});
refresh();
setInterval(refresh, 2000);
