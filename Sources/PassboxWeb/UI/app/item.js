// An item's detail: fields masked until revealed, copy through the agent's clipboard, one-time codes with
// their ring, large type, history with its changes and restore, and the item's Security Check findings.
import { call, fileBase64, UPLOAD_LIMIT } from './api.js';
import { t, has, formatDate, errorText, relativeTime } from './i18n.js';
import { h, icon, iconButton, button, clear, toast, dialog, announce, emptyState, openMenu, below } from './dom.js';
import { state, report, categoryName, categoryIcons, itemTile, openItem, openHistory, editItem, refreshList, mainPane, loadVaults } from './app.js';
import { loadCheck, findingAdvice, fixFinding } from './check.js';
import { attachmentsSection, releasePreviews } from './attachments.js';

const CLIPBOARD_SECONDS_DEFAULT = 90;
let codeTimer = null;
let revealed = [];
// How many times everything was masked: a reveal whose answer arrives after one is dropped.
let masks = 0;

// The agent's clipboard setting (the command line's `copy` uses the same).
export function clipboardSeconds() {
  const chosen = state.settings && state.settings.clipboardSeconds;
  return chosen >= 10 && chosen <= 600 ? chosen : CLIPBOARD_SECONDS_DEFAULT;
}

// Hides every revealed value again (the tab was hidden, or the item closed).
export function maskRevealed() {
  masks++;
  for (const hide of revealed) hide();
  revealed = [];
  for (const d of document.querySelectorAll('dialog.secret')) d.close();
  for (const input of document.querySelectorAll('input[data-concealed]')) input.type = 'password';
  for (const toggle of document.querySelectorAll('[data-reveal]')) toggle.dispatchEvent(new Event('masked'));
}

// A field's label in the page's language: a category's own field by its key, a custom field as named.
export function fieldLabel(field) {
  if (field.key && !field.custom && has('ui.field.' + field.key)) return t('ui.field.' + field.key);
  return field.label;
}

// Fields are named by id (a custom field called "Notes" or "Code" is still that field); the code by `code`.
function fieldName(field) { return field.id || field.key || field.label; }

function reference(itemId, field) {
  return `passbox://local/${encodeURIComponent(itemId)}/${encodeURIComponent(fieldName(field))}`;
}

async function copyField(itemId, field, label) {
  try {
    await call('copy', { reference: reference(itemId, field), clearAfter: clipboardSeconds(), display: {} });
    toast(t('ui.item.copied', { label, seconds: clipboardSeconds() }));
  } catch (e) { report(e); }
}

async function largeType(itemId, field, label) {
  try {
    const value = (await call('field', { item: itemId, field: fieldName(field) })).body.value;
    const chars = h('div', { class: 'large', 'aria-label': label });
    [...value].forEach((c, i) => chars.append(h('span', {}, c, h('small', {}, String(i + 1)))));
    await dialog(label, chars, [{ label: t('ui.close'), value: true, primary: true }], 'secret');
  } catch (e) { report(e); }
}

function ring(secondsLeft, period) {
  const r = 15;
  const length = 2 * Math.PI * r;
  const svgNS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(svgNS, 'svg');
  svg.setAttribute('viewBox', '0 0 36 36');
  svg.setAttribute('class', 'ring' + (secondsLeft <= 5 ? ' ending' : ''));
  svg.setAttribute('aria-hidden', 'true');
  for (const cls of ['track', 'left']) {
    const c = document.createElementNS(svgNS, 'circle');
    c.setAttribute('cx', '18'); c.setAttribute('cy', '18'); c.setAttribute('r', String(r)); c.setAttribute('class', cls);
    if (cls === 'left') { c.setAttribute('stroke-dasharray', String(length)); c.setAttribute('stroke-dashoffset', String(length * (1 - secondsLeft / period))); }
    svg.append(c);
  }
  return svg;
}

