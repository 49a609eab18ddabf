// Every text comes from the product's tables (the same as the command line's), served as JSON per language.

let table = {};
let later = null;
export let language = 'en';

// Resolves once the later strings are in (the screens that word with them wait for it).
export function ready() { return later; }

export async function loadLanguage(lang) {
  language = lang === 'de' ? 'de' : 'en';
  const response = await fetch(`/strings/${language}.json`, { cache: 'no-store' });
  table = await response.json();
  document.documentElement.lang = language;
  // The wording of refused values comes once the page is up: no screen needs it to draw.
  // (A page that switched language meanwhile keeps the new one's.)
  const wanted = language;
  later = fetch(`/strings/${wanted}.later.json`, { cache: 'no-store' }).then((r) => r.json()).then((m) => { if (language === wanted) table = { ...table, ...m }; }, () => {});
}

// t('ui.list.count', {count: 3}) picks the .one or .other variant by count; {name} placeholders are filled.
export function t(key, facts = {}) {
  let chosen = key;
  if (facts.count !== undefined) {
    const variant = key + (Number(facts.count) === 1 ? '.one' : '.other');
    if (table[variant] !== undefined) chosen = variant;
  }
  const text = table[chosen] ?? key;
  return text.replace(/\{([A-Za-z0-9]+)\}/g, (whole, name) => (facts[name] !== undefined ? String(facts[name]) : whole));
}

export function has(key) { return table[key] !== undefined || table[key + '.other'] !== undefined; }

// An error from the agent worded as the command line words it (PassboxCLI's Wording.error): the message,
// then the hint, with the same adjustments of the facts.
export function errorText(error) {
  if (!error || !error.code) return t('ui.offline');
  const facts = { ...(error.facts || {}) };
  let key = 'error.' + error.code;
  if (facts.id) facts.id8 = facts.id.slice(0, 8);
  switch (error.code) {
    case 'mustWait': case 'attemptCounterDamaged': case 'rateLimited': facts.count = facts.minutes; break;
    case 'quickUnlockNotOffered': facts.reason = t(facts.reason || '', { days: facts.days || '', system: facts.system || '' }); break;
    case 'sharingRefused': facts.reason = t('sharing.problem.' + (facts.problem || 'malformed'), facts); break;
    case 'invitationLinkInvalid': facts.reason = t('sharing.link.' + (facts.problem || 'noLink'), facts); break;
    case 'invitationInvalid': facts.reason = t('invitation.' + (facts.reason || 'unknown')); break;
    case 'quickUnlockRefused': if (facts.triesLeft === '0') key += '.last'; else facts.count = facts.triesLeft; break;
    case 'otherSite': if (!facts.saved) facts.saved = t('fill.noWebsite'); break;
    case 'secretKeyInvalid': facts.detail = t('secretKey.' + (facts.problem || 'mistyped'), facts); break;
    case 'backupFolderInvalid': facts.reason = t('error.backupFolderInvalid.' + (facts.reason || 'missing')); break;
    // A refused value: worded from its reason, the reason it wraps as cause.
    case 'imageUnreadable': if (has('qr.' + facts.reason)) facts.message = t('qr.' + facts.reason, facts); break;
    case 'invalidValue': case 'invalidReference':
      if (has('invalid.' + facts.reason)) { key = 'invalid.' + facts.reason; facts.cause &&= t('invalid.' + facts.cause, facts); }
      break;
    default: break;
  }
  const message = t(key, facts);
  // The page's own hint where the command line's names a command (the web UI has a form for it).
  const hintKey = has('ui.' + key + '.hint') ? 'ui.' + key + '.hint' : key + '.hint';
  const hint = t(hintKey, facts);
  // A sentence starts with a capital, unless it starts with what the user typed (an address, an email).
  // Only facts the user typed keep their case (an address, an email, a server, a path; \x22 is a quote).
  const typedFirst = (template) => /^\x22?\{(address|email|server|path)\}/.test(template || '');
  const sentence = (text, template) => (typedFirst(template) ? text : text.charAt(0).toUpperCase() + text.slice(1)) + (/[.!?]$/.test(text) ? '' : '.');
  return hint && hint !== hintKey ? `${sentence(message, table[key])} ${sentence(hint, table[hintKey])}` : sentence(message, table[key]);
}

export function formatDate(ms) {
  if (!ms) return '';
  return new Intl.DateTimeFormat(language === 'de' ? 'de-DE' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(ms));
}

// How long ago (or until) a moment is, in the page's language: "2 hr. ago", "vor 3 Tagen", "yesterday".
export function relativeTime(ms) {
  const seconds = Math.round((ms - Date.now()) / 1000);
  const steps = [['year', 31536000], ['month', 2592000], ['week', 604800], ['day', 86400], ['hour', 3600], ['minute', 60]];
  const format = new Intl.RelativeTimeFormat(language, { numeric: 'auto', style: 'short' });
  for (let i = 0; i < steps.length; i++) {
    const [unit, size] = steps[i];
    if (Math.abs(seconds) < size) continue;
    // A rounded figure that reaches the next larger unit moves up to it: "1 hr.", not "60 min.".
    if (i > 0 && Math.abs(Math.round(seconds / size)) * size >= steps[i - 1][1]) return format.format(Math.round(seconds / steps[i - 1][1]), steps[i - 1][0]);
    return format.format(Math.round(seconds / size), unit);
  }
  return format.format(0, 'minute');
}

// Every element with data-t (text) or data-t-label / data-t-placeholder (attributes) gets its text.
export function translateTree(root) {
  for (const el of root.querySelectorAll('[data-t]')) el.textContent = t(el.dataset.t);
  for (const el of root.querySelectorAll('[data-t-label]')) el.setAttribute('aria-label', t(el.dataset.tLabel));
  for (const el of root.querySelectorAll('[data-t-placeholder]')) el.setAttribute('placeholder', t(el.dataset.tPlaceholder));
}
