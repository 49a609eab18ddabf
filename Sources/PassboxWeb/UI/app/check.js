// Security Check: the score ring, the tiles, Fix These First, every finding with its advice, dismiss and the
// fix where one exists, and the breach check's opt-in with what it sends.
import { call } from './api.js';
import { t, formatDate } from './i18n.js';
import { h, icon, button, clear, toast, dialog, emptyState, siteHost } from './dom.js';
import { state, report, openItem, editItem, refreshList, findItem, refreshNotices } from './app.js';

export async function loadCheck() {
  // New breaches the agent found (SEC-14) make the kept report stale; asking is seeing them, so the notice goes.
  const alerted = !!(state.status && state.status.breachAlerts);
  if (!state.check || alerted) state.check = (await call('check', { runBreachCheck: false })).body;
  if (alerted) refreshNotices().catch(() => {});
  return state.check;
}

// The advice as the tables word it, without the sentence that names a command-line command.
export function findingAdvice(finding) {
  const text = t(`check.kind.${finding.kind}.advice`, { ...finding.details, item: finding.title });
  const sentences = text.split(/(?<=\.)\s+/).filter((s) => !/passbox /.test(s));
  if (sentences.length) return sentences.join(' ');
  const cut = text.search(/:\s*passbox /);
  return cut >= 0 ? text.slice(0, cut) + '.' : text;
}

// The fix for a finding: https for an http address, else the editor; none for a passkey the site offers (it is
// made at the site, through the extension).
export function fixFinding(finding, after) {
  if (finding.kind === 'passkey-available') return null;
  if (finding.kind === 'unsecured-website') {
    return button([icon('lock'), t('ui.check.fixHTTPS')], async () => {
      try {
        const fixed = (await call('fix-https', { item: finding.itemID })).body;
        toast(t('ui.check.fixed', { count: fixed.count }));
        await after();
      } catch (e) { report(e); }
    }, 'primary');
  }
  return button([icon('pencil'), t('ui.item.edit')], () => editItem(finding.itemID));
}

// The findings whose fix is a new password at the site: a link to its change-password page (SEC-12), the
// address every browser knows (/.well-known/change-password, which the site sends on to its own page).
const changedAtTheSite = ['breached-password', 'breached-website', 'weak', 'reused', 'similar', 'old'];

// Two-factor codes and passkeys are turned on at the site: a link to its own instructions, when the directory
// names an https page.
const turnedOnAtTheSite = ['missing-2fa', 'passkey-available'];