function codeField(itemId, field, label) {
  const valueEl = h('span', { class: 'value codevalue' });
  const leftEl = h('span', { class: 'hint' });
  const ringBox = h('span');
  const row = h('div', { class: 'field' }, ringBox, h('span', { class: 'texts' }, h('span', { class: 'label' }, t('ui.item.code')), valueEl, leftEl));
  let code = field.code;
  let fetchedAt = Date.now();
  const render = () => {
    if (!code) return;
    valueEl.textContent = code.code ? code.code.replace(/(\d{3})(?=\d)/g, '$1 ') : '';
    if (code.kind === 'hotp') { clear(ringBox); leftEl.textContent = ''; return; }
    const left = Math.max(0, code.secondsLeft - Math.floor((Date.now() - fetchedAt) / 1000));
    leftEl.textContent = t('ui.item.secondsLeft', { seconds: left });
    clear(ringBox).append(ring(left, code.period || 30));
    if (left === 0) refresh();
  };
  const refresh = async () => {
    try { code = (await call('code', { item: itemId })).body; fetchedAt = Date.now(); render(); } catch (e) { report(e); }
  };
  row.append(iconButton('copy', t('ui.item.copy', { label: t('ui.item.code') }), () => copyField(itemId, { key: 'code' }, t('ui.item.code'))));
  if (code && code.kind === 'hotp') row.append(iconButton('refresh-cw', t('ui.item.nextCode'), refresh));
  render();
  clearInterval(codeTimer);
  codeTimer = setInterval(() => { if (!document.body.contains(row)) { clearInterval(codeTimer); return; } render(); }, 1000);
  return row;
}

function fieldRow(itemId, field, noCopy) {
  const label = fieldLabel(field);
  if (field.kind === 'otp') return codeField(itemId, field, label);
  const valueEl = h('span', { class: 'value' + (field.concealed ? ' mono secret' : '') }, field.masked ? '••••••••' : field.value);
  // The password's label carries its strength (DET-4, STR-3): "Password · strong", coloured, with a shield.
  const strength = field.strength === undefined || field.strength === null ? null
    : h('span', { class: `strength s${field.strength}` }, icon(field.strength >= 3 ? 'shield-check' : 'shield'), ' ', t('strength.label.' + field.strength));
  const texts = [h('span', { class: 'label' }, label, strength ? ' · ' : null, strength), valueEl];
  // A click on the row copies its value (DET-5): the row's text is one button, its other actions beside it.
  const row = h('div', { class: 'field' }, noCopy ? h('span', { class: 'texts' }, ...texts)
    : h('button', { type: 'button', class: 'texts copyrow', 'data-copy-row': field.key || fieldName(field), title: t('ui.item.copy', { label }), onclick: () => copyField(itemId, field, label) }, ...texts));
  if (field.concealed) {
    let shown = false;
    // The button's name says what it does next (reveal or hide); no pressed state on top of that.
    const toggle = iconButton('eye', t('ui.item.reveal', { label }), null);
    const hide = () => { shown = false; valueEl.textContent = '••••••••'; toggle.setAttribute('aria-label', t('ui.item.reveal', { label })); toggle.title = t('ui.item.reveal', { label }); clear(toggle).append(icon('eye')); };
    toggle.addEventListener('click', async () => {
      if (shown) { hide(); return; }
      try {
        const value = (await call('field', { item: itemId, field: fieldName(field) })).body.value;
        shown = true;
        valueEl.textContent = value;
        toggle.setAttribute('aria-label', t('ui.item.conceal', { label })); toggle.title = t('ui.item.conceal', { label });
        clear(toggle).append(icon('eye-off'));
        revealed.push(hide);
      } catch (e) { report(e); }
    });
    row.append(toggle);
  }
  if ((field.value !== '' || field.masked) && !noCopy) {
    row.append(iconButton('maximize-2', t('ui.item.large', { label }), () => largeType(itemId, field, label)));
    row.append(iconButton('copy', t('ui.item.copy', { label }), () => copyField(itemId, field, label), { 'data-copy': field.key || field.id }));
  }
  return row;
}

async function addCode(itemId) {
  const file = h('input', { id: 'code-image', type: 'file', accept: 'image/png,image/jpeg' });
  const text = h('input', { id: 'code-text', type: 'text', autocomplete: 'off', spellcheck: 'false' });
  const body = h('div', {}, h('label', { for: 'code-image' }, t('ui.item.codeImage')), file, h('label', { for: 'code-text' }, t('ui.item.codeText')), text);
  const ok = await dialog(t('ui.item.addCode'), body, [{ label: t('ui.cancel'), value: false }, { label: t('ui.save'), value: true, primary: true }]);
  if (!ok) return;
  try {
    let setups = text.value.trim() ? [text.value.trim()] : [];
    if (file.files && file.files[0]) {
      if (file.files[0].size > UPLOAD_LIMIT) { toast(t('ui.item.imageTooLarge'), null, 8); return; }
      setups = (await call('read-qr', { image: await fileBase64(file.files[0]) })).body.values;
    }
    if (!setups.length) return;
    await call('set-one-time-password', { item: itemId, setups });
    toast(t('ui.item.codeAdded'));
    await refreshList();
    await openItem(itemId);
  } catch (e) { report(e); }
}

