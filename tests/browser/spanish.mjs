// "One Spanish" on the pages: a Spanish page shows no English word and none of the terms
// the course glossary replaced (circuito, cortocircuito, resiliente…). The check walks the
// text a reader sees; names the lab gives things stay as they are: anything in <code>,
// tokens with "_", "/" or "=" (scenario, field and route names, parameters), and the policy
// names.

// English words a Spanish surface had or could slip into (whole words, any case).
const ENGLISH = `about after again all and answer answered any attempt attempts backoff breaker breakers
  calls carrier circuit class closed completed connecting cooldown count dashboard degraded deadline
  elapsed failed failure failures fallback fallbacks from half half-open incidents jitter lab labs
  last latency live mode none additive decorrelated open opened overloaded policy probe quote quotes
  request requests reset retries retry run running scenario seconds short short-circuit short-circuits
  show status storm storms the this time timed timeout timeouts waiting wasted when with without
  worker workers yes your`.split(/\s+/).filter(Boolean);
// Spanish words the glossary retired for one term each.
const RETIRED = ['circuito', 'cortocircuito', 'cortocircuitos', 'resiliente', 'resilientes', 'sonda', 'reiniciar',
  'reinicia', 'reiniciado', 'reiniciados', 'reiniciar', 'backoff', 'fallback', 'jitter', 'timeout', 'worker'];
const BANNED = new Set([...ENGLISH, ...RETIRED]);

/// The words of `text` that do not belong on a Spanish page, in order of appearance.
export function foreignWords(text) {
  const out = [];
  for (const token of text.match(/[\p{L}\p{N}_/=.-]+/gu) || []) {
    if (/[_/=]/.test(token) || /\d/.test(token)) continue;         // identifiers, routes, parameters, numbers
    for (const word of token.split(/[.-]+/).filter(Boolean).concat(token.includes('-') ? [token.replace(/\.+$/, '')] : []))
      if (BANNED.has(word.toLowerCase())) out.push(word);
  }
  return [...new Set(out)];
}

/// Every visible text of `page` outside <code>, one string per element that holds text of
/// its own (buttons, labels, cells, headings…), with the element's id or tag for a report.
export const visibleTexts = page => page.evaluate(() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.trim();
    const host = n.parentElement;
    if (!text || !host || host.closest('code, script, style, option, [hidden]')) continue;
    if (!host.getClientRects().length || getComputedStyle(host).visibility === 'hidden') continue;
    out.push({ where: host.id || host.closest('[id]')?.id || host.tagName, text });
  }
  return out;
});

/// What `page` shows that is not Spanish: [{where, words, text}] (empty when all is well).
export async function notSpanish(page) {
  const found = [];
  for (const { where, text } of await visibleTexts(page)) {
    const words = foreignWords(text);
    if (words.length) found.push({ where, words, text: text.slice(0, 120) });
  }
  return found;
}
