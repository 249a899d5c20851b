// Every request the page makes goes through labUrl() and api() here, so that the lab's
// prefix (and a student lab's name, when the page has one) is added in one place; the
// course pages and the class view add it to their links with withLab(). Requests
// time out (a lab that restarts mid-request never leaves the page waiting) and report
// whether the lab is reachable; the live stream reopens with backoff and full jitter.

/// The lab's path prefix: "/04" when the page is served under it (a course host), else "".
export const BASE = typeof location !== 'undefined' && /^\/04(\/|$)/.test(location.pathname) ? '/04' : '';

/// A student's own lab (/?lab=ana), null for the teacher's: every request and link of this
/// page stays in that lab.
/// An empty `?lab=` is passed on too: the lab answers it with a clear 400.
export const PAGE_LAB = typeof location !== 'undefined' ? new URLSearchParams(location.search).get('lab') : null;

/// `path` ("/incidents?limit=10", prefix included or not) with `lab=NAME` appended for `lab`
/// (the page's own by default); `path` unchanged when there is none (null: the teacher's).
export function withLab(path, lab = PAGE_LAB) {
  if (lab == null) return path;
  return path + (path.includes('?') ? '&' : '?') + 'lab=' + encodeURIComponent(lab);
}

/// The lab's address for `path` ("/incidents?limit=10"), with the page's `lab` when it has one.
export const labUrl = path => BASE + withLab(path);

/// A student lab's owner: its name up to the first '-', in lower case (names are
/// case-insensitive): "ana", "Ana-paso3" and "ana-tail-2" share one key. Null for the teacher's.
export function labOwner(lab) {
  if (lab == null || lab === '') return null;
  return String(lab).toLowerCase().split('-')[0] || null;
}

// The lab key (lab_key) a student's lab was created with, kept per owner in this browser:
// the student sets it once (the page stores it from the answer that created the lab, or
// from the field a refusal shows) and every changing request of any of their labs sends it.
const KEY_PREFIX = 'quote-lab-key:';
const storage = () => (typeof localStorage !== 'undefined' ? localStorage : null);
export function labKey(lab = PAGE_LAB, store = storage()) {
  const owner = labOwner(lab);
  return owner && store ? store.getItem(KEY_PREFIX + owner) : null;
}
export function keepLabKey(key, lab = PAGE_LAB, store = storage()) {
  const owner = labOwner(lab);
  if (!owner || !store || typeof key !== 'string' || !key.trim()) return false;
  store.setItem(KEY_PREFIX + owner, key.trim());
  return true;
}
/// Whether this browser holds a key for any student lab: a student's browser.
export function holdsAnyLabKey(store = storage()) {
  if (!store) return false;
  for (let i = 0; i < store.length; i++) if (store.key(i)?.startsWith(KEY_PREFIX)) return true;
  return false;
}
/// Whether a page shows the class-wide actions, from the lab's X-Admin-Token (`status`:
/// "accepted", "required", or null when the lab sets no token; undefined before an answer):
/// to the holder of an accepted token, or, when the lab sets no token, to a browser that
/// holds no student's lab key (a student there could use them, but is not shown them).
export const mayAct = (status, studentBrowser) => status === 'accepted' || (status === null && !studentBrowser);

/// The header a changing request (reset, carrier mode, storm) of `lab` carries.
export const labKeyHeaders = (lab = PAGE_LAB, store = storage()) => {
  const key = labKey(lab, store);
  return key ? { 'X-Lab-Key': key } : {};
};
/// The lab refused a change for want of the lab's key (403 lab_key_required / wrong_lab_key).
export const refusedForKey = (status, body) => status === 403 && ['lab_key_required', 'wrong_lab_key'].includes(body?.error);

export const TIMEOUT_MS = 8000;       // an ordinary read: the lab answers in milliseconds
export const QUOTE_TIMEOUT_MS = 30000;  // a quote may queue behind a storm for seconds

/// Thrown by api() when no HTTP answer came: `kind` is "timeout" or "unreachable".
export class LabUnreachable extends Error {
  constructor(kind, seconds) { super(kind); this.kind = kind; this.seconds = seconds; }
}