// Favourite or not; the detail shown again when it is this item's.
export async function setFavorite(id, on) {
  try {
    await call('edit', { item: id, changes: { favorite: on, fieldsFromCommandLine: [], secretFields: [], removeFields: [] } });
    await refreshList();
    if (state.view === 'item' && state.selected === id) await openItem(id);
  } catch (e) { report(e); }
}

const toggleFavorite = (detail) => setFavorite(detail.summary.id, !detail.summary.favorite);

// Whether items of `category` have the typed field `key` (the catalogue's templates).
function categoryHas(category, key) {
  const c = state.catalog.find((x) => x.name === category);
  return !!c && c.fields.some((f) => f.key === key);
}

// The first address of an item the browser may open: http or https only.
function webAddress(item) {
  for (const w of item.websites || []) {
    try { const url = new URL(w.includes('://') ? w : 'https://' + w); if (url.protocol === 'https:' || url.protocol === 'http:') return url.href; } catch { /* not an address */ }
  }
  return null;
}

// The typed field `key` copied through the agent's clipboard (a row's action, the menus).
export function copyItemField(item, key) { return copyField(item.id, { key }, t('ui.field.' + key)); }

// Whether a row offers to copy the password: its category has one and it is not sealed.
export function copiesPassword(item) { return categoryHas(item.category, 'password') && !item.locked; }

// Moves or copies one item to a vault the person picks.
async function moveOrCopyItem(s, copy) {
  const vaults = state.vaults || [];
  const choice = h('select', { id: 'menu-vault', 'aria-label': t('ui.pick.vault') }, ...vaults.map((v) => h('option', { value: v.id }, v.name)));
  const go = await dialog(t(copy ? 'ui.item.copyToVault' : 'ui.item.moveToVault'), h('p', {}, choice),
    [{ label: t('ui.cancel'), value: false }, { label: t(copy ? 'ui.pick.copy' : 'ui.pick.move'), value: true, primary: true }]);
  if (!go) return;
  const vault = vaults.find((v) => v.id === choice.value);
  try {
    const done = (await call('move', { items: [s.id], vault: choice.value, copy })).body;
    toast(done.count ? t(copy ? 'ui.pick.copied' : 'ui.pick.moved', { count: 1, vault: vault ? vault.name : '' }) : t('ui.item.alreadyIn', { title: s.title, vault: vault ? vault.name : '' }));
    await loadVaults();
    await refreshList();
  } catch (e) { report(e); }
}

// The actions on one item, the same wherever they open: a row's context menu (LST-9) and the detail's ⋮ (DET-1).
export function itemMenu(s, at, returnTo) {
  const viewOnly = s.viewOnly === true;
  const site = webAddress(s);
  const several = (state.vaults || []).length > 1;
  return openMenu(t('ui.item.menu', { title: s.title }), [
    copiesPassword(s) ? { id: 'copy-password', icon: 'copy', label: t('ui.item.copy', { label: t('ui.field.password') }), run: () => copyItemField(s, 'password') } : null,
    categoryHas(s.category, 'username') && !s.locked ? { id: 'copy-username', icon: 'user', label: t('ui.item.copy', { label: t('ui.field.username') }), run: () => copyItemField(s, 'username') } : null,
    site ? { id: 'open-website', icon: 'external-link', label: t('ui.item.openWebsite'), run: () => window.open(site, '_blank', 'noopener,noreferrer') } : null,
    viewOnly ? null : { id: 'favorite', icon: 'star', label: t(s.favorite ? 'ui.item.unfavorite' : 'ui.item.favorite'), run: () => setFavorite(s.id, !s.favorite) },
    several && !viewOnly ? { id: 'move', icon: 'folder-input', label: t('ui.item.moveToVault'), run: () => moveOrCopyItem(s, false) } : null,
    several ? { id: 'copy-to', icon: 'copy', label: t('ui.item.copyToVault'), run: () => moveOrCopyItem(s, true) } : null,
    { id: 'history', icon: 'history', label: t('ui.item.history'), run: () => openHistory(s.id) },
    viewOnly ? null : { id: 'trash', icon: 'trash-2', label: t('ui.item.delete'), danger: true, run: () => moveToTrash(s.id, s.title) },
  ], at, returnTo);
}

