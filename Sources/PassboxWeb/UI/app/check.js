// Security Check: the score ring, the tiles, Fix These First, every finding with its advice, dismiss and the
// fix where one exists, and the breach check's opt-in with what it sends.
import { call } from './api.js';
import { t, formatDate } from './i18n.js';
import { h, icon, button, clear, toast, dialog } from './dom.js';
import { state, report, openItem, editItem, refreshList } from './app.js';

export async function loadCheck() {
  if (!state.check) state.check = (await call('check', { runBreachCheck: false })).body;
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

// The fix for a finding: https for an http address, else the editor.
export function fixFinding(finding, after) {
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
  pane.append(h('div', { class: 'tiles', id: 'check-tiles' }, ...['atRisk', 'reused', 'weak', 'other', 'secure'].map((k) => h('div', { class: 'tile', 'data-tile': k }, h('strong', {}, String(check.tiles[k] ?? 0)), t('ui.check.tile.' + k)))));
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
  if (!kinds.length) pane.append(h('p', { class: 'empty' }, t('ui.check.nothing')));
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
    pane.append( h('ul', { class: 'findinglist' }, ...findings.map((f) => h('li', { class: 'finding' + (f.dismissed ? ' dismissed' : '') },
      h('span', { class: 'grow' }, h('strong', {}, f.title), h('br'), h('span', { class: 'hint' }, f.dismissed ? t('ui.check.dismissed') : findingAdvice(f))),
      f.dismissed ? null : fixFinding(f, rerun),
      button(f.dismissed ? t('ui.check.undismiss') : t('ui.check.dismiss'), () => dismiss(f, pane), 'ghost')))));
  }
  // The breach check: off until the user turns it on, with what it sends explained first.
  const breaches = h('section', { class: 'findingcard' }, h('h2', {}, t('ui.check.breaches')));
  for (const para of t('check.optin').split('\n')) breaches.append(h('p', {}, para));
  breaches.append(h('p', { class: 'hint' }, check.breachCheckEnabled
    ? (check.lastBreachCheck ? t('check.breaches.last', { date: formatDate(check.lastBreachCheck) }) : t('ui.check.breachesRun'))
    : t('check.breaches.off').split('(')[0].trim()));
  breaches.append(button(check.breachCheckEnabled ? t('ui.check.breachesOff') : t('ui.check.breachesOn'), async () => {
    try { await call('change-setting', { name: 'breach-check', value: check.breachCheckEnabled ? 'off' : 'on' }); await rerun(); } catch (e) { report(e); }
  }));
  pane.append(breaches);
  // G79: a reminder while no backup was saved, or the last is older than 30 days (Settings makes one).
  if (check.backupReminder) pane.append(h('p', { class: 'notice', role: 'note', id: 'check-backup' }, t(`ui.check.backup.${check.backupReminder}`, { date: formatDate(check.lastBackup) })));
  pane.append(h('p', { class: 'hint' }, t('check.source', { date: check.catalogueDate ? formatDate(check.catalogueDate) : '' })));
}