const listeners = new Set();
let reachable = true;
/// `fn(reachable)` on every change of whether the lab answers.
export function onReachability(fn) { listeners.add(fn); }
function setReachable(on) {
  if (on === reachable) return;
  reachable = on;
  for (const fn of listeners) fn(on);
}
export const isReachable = () => reachable;

// When the lab answered (epoch ms): the first byte's arrival from Resource Timing, which a
// page busy with thousands of live events a second does not delay, else now.
function answeredAt(url, sentAt) {
  const entries = performance.getEntriesByName(new URL(url, location.href).href).filter(e => e.startTime >= sentAt - 1);
  if (performance.getEntriesByType('resource').length > 200) performance.clearResourceTimings();  // bounded
  const first = entries[0];
  return first && first.responseStart > 0 ? performance.timeOrigin + first.responseStart : Date.now();
}

/// One JSON request: {status, body, headers, answeredAt (epoch ms)}. Throws LabUnreachable
/// when the lab does not answer within `timeoutMs` or cannot be reached at all.
export async function api(path, { method = 'GET', headers = {}, timeoutMs = TIMEOUT_MS } = {}) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const url = labUrl(path);
  const sentAt = performance.now();
  try {
    const res = await fetch(url, { method, headers: { Accept: 'application/json', ...headers }, signal: abort.signal });
    const body = await res.json().catch(() => ({}));
    setReachable(true);
    // The answer that creates a student's lab carries its key, once: keep it.
    if (body && typeof body.lab_key === 'string') keepLabKey(body.lab_key);
    return { status: res.status, body, headers: res.headers, answeredAt: answeredAt(url, sentAt) };
  } catch (e) {
    setReachable(false);
    throw new LabUnreachable(abort.signal.aborted ? 'timeout' : 'unreachable', Math.round(timeoutMs / 1000));
  } finally {
    clearTimeout(timer);
  }
}

/// Full-jitter backoff (AWS architecture blog, "Exponential Backoff and Jitter"): a uniform
/// draw `u` in [0, 1) over [0, min(cap, base·2^failures)]; pure, so tests pass `u`.
export function streamRetryDelayMs(failures, u, baseMs = 1000, capMs = 10000) {
  return u * Math.min(capMs, baseMs * 2 ** failures);
}

/// The live stream (/events): `handlers` maps event types to functions; `onLive(bool)` says
/// whether it is open. After an error or a refusal (503) the page closes it and opens a new
/// one after streamRetryDelayMs(), so that a class of refused pages never comes back in
/// lockstep; a stream that stayed open a while starts the backoff over. When the lab
/// becomes reachable again (a request answered), the stream is retried soon. A stream
/// silent for QUIET_PROBE_MS is checked with /health: a lab that froze, or a network that
/// dropped without closing the connection, would otherwise look "live" for ever.
export const QUIET_PROBE_MS = 15000;
export function openStream(handlers, onLive) {
  let source = null, failures = 0, openedAt = 0, timer = null, heardAt = 0, probing = false;
  const schedule = delayMs => { clearTimeout(timer); timer = setTimeout(connect, delayMs); };
  function fail() {
    if (!source) return;
    source.close();  // the browser would retry every 2 s for ever, or never after a 503
    source = null;
    if (openedAt && Date.now() - openedAt > 10000) failures = 0;
    openedAt = 0;
    onLive(false);
    schedule(streamRetryDelayMs(failures++, Math.random()));
  }
  function connect() {
    timer = null;
    if (source) source.close();
    source = new EventSource(labUrl('/events'));
    source.onopen = () => { openedAt = heardAt = Date.now(); setReachable(true); onLive(true); };
    source.onerror = fail;
    for (const [type, fn] of Object.entries(handlers))
      source.addEventListener(type, e => { heardAt = Date.now(); fn(e); });
  }
  setInterval(() => {
    if (!openedAt || probing || Date.now() - heardAt < QUIET_PROBE_MS) return;
    probing = true;
    api('/health', { timeoutMs: 5000 }).then(() => { heardAt = Date.now(); }, fail).finally(() => { probing = false; });
  }, 2500);
  onReachability(on => { if (on && !source) { failures = 0; schedule(streamRetryDelayMs(0, Math.random())); } });
  connect();
}