export async function moveToTrash(id, title) {
  try {
    await call('delete', { item: id });
    await refreshList();
    clear(mainPane()).append(emptyState('key-round', t('ui.item.none')));
    // Ten seconds to take it back.
    toast(t('ui.item.moved', { title }), { label: t('ui.undo'), run: async () => { try { await call('trash-restore', { item: id }); await refreshList(); await openItem(id); } catch (e) { report(e); } } }, 10);
  } catch (e) { report(e); }
}

// The passkeys card (issue 35): each passkey's site and account, when it was made and last used here, and
// Delete (asked first: the site no longer accepts this device's sign-in with it). The key itself is never shown.
function passkeysSection(id, passkeys, viewOnly) {
  const row = (p) => h('li', { class: 'field passkey', 'data-credential': p.credential },
    icon('key-round'),
    h('span', { class: 'texts' }, h('span', { class: 'label' }, p.rp), h('span', { class: 'value' }, p.userName || p.displayName || '—'),
      h('span', { class: 'hint' }, t('ui.item.passkeyMade', { date: formatDate(p.created) }) + (p.lastUsed ? ' · ' + t('ui.item.passkeyUsed', { ago: relativeTime(p.lastUsed) }) : ''))),
    viewOnly ? null : button([icon('trash-2'), t('ui.item.passkeyDelete')], () => deletePasskey(id, p), 'danger', { 'aria-label': t('ui.item.passkeyDeleteNamed', { site: p.rp }) }));
  return h('section', { class: 'passkeys', 'aria-labelledby': 'passkeys-title' }, h('h3', { id: 'passkeys-title' }, t('ui.item.passkeys')),
    h('ul', { class: 'fields' }, ...passkeys.map(row)));
}

async function deletePasskey(id, p) {
  const yes = await dialog(t('ui.item.passkeyDeleteTitle', { site: p.rp }), h('p', {}, t('ui.item.passkeyDeleteText', { site: p.rp })),
    [{ label: t('ui.cancel'), value: false }, { label: t('ui.item.passkeyDelete'), value: true, danger: true }]);
  if (!yes) return;
  try {
    await call('edit', { item: id, changes: { removePasskeys: [p.credential], fieldsFromCommandLine: [], secretFields: [], removeFields: [] } });
    toast(t('ui.item.passkeyDeleted', { site: p.rp }));
    await refreshList();
    await openItem(id);
  } catch (e) { report(e); }
}

// "EMAIL (ACCESS)" as the agent says who sees a shared item, the access worded.
const seenList = (list) => list.map((x) => x.replace(/\((view|edit|manage)\)$/, (m, a) => `(${t('org.access.' + a)})`)).join(', ');

