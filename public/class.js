// The class view (GET /class for a browser): every student lab, in leaderboard order,
// refreshed every 2 s from the same route's JSON. Each name links to that student's page.
// The teacher's class-wide actions (reset every student lab, set every student lab's
// carrier mode) show only when the lab lets this viewer use them, as on the dashboard.
import { BASE, withLab } from './net.js';

const TEXT = {
  es: {
    title: 'La clase: un laboratorio por estudiante',
    head: ['#', 'Laboratorio', 'Breaker', 'Modo del proveedor', 'Solicitudes', 'Llamadas al proveedor por solicitud', 'p99', 'Última actividad'],
    empty: 'Todavía no hay laboratorios de estudiantes: abre /?lab=TU-NOMBRE o agrega ?lab=TU-NOMBRE a tus curl.',
    updated: 'actualizado', unreachable: 'laboratorio inalcanzable',
    states: { closed: 'cerrado', open: 'abierto', half_open: 'semiabierto' },
    reset: 'Reiniciar todos los laboratorios de estudiantes', mode: 'Modo del proveedor para toda la clase',
    apply: 'Aplicar a todos',
    confirmReset: n => `¿Reiniciar ${n === 1 ? 'el laboratorio' : `los ${n} laboratorios`} de estudiantes? (el tuyo no cambia)`,
    resetDone: n => `${n === 1 ? '1 laboratorio reiniciado' : `${n} laboratorios reiniciados`}`,
    modeDone: (n, m) => `${m} en ${n === 1 ? '1 laboratorio' : `${n} laboratorios`}`,
    tokenPrompt: 'Este lab tiene token del docente. Pégalo para reiniciar la clase o cambiar su modo del proveedor (o cancela para solo mirar):',
    adminNote: 'Sin el token del docente: las acciones para toda la clase quedan ocultas.',
  },
  en: {
    title: 'The class: one lab per student',
    head: ['#', 'Lab', 'Breaker', 'Carrier mode', 'Requests', 'Carrier calls per request', 'p99', 'Last activity'],
    empty: 'No student labs yet: open /?lab=YOUR-NAME or add ?lab=YOUR-NAME to your curl lines.',
    updated: 'updated', unreachable: 'lab unreachable',
    states: { closed: 'closed', open: 'open', half_open: 'half-open' },
    reset: 'Reset every student lab', mode: 'Carrier mode for the whole class', apply: 'Apply to all',
    confirmReset: n => `Reset ${n === 1 ? 'the student lab' : `the ${n} student labs`}? (yours is unchanged)`,
    resetDone: n => `${n === 1 ? '1 lab reset' : `${n} labs reset`}`,
    modeDone: (n, m) => `${m} in ${n === 1 ? '1 lab' : `${n} labs`}`,
    tokenPrompt: 'This lab has a teacher token. Paste it to reset the class or change its carrier mode (or cancel to just watch):',
    adminNote: 'Without the teacher token: the class-wide actions are hidden.',
  },
};
let lang = (localStorage.getItem('quote-lab-lang') || navigator.language || 'en').toLowerCase().startsWith('es') ? 'es' : 'en';
let last = null;
const $ = sel => document.querySelector(sel);
const fmt = (n, digits) => n == null ? '—'
  : new Intl.NumberFormat(lang === 'es' ? 'es-AR' : 'en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(n);
const ms = v => v == null ? '—' : v >= 1000 ? `${fmt(v / 1000, 2)} s` : `${fmt(v, 0)} ms`;

function cell(text, cls) {
  const td = document.createElement('td');
  if (cls) td.className = cls;
  td.append(text);
  return td;
}

// The teacher token, in the tab's storage under the dashboard's key: entered on either page,
// it serves both. Asked once per tab, and only when the lab says it wants one.
const TOKEN_KEY = 'quote-lab-admin-token';
const authHeaders = () => { const tok = sessionStorage.getItem(TOKEN_KEY); return tok ? { Authorization: `Bearer ${tok}` } : {}; };
let admin;  // X-Admin-Token of the last answer: null (no token set), 'accepted' or 'required'; undefined before one

function showActions() {
  const may = admin !== undefined && admin !== 'required';
  $('#class-actions').hidden = !may;
  $('#class-admin-note').hidden = admin !== 'required';
}

async function askTokenOnce() {
  if (admin !== 'required' || sessionStorage.getItem(TOKEN_KEY + '-asked')) return;
  sessionStorage.setItem(TOKEN_KEY + '-asked', '1');
  const tok = window.prompt(TEXT[lang].tokenPrompt);
  if (tok && tok.trim()) { sessionStorage.setItem(TOKEN_KEY, tok.trim()); await refresh(); }
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

function render() {
  const t = TEXT[lang];
  document.documentElement.lang = lang;
  $('#class-title').textContent = t.title;
  $('#class-reset').textContent = t.reset;
  $('#class-mode-label').textContent = t.mode;
  $('#class-mode-apply').textContent = t.apply;
  $('#class-admin-note').textContent = t.adminNote;
  showActions();
  $('#class-head').replaceChildren(...t.head.map(h => { const th = document.createElement('th'); th.textContent = h; return th; }));
  if (!last) return;
  $('#class-order').textContent = last.order[lang];
  const select = $('#class-mode');
  if (select.options.length === 0)
    for (const m of last.carrier_modes || []) select.append(new Option(m, m));
  $('#class-empty').textContent = t.empty;
  $('#class-empty').hidden = last.labs.length > 0;
  $('#class-rows').replaceChildren(...last.labs.map(lab => {
    const tr = document.createElement('tr');
    const link = document.createElement('a');
    link.href = withLab(`${BASE}/`, lab.name);
    link.textContent = lab.name;
    const state = document.createElement('span');
    state.className = `state ${lab.circuit_status}`;
    state.textContent = t.states[lab.circuit_status] || lab.circuit_status;
    tr.append(cell(String(lab.rank)), cell(link), cell(state), cell(lab.carrier_mode),
      cell(fmt(lab.requests, 0)), cell(fmt(lab.carrier_calls_per_request, 2)), cell(ms(lab.p99_ms)),
      cell(new Date(lab.last_activity_utc).toLocaleTimeString(lang === 'es' ? 'es-AR' : 'en-US')));
    return tr;
  }));
}

async function refresh() {
  try {
    const res = await fetch(`${BASE}/class`, { headers: { ...authHeaders(), Accept: 'application/json' } });
    admin = res.headers.get('X-Admin-Token');
    // A token the lab refuses is forgotten, so that the next load asks again.
    if (admin === 'required' && sessionStorage.getItem(TOKEN_KEY)) {
      sessionStorage.removeItem(TOKEN_KEY);
      sessionStorage.removeItem(TOKEN_KEY + '-asked');
    }
    last = await res.json();
    $('#class-status').textContent = `${TEXT[lang].updated} ${new Date().toLocaleTimeString(lang === 'es' ? 'es-AR' : 'en-US')}`;
  } catch {
    $('#class-status').textContent = TEXT[lang].unreachable;
  }
  render();
}

for (const b of document.querySelectorAll('[data-lang]'))
  b.addEventListener('click', () => { lang = b.dataset.lang; localStorage.setItem('quote-lab-lang', lang); render(); });
$('#class-reset').addEventListener('click', () => {
  const n = last ? last.labs.length : 0;
  if (window.confirm(TEXT[lang].confirmReset(n))) act('POST', '/class/reset', b => TEXT[lang].resetDone(b.count));
});
$('#class-mode-apply').addEventListener('click', () => {
  const mode = $('#class-mode').value;
  if (mode) act('PUT', `/class/carrier-mode?mode=${encodeURIComponent(mode)}`, b => TEXT[lang].modeDone(b.count, b.mode));
});
render();
refresh().then(askTokenOnce);
setInterval(refresh, 2000);