function siteLink(finding) {
  const help = finding.details && finding.details.documentation;
  if (turnedOnAtTheSite.includes(finding.kind)) {
    if (!help || !/^https:\/\//.test(help)) return null;
    return h('a', { class: 'changelink', href: help, target: '_blank', rel: 'noopener noreferrer' },
      icon('external-link'), ' ', t('ui.check.siteHelp', { site: finding.details.site || '' }));
  }
  if (!changedAtTheSite.includes(finding.kind)) return null;
  const item = findItem(finding.itemID);
  const host = item && siteHost(item);
  if (!host) return null;
  return h('a', { class: 'changelink', href: `https://${host}/.well-known/change-password`, target: '_blank', rel: 'noopener noreferrer' },
    icon('external-link'), ' ', t('ui.check.changeAt', { host }));
}

function scoreRing(score) {
  const svgNS = 'http://www.w3.org/2000/svg';
  const r = 48;
  const length = 2 * Math.PI * r;
  const svg = document.createElementNS(svgNS, 'svg');
  svg.setAttribute('viewBox', '0 0 112 112');
  svg.setAttribute('class', 'scorering');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', t('ui.check.score', { score }));
  for (const cls of ['track', 'left']) {
    const c = document.createElementNS(svgNS, 'circle');
    c.setAttribute('cx', '56'); c.setAttribute('cy', '56'); c.setAttribute('r', String(r)); c.setAttribute('class', cls);
    if (cls === 'left') { c.setAttribute('stroke-dasharray', String(length)); c.setAttribute('stroke-dashoffset', String(length * (1 - score / 100))); }
    svg.append(c);
  }
  const text = document.createElementNS(svgNS, 'text');
  text.setAttribute('x', '56'); text.setAttribute('y', '66'); text.setAttribute('text-anchor', 'middle');
  text.textContent = String(score);
  svg.append(text);
  return svg;
}

// The breach check run from the page (SEC-4, SEC-5, SEC-17). The page is the client the command line is: the
// vault's prefixes, padded here with random ones to a multiple of 100 and shuffled, are asked of the range
// service through the agent (breach-ranges, off its vault queue: the page's policy lets it reach its own origin
// only) ten at a time, so the bar moves; then the answers of the real ones go to `check`. It runs on while the
// person goes elsewhere in the page; Security Check, when shown again, shows the bar where it got to.
let running = null;

function randomBelow(n) {
  const limit = Math.floor(0x100000000 / n) * n;
  const word = new Uint32Array(1);
  do { crypto.getRandomValues(word); } while (word[0] >= limit);
  return word[0] % n;
}

export function paddedPrefixes(real) {
  const all = new Set(real);
  const total = Math.max(100, Math.ceil(real.length / 100) * 100);
  const bytes = new Uint8Array(3);
  while (all.size < total) {
    crypto.getRandomValues(bytes);
    all.add([...bytes].map((b) => b.toString(16).padStart(2, '0')).join('').slice(0, 5).toUpperCase());
  }
  const list = [...all];
  for (let i = list.length - 1; i > 0; i--) { const j = randomBelow(i + 1); [list[i], list[j]] = [list[j], list[i]]; }
  return list;
}

function showProgress(section, rerun) {
  section.querySelector('#breach-progress')?.remove();
  const bar = h('div', { id: 'breach-progress', class: 'progressline' },
    h('progress', { max: String(running.total || 1), value: String(running.done), 'aria-label': t('ui.check.breachProgressLabel') }),
    h('p', { class: 'hint', 'aria-live': 'polite' }, running.total ? t('ui.check.breachProgress', { done: running.done, total: running.total }) : t('ui.check.breachAsking')));
  section.append(bar);
  running.section = section;
  if (rerun) running.rerun = rerun;
  section.querySelector('#breach-run')?.setAttribute('disabled', '');
}

async function runBreachCheck(section, rerun) {
  if (running) return;
  running = { done: 0, total: 0, section, rerun };
  showProgress(section, rerun);
  const moved = () => { if (running.section.isConnected) showProgress(running.section); };
  try {
    const real = (await call('breach-prefixes')).body.prefixes;
    const wanted = new Set(real);
    const all = paddedPrefixes(real);
    running.total = all.length;
    moved();
    const ranges = {};
    for (let i = 0; i < all.length; i += 10) {
      const part = all.slice(i, i + 10);
      const answers = (await call('breach-ranges', { prefixes: part })).body.ranges;
      for (const p of part) if (wanted.has(p)) ranges[p] = answers[p];
      running.done = Math.min(all.length, i + part.length);
      moved();
    }
    const checked = (await call('check', { runBreachCheck: true, ranges })).body;
    // Security Check may have been shown again meanwhile: the section and redraw of the one on screen now.
    const shown = running;
    running = null;
    const found = checked.breachedPasswordsFound || 0;
    toast(found ? t('ui.check.breachFound', { count: found }) : t('ui.check.noBreaches'));
    state.check = null;
    if (state.view === 'check' && shown.section.isConnected) await shown.rerun();
    else await refreshList();
  } catch (e) {
    const shown = running;
    running = null;
    shown.section.querySelector('#breach-progress')?.remove();
    shown.section.querySelector('#breach-run')?.removeAttribute('disabled');
    report(e);
  }
}

async function dismiss(finding, pane) {
  try {
    await call('dismiss', { item: finding.itemID, kind: finding.kind, dismissed: !finding.dismissed });
    state.check = null;
    await showCheck(clear(pane));
  } catch (e) { report(e); }
}

export async function showCheck(pane) {
  state.check = null;
  const check = await loadCheck();
  const rerun = async () => { state.check = null; await refreshList(); await showCheck(clear(pane)); };
  pane.append(h('div', { class: 'row' }, h('h1', { class: 'grow' }, t('ui.check.title')), button([icon('refresh-cw'), t('ui.check.again')], rerun)));
  pane.append(h('div', { class: 'score' }, scoreRing(check.score),
    h('div', {}, h('h2', {}, t('check.rating.' + check.rating)), h('p', { class: 'muted' }, t('check.secure', { secure: check.secureLogins, logins: check.logins })))));
  // The tiles open their lists (SEC): the logins each counts, below the tiles.
  const tileList = h('div', { id: 'tile-list', 'aria-live': 'polite' });
  const risky = ['breached-password', 'breached-website'];
  const inTile = {
    atRisk: (f) => f.kinds.some((k) => risky.includes(k)), reused: (f) => f.kinds.includes('reused'), weak: (f) => f.kinds.includes('weak'),
    other: (f) => !f.kinds.some((k) => [...risky, 'reused', 'weak'].includes(k)),
  };
  const openTile = (k) => {
    const logins = (check.notSecure || []).filter(inTile[k]);
    clear(tileList).append(h('h2', {}, `${t('ui.check.tile.' + k)} (${logins.length})`), h('ul', { class: 'findinglist' }, ...logins.map((f) => row(f))));
  };
  pane.append(h('div', { class: 'tiles', id: 'check-tiles' }, ...['atRisk', 'reused', 'weak', 'other', 'secure'].map((k) => k === 'secure' || !(check.tiles[k] > 0)
    ? h('div', { class: 'tile', 'data-tile': k }, h('strong', {}, String(check.tiles[k] ?? 0)), t('ui.check.tile.' + k))
    : h('button', { type: 'button', class: 'tile tilelink', 'data-tile': k, 'aria-controls': 'tile-list', onclick: () => openTile(k) }, h('strong', {}, String(check.tiles[k])), t('ui.check.tile.' + k)))), tileList);
  // The breach alert (SEC-9): once a breach check ran, how many logins it found, or the green all-clear.
  if (check.breachCheckEnabled && check.lastBreachCheck) {
    const breached = new Set(check.findings.filter((f) => risky.includes(f.kind) && !f.dismissed).map((f) => f.itemID)).size;
    pane.append(h('p', { class: 'alertcard ' + (breached ? 'bad' : 'good'), role: 'status', id: 'breach-alert' },
      icon(breached ? 'triangle-alert' : 'shield-check'), ' ', breached ? t('ui.check.breachedLogins', { count: breached }) : t('ui.check.noBreaches')));
  }
  // What the score lost, kind by kind (the same figures as passbox check).
  const lost = Object.entries(check.deductions).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
  if (lost.length) {
    pane.append(h('details', { id: 'check-deductions' }, h('summary', {}, t('ui.check.deductions')),
      h('ul', {}, ...lost.map(([k, v]) => h('li', {}, `−${v} ${t(`check.kind.${k}.title`)}`)))));
  }
  const row = (f) => h('li', { class: 'finding' },
    icon('triangle-alert'), h('span', { class: 'grow' }, h('strong', {}, f.title), h('br'), h('span', { class: 'hint' }, f.kinds.map((k) => t(`check.kind.${k}.title`)).join(' · '))),
    h('span', { class: 'chip' }, t('ui.check.points', { points: f.points })), button(t('ui.check.open', { title: f.title }), () => openItem(f.itemID)));
  if (check.fixFirst.length) pane.append(h('h2', {}, t('ui.check.fixFirst')), h('ul', { class: 'findinglist' }, ...check.fixFirst.map(row)));
  // Every login that is not secure, with what keeps it from secure: what the tiles count, one at a time.
  const notSecure = check.notSecure || [];
  if (notSecure.length) {
    pane.append(h('details', { id: 'check-not-secure' }, h('summary', {}, t('ui.check.notSecure', { count: notSecure.length, logins: check.logins })),
      h('ul', { class: 'findinglist' }, ...notSecure.map(row))));
  }
  const kinds = [...new Set(check.findings.map((f) => f.kind))];
  if (!kinds.length) pane.append(emptyState('shield-check', t('ui.check.nothing')));
  for (const kind of kinds) {
    const findings = check.findings.filter((f) => f.kind === kind);
    pane.append(h('h2', {}, `${t(`check.kind.${kind}.title`)} (${findings.length})`));
    // Every http address at once, after saying how many logins change (SEC).
    const open = findings.filter((f) => !f.dismissed).length;
    if (kind === 'unsecured-website' && open > 1) {
      pane.append(button([icon('lock'), t('ui.check.fixAll')], async () => {
        const sure = await dialog(t('ui.check.fixAll'), h('p', {}, t('ui.check.fixAll.ask', { count: open })),
          [{ label: t('ui.cancel'), value: false }, { label: t('ui.check.fixAll'), value: true, primary: true }]);
        if (!sure) return;
        try {
          const fixed = (await call('fix-https', {})).body;
          toast(t('ui.check.fixed', { count: fixed.count }));
          await rerun();
        } catch (e) { report(e); }
      }, 'primary', { id: 'check-fix-all' }));
    }
    const entry = (f) => h('li', { class: 'finding' + (f.dismissed ? ' dismissed' : '') },
      h('span', { class: 'grow' }, h('strong', {}, f.title), h('br'), h('span', { class: 'hint' }, f.dismissed ? t('ui.check.dismissed') : findingAdvice(f)),
        f.dismissed ? null : siteLink(f)),
      f.dismissed ? null : fixFinding(f, rerun),
      button(f.dismissed ? t('ui.check.undismiss') : t('ui.check.dismiss'), () => dismiss(f, pane), 'ghost'));
    // Reused and similar passwords come in their groups, one a password (SEC-7): the logins to change together.
    if ((kind === 'reused' || kind === 'similar') && findings.every((f) => f.group !== null && f.group !== undefined)) {
      const groups = new Map();
      for (const f of findings) groups.set(f.group, [...(groups.get(f.group) || []), f]);
      for (const [group, members] of groups) {
        pane.append(h('div', { class: 'findinggroup', 'data-group': String(group) },
          h('h3', {}, t(`ui.check.group.${kind === 'similar' ? 'similar' : 'same'}`, { count: members.length })),
          h('ul', { class: 'findinglist' }, ...members.map(entry))));
      }
    } else {
      pane.append(h('ul', { class: 'findinglist' }, ...findings.map(entry)));
    }
  }
  // The breach check: off until the user turns it on, with what it sends explained first.
  const breaches = h('section', { class: 'findingcard' }, h('h2', {}, t('ui.check.breaches')));
  for (const para of t('check.optin').split('\n')) breaches.append(h('p', {}, para));
  breaches.append(h('p', { class: 'hint', id: 'breach-last' }, check.breachCheckEnabled
    ? (check.lastBreachCheck ? t('check.breaches.last', { date: formatDate(check.lastBreachCheck) }) : t('ui.check.breachesNever'))
    : t('check.breaches.off').split('(')[0].trim()));
  const controls = h('div', { class: 'row' });
  if (check.breachCheckEnabled) controls.append(button([icon('shield-check'), t('ui.check.breachRun')], () => runBreachCheck(breaches, rerun), 'primary', { id: 'breach-run' }));
  controls.append(button(check.breachCheckEnabled ? t('ui.check.breachesOff') : t('ui.check.breachesOn'), async () => {
    try { await call('change-setting', { name: 'breach-check', value: check.breachCheckEnabled ? 'off' : 'on' }); await rerun(); } catch (e) { report(e); }
  }));
  breaches.append(controls);
  if (running) showProgress(breaches, rerun);
  pane.append(breaches);
  // G79: a reminder while no backup was saved, or the last is older than 30 days (Settings makes one).
  if (check.backupReminder) pane.append(h('p', { class: 'notice', role: 'note', id: 'check-backup' }, t(`ui.check.backup.${check.backupReminder}`, { date: formatDate(check.lastBackup) })));
  pane.append(h('p', { class: 'hint' }, t('check.source', { date: check.catalogueDate ? formatDate(check.catalogueDate) : '' })));
}