export async function showItem(pane, id) {
  maskRevealed();
  releasePreviews();
  const detail = (await call('show', { item: id, reveal: false })).body;
  const s = detail.summary;
  const favLabel = s.favorite ? t('ui.item.unfavorite') : t('ui.item.favorite');
  // Items that can have a password of their own load the page's coercion module (nothing else needs it).
  const sealing = ['recovery-phrase', 'private-key', 'secure-note', 'ssh-key'].includes(s.category) ? await import('./coercion.js') : null;
  const viewOnly = s.viewOnly === true;
  pane.append(
    h('div', { class: 'detailhead' }, itemTile(s),
      h('div', { class: 'grow' }, h('h1', {}, s.title), h('span', { class: 'chip', id: 'category-pill' }, categoryName(s.category)),
        s.shared ? h('p', { class: 'muted' }, icon('user'), ' ', t('ui.item.shared', { badge: s.shared }), viewOnly ? ' · ' + t('ui.item.viewOnly') : '') : null,
        detail.seenBy ? h('p', { class: 'hint', id: 'seen-by' }, t('ui.item.seenBy', { list: seenList(detail.seenBy) })) : null)),
    h('div', { class: 'toolbar', role: 'toolbar', 'aria-label': t('ui.item.actions') },
      viewOnly ? null : button([icon('pencil'), t('ui.item.edit')], () => editItem(id)),
      viewOnly ? null : button([icon('star'), favLabel], () => toggleFavorite(detail), '', { 'aria-pressed': s.favorite ? 'true' : 'false' }),
      button([icon('history'), t('ui.item.history')], () => openHistory(id), '', { disabled: detail.historyCount === 0 }),
      s.locked || viewOnly ? null : button([icon('timer'), t('ui.item.addCode')], () => addCode(id)),
      ...(sealing && !viewOnly ? sealing.protectButtons(detail) : []),
      viewOnly ? null : button([icon('trash-2'), t('ui.item.delete')], () => moveToTrash(id, s.title), 'danger'),
      iconButton('ellipsis-vertical', t('ui.item.more'), (event) => itemMenu(s, below(event.currentTarget), event.currentTarget), { id: 'item-more', 'aria-haspopup': 'menu' })));
  if (s.locked && sealing) pane.append(sealing.lockedPanel(detail, (hide) => revealed.push(hide)));
  // Move to another vault, when there is more than one.
  const others = state.vaults;
  if (others.length > 1 && !viewOnly) {
    const choice = h('select', { id: 'move-vault', 'aria-label': t('ui.item.moveTo') }, ...others.map((v) => h('option', { value: v.id }, v.name)));
    pane.append(h('div', { class: 'row' }, choice, button([icon('arrow-right'), t('ui.item.moveTo')], async () => {
      const target = others.find((v) => v.id === choice.value);
      try {
        const moved = (await call('move', { items: [id], vault: choice.value, copy: false })).body;
        // Into a shared vault: who can see it there from now on (VLT-7).
        const seen = moved.count && moved.seenBy ? ' ' + t('ui.item.seenBy', { list: seenList(moved.seenBy) }) : '';
        toast(t(moved.count ? 'ui.item.movedTo' : 'ui.item.alreadyIn', { title: s.title, vault: target ? target.name : '' }) + seen, null, seen ? 12 : 4);
        await loadVaults();
        await refreshList();
        // Shown again only if the person is still on it (a click in the navigation meanwhile wins).
        if (state.view === 'item' && state.selected === id) await openItem(id);
      } catch (e) { report(e); }
    })));
  }
  const findings = h('div');
  pane.append(findings);
  const fields = detail.fields.filter((f) => f.value !== '' || f.masked || f.kind === 'otp');
  // A recovery phrase's words are never copied (G41), not even from one kept without its own password.
  if (fields.length) pane.append(h('div', { class: 'fields' }, ...fields.map((f) => fieldRow(id, f, s.category === 'recovery-phrase'))));
  // A web address opens in a new tab that cannot reach back to this page (noopener) nor learn where it came from.
  const site = (w) => (/^https?:\/\//i.test(w) ? h('a', { class: 'value', href: w, target: '_blank', rel: 'noopener noreferrer' }, w) : h('span', { class: 'value' }, w));
  if (s.websites.length) pane.append(h('h3', {}, t('ui.item.websites')), h('div', { class: 'fields' }, ...s.websites.map((w) => h('div', { class: 'field' }, h('span', { class: 'texts' }, site(w))))));
  if (detail.notes) pane.append(h('h3', {}, t('ui.item.notes')), h('div', { class: 'fields' }, h('div', { class: 'field' }, h('span', { class: 'value' }, detail.notes))));
  if (s.tags.length) pane.append(h('h3', {}, t('ui.item.tags')), h('div', { class: 'chips' }, ...s.tags.map((tag) => h('span', { class: 'chip' }, tag))));
  if (detail.passkeys && detail.passkeys.length) pane.append(passkeysSection(id, detail.passkeys, viewOnly));
  pane.append(attachmentsSection(detail, s.locked));
  // When it was last used and filled, with how long ago (DET-10); unknown dates are left out.
  for (const [key, when] of [['ui.item.lastUsed', s.lastUsed], ['ui.item.lastFilled', detail.lastFilled]]) {
    if (when) pane.append(h('p', { class: 'hint', 'data-date': key }, t(key, { date: formatDate(when), ago: relativeTime(when) })));
  }
  pane.append(h('p', { class: 'hint' }, t('ui.item.dates', { created: formatDate(s.created), changed: formatDate(s.lastChanged) })));
  // The item's findings, each with its advice and, where one exists, its fix.
  try {
    const check = await loadCheck();
    const mine = check.findings.filter((f) => f.itemID === id && !f.dismissed);
    for (const f of mine) {
      const fix = fixFinding(f, async () => { state.check = null; await refreshList(); await openItem(id); });
      findings.append(h('div', { class: 'findingcard', role: 'note' }, h('strong', {}, t(`check.kind.${f.kind}.title`)), h('p', {}, findingAdvice(f)), fix));
    }
  } catch (e) { /* the card is extra: the item shows without it */ }
}

function changeText(change) {
  switch (change.what) {
    case 'title': return t('ui.history.change.title', { old: change.old || '', new: change.new || '' });
    case 'field': return change.old === undefined || change.old === null ? t('ui.history.change.concealed', { label: change.label }) : null;
    default: return t('ui.history.change.' + change.what);
  }
}

export async function showHistory(pane, id) {
  const history = (await call('history', { item: id, reveal: false })).body;
  pane.append(h('div', { class: 'toolbar' }, button([icon('arrow-right'), t('ui.back')], () => openItem(id))), h('h1', {}, t('ui.history.title', { title: history.title })));
  if (!history.versions.length) { pane.append(emptyState('history', t('ui.history.none'))); return; }
  const listEl = h('ul', { class: 'versions' });
  // HIS-2: a concealed field's change shows its values only when asked, the old struck through and the new
  // beside it, hidden again by the toggle, when the tab is hidden or another screen opens (maskRevealed).
  const conceal = (line, label, toggle) => {
    line.dataset.shown = '';
    line.replaceChildren(t('ui.history.change.concealed', { label }));
    toggle.setAttribute('aria-label', t('ui.item.reveal', { label }));
    toggle.title = toggle.getAttribute('aria-label');
  };
  const reveal = async (versionId, index, line, label, toggle) => {
    if (line.dataset.shown) { conceal(line, label, toggle); return; }
    const asked = masks;
    try {
      // Asked each time and not kept: the page holds the revealed values only while they are shown.
      const opened = (await call('history', { item: id, reveal: true })).body;
      const change = (opened.versions.find((v) => v.id === versionId) || { changes: [] }).changes[index];
      if (!change || asked !== masks || !line.isConnected) return;
      line.dataset.shown = '1';
      line.replaceChildren(`${label}: `, h('span', { class: 'diff-old secret' }, change.old || ''), ' → ', h('span', { class: 'diff-new secret' }, change.new || ''));
      toggle.setAttribute('aria-label', t('ui.item.conceal', { label }));
      toggle.title = toggle.getAttribute('aria-label');
      revealed.push(() => { if (line.dataset.shown) conceal(line, label, toggle); });
    } catch (e) { report(e); }
  };
  for (const version of history.versions) {
    const changes = h('ul', {});
    version.changes.forEach((change, index) => {
      const text = changeText(change);
      if (text && change.what === 'field') {
        const line = h('span', { class: 'grow', 'data-concealed-change': change.label }, text);
        const toggle = iconButton('eye', t('ui.item.reveal', { label: change.label }), () => reveal(version.id, index, line, change.label, toggle));
        changes.append(h('li', { class: 'row' }, line, toggle));
      } else if (text) changes.append(h('li', {}, text));
      else changes.append(h('li', {}, `${change.label}: `, h('span', { class: 'diff-old' }, change.old || ''), ' → ', h('span', { class: 'diff-new' }, change.new || '')));
    });
    const date = formatDate(version.replacedAt);
    listEl.append(h('li', { class: 'version' }, h('h2', {}, t('ui.history.replaced', { date })), changes,
      button([icon('rotate-ccw'), t('ui.history.restore')], async () => {
        try {
          await call('restore-version', { item: id, version: version.id });
          toast(t('ui.history.restored', { date }));
          announce(t('ui.history.restored', { date }));
          await refreshList();
          await openItem(id);
        } catch (e) { report(e); }
      })));
  }
  pane.append(listEl);
  if (history.previousPasswords.length) pane.append(h('p', { class: 'hint' }, t('ui.history.previous', { count: history.previousPasswords.length })));
}
