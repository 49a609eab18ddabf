// Coercion resistance in the page (docs/SECURITY.md): the settings for duress passwords, erasing after ten
// wrong passwords and Delete All Data, and items with a password of their own. Loaded when first needed.
// Nothing here tells which vault is open or whether a duress vault exists.
import { call, Secret } from './api.js';
import { t, errorText } from './i18n.js';
import { h, icon, button, clear, toast, dialog } from './dom.js';
import { report, openItem, refreshList } from './app.js';

export const PROTECTABLE = ['recovery-phrase', 'private-key', 'secure-note', 'ssh-key'];
export const ALWAYS_PROTECTED = ['recovery-phrase', 'private-key'];

let n = 0;
function password(label, autocomplete = 'new-password') {
  const id = `co-${++n}`;
  const input = h('input', { id, type: 'password', autocomplete, spellcheck: 'false' });
  return { input, nodes: [h('label', { for: id }, label), input] };
}

// A form of password fields; `send` gets their values; every field is emptied afterwards.
function passwordForm(heading, hint, labels, action, send, cls = 'primary') {
  const fields = labels.map(([label, auto]) => password(label, auto));
  const error = h('p', { class: 'error', role: 'alert' });
  const form = h('form', {}, h('h2', {}, heading), h('p', { class: 'hint' }, hint), ...fields.flatMap((f) => f.nodes), error,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: `button ${cls}` }, action)));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    try { await send(fields.map((f) => f.input.value), error); } catch (e) { error.textContent = errorText(e); fields[0].input.focus(); }
    for (const f of fields) f.input.value = '';
  });
  return form;
}

export function coercionSettings(settings) {
  const mismatch = (a, b, error) => { if (a !== b) { error.textContent = t('ui.onboard.mismatch'); return true; } return false; };
  const duressSet = passwordForm(t('ui.duress.title'), t('ui.duress.hint'),
    [[t('ui.settings.current')], [t('ui.duress.new'), 'new-password'], [t('ui.settings.repeat'), 'new-password']], t('ui.duress.set'),
    async ([current, duress, repeat], error) => {
      if (mismatch(duress, repeat, error)) return;
      await call('duress-set', { current: new Secret(current), duress: new Secret(duress) });
      toast(t('ui.duress.done'));
    });
  const duressChange = passwordForm(t('ui.duress.changeTitle'), t('ui.duress.changeHint'),
    [[t('ui.settings.current')], [t('ui.duress.current')], [t('ui.duress.new'), 'new-password'], [t('ui.settings.repeat'), 'new-password']], t('ui.duress.change'),
    async ([current, duress, next, repeat], error) => {
      if (mismatch(next, repeat, error)) return;
      await call('duress-change', { current: new Secret(current), duress: new Secret(duress), new: new Secret(next) });
      toast(t('ui.duress.changed'));
    });
  const eraseBox = h('input', { id: 'co-erase', type: 'checkbox', checked: settings.eraseAfterFailures === true });
  const erase = passwordForm(t('ui.erase.title'), t('ui.erase.hint'), [[t('ui.settings.current')]], t('ui.save'), async ([current]) => {
    const reply = await call('erase-setting', { current: new Secret(current), on: eraseBox.checked });
    eraseBox.checked = reply.body.eraseAfterFailures === true;
    toast(t(eraseBox.checked ? 'ui.erase.on' : 'ui.erase.off'));
  });
  erase.insertBefore(h('label', { class: 'check-label', for: 'co-erase' }, eraseBox, t('ui.erase.label')), erase.querySelector('label'));
  const wipe = passwordForm(t('ui.wipe.title'), t('ui.wipe.hint'), [[t('ui.settings.current')]], t('ui.wipe.action'), async ([current]) => {
    const ok = await dialog(t('ui.wipe.title'), h('p', {}, t('ui.wipe.confirm')), [{ label: t('ui.cancel'), value: false }, { label: t('ui.wipe.action'), value: true, danger: true }]);
    if (!ok) return;
    await call('delete-all-data', { current: new Secret(current) });
    location.reload();
  }, 'danger');
  return [duressSet, duressChange, erase, wipe];
}

// A sealed item: its content opens for one look with its own password, masked again when the tab is hidden
// or loses focus; a recovery phrase's words cannot be selected, copied or dragged.
export function lockedPanel(detail, reveal) {
  const box = h('div', { class: 'fields sealed' });
  const phrase = ALWAYS_PROTECTED.includes(detail.summary.category);
  const hide = () => { window.removeEventListener('blur', hide); clear(box).append(form); };
  const pw = password(t('ui.sealed.password'));
  const error = h('p', { class: 'error', role: 'alert' });
  const form = h('form', {}, h('p', {}, icon('lock'), ' ', t('ui.sealed.locked')), ...pw.nodes, error,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary' }, t('ui.sealed.open'))));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const opened = (await call('item-open', { item: detail.summary.id, password: new Secret(pw.input.value) })).body;
      pw.input.value = '';
      error.textContent = '';
      clear(box);
      for (const f of opened.fields.filter((f) => f.value)) {
        const value = h('span', { class: 'value mono' + (phrase ? ' nocopy' : '') }, '••••••••');
        // Masked until clicked (G41, G103), even once opened.
        value.addEventListener('click', () => { value.textContent = f.value; }, { once: true });
        box.append(h('div', { class: 'field' }, h('span', { class: 'texts' }, h('span', { class: 'label' }, f.label), value)));
      }
      if (opened.notes) box.append(h('div', { class: 'field' }, h('span', { class: 'value' }, opened.notes)));
      box.append(button([icon('eye-off'), t('ui.sealed.close')], hide));
      window.addEventListener('blur', hide);
      reveal(hide);
    } catch (e) { error.textContent = errorText(e); pw.input.value = ''; pw.input.focus(); }
  });
  if (phrase) for (const type of ['copy', 'cut', 'dragstart', 'selectstart']) box.addEventListener(type, (e) => e.preventDefault());
  hide();
  return box;
}

// The toolbar's buttons for a password of the item's own: lock it with one, or take it off.
export function protectButtons(detail) {
  const s = detail.summary;
  if (!PROTECTABLE.includes(s.category)) return [];
  if (s.locked && ALWAYS_PROTECTED.includes(s.category)) return [];
  const run = async (op, labels, done) => {
    const fields = labels.map((l) => password(l, 'new-password'));
    const ok = await dialog(t(op === 'item-protect' ? 'ui.sealed.protect' : 'ui.sealed.unprotect'),
      h('div', {}, h('p', { class: 'hint' }, t(op === 'item-protect' ? 'ui.sealed.protectHint' : 'ui.sealed.unprotectHint')), ...fields.flatMap((f) => f.nodes)),
      [{ label: t('ui.cancel'), value: false }, { label: t('ui.save'), value: true, primary: true }]);
    if (!ok) return;
    if (fields.length > 1 && fields[0].input.value !== fields[1].input.value) { toast(t('ui.onboard.mismatch')); return; }
    try {
      await call(op, { item: s.id, password: new Secret(fields[0].input.value) });
      toast(t(done, { title: s.title }));
      await refreshList();
      await openItem(s.id);
    } catch (e) { report(e); }
  };
  return s.locked
    ? [button([icon('lock'), t('ui.sealed.unprotect')], () => run('item-unprotect', [t('ui.sealed.password')], 'ui.sealed.unprotected'))]
    : [button([icon('lock'), t('ui.sealed.protect')], () => run('item-protect', [t('ui.sealed.password'), t('ui.settings.repeat')], 'ui.sealed.protected'))];
}
