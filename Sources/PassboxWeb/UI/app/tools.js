// The generator (on its own and inside the editor), the trash with restore and delete, and the settings.
import { call, Secret } from './api.js';
import { t, formatDate, errorText, language, ready } from './i18n.js';
import { h, icon, button, clear, toast, dialog, emptyState } from './dom.js';
import { state, report, openItem, refreshList, setLanguage, setTheme, changeSetting, vaultCounts, showListing, categoryName } from './app.js';
import { rateStrength, suggestButton } from './meter.js';
import { clipboardSeconds } from './item.js';

let generatorCount = 0;

// The generator's controls; `onUse` (if given) takes the value into a form.
export function generatorControls(onUse) {
  const n = ++generatorCount;
  const saved = JSON.parse(localStorage.getItem('passbox.generator') || '{}');
  const options = { kind: 'characters', length: 20, words: 5, uppercase: true, lowercase: true, digits: true, symbols: true, allowSimilar: false, separator: '-', capitalize: false, includeDigit: false, language: 'en', ...saved };
  const box = h('div', { class: 'genbox' });
  // Not a live region: a slider step must not read a new password aloud.
  const output = h('output', { id: `gen-output-${n}`, class: 'mono value', 'aria-label': t('ui.gen.result') });
  const entropy = h('p', { class: 'hint' });
  const meter = h('div', { class: 'meter', role: 'img', 'aria-label': t('ui.strength.meter') }, h('span'));
  const reason = h('p', { class: 'hint' });
  const controls = h('div');
  const generate = async () => {
    localStorage.setItem('passbox.generator', JSON.stringify(options));
    const request = options.kind === 'words'
      ? { words: options.words, uppercase: true, lowercase: true, digits: true, symbols: true, allowSimilar: false, separator: options.separator, capitalize: options.capitalize, includeDigit: options.includeDigit, language: options.language }
      : { length: options.length, uppercase: options.uppercase, lowercase: options.lowercase, digits: options.digits, symbols: options.symbols, allowSimilar: options.allowSimilar, capitalize: false, includeDigit: false };
    try {
      const g = (await call('generate', request)).body;
      output.textContent = g.password;
      entropy.textContent = t('ui.gen.entropy', { bits: Math.round(g.entropyBits) });
      rateStrength(g.password, [], meter, reason);
    } catch (e) { report(e); }
  };
  const check = (key, labelKey) => {
    const id = `gen-${key}-${n}`;
    const input = h('input', { id, type: 'checkbox', checked: options[key] });
    input.addEventListener('change', () => { options[key] = input.checked; generate(); });
    return h('label', { class: 'check-label', for: id }, input, t(labelKey));
  };
  const renderControls = () => {
    clear(controls);
    const kind = h('select', { id: `gen-kind-${n}` }, h('option', { value: 'characters', selected: options.kind === 'characters' }, t('ui.gen.characters')), h('option', { value: 'words', selected: options.kind === 'words' }, t('ui.gen.words')));
    kind.addEventListener('change', () => { options.kind = kind.value; renderControls(); generate(); });
    controls.append(h('label', { for: `gen-kind-${n}` }, t('ui.gen.kind')), kind);
    if (options.kind === 'words') {
      const count = h('input', { id: `gen-words-${n}`, type: 'range', min: '3', max: '12', value: String(options.words) });
      const shown = h('span', {}, String(options.words));
      count.addEventListener('input', () => { options.words = Number(count.value); shown.textContent = count.value; generate(); });
      const separator = h('input', { id: `gen-sep-${n}`, type: 'text', value: options.separator, maxlength: '3' });
      separator.addEventListener('input', () => { options.separator = separator.value; generate(); });
      const list = h('select', { id: `gen-lang-${n}` }, h('option', { value: 'en', selected: options.language === 'en' }, t('ui.gen.english')), h('option', { value: 'de', selected: options.language === 'de' }, t('ui.gen.german')));
      list.addEventListener('change', () => { options.language = list.value; generate(); });
      controls.append(h('label', { for: `gen-words-${n}` }, t('ui.gen.wordCount'), ' ', shown), count,
        h('label', { for: `gen-sep-${n}` }, t('ui.gen.separator')), separator, h('label', { for: `gen-lang-${n}` }, t('ui.gen.language')), list,
        check('capitalize', 'ui.gen.capitalize'), check('includeDigit', 'ui.gen.includeDigit'));
    } else {
      const length = h('input', { id: `gen-length-${n}`, type: 'range', min: '8', max: '64', value: String(options.length) });
      const shown = h('span', {}, String(options.length));
      length.addEventListener('input', () => { options.length = Number(length.value); shown.textContent = length.value; generate(); });
      controls.append(h('label', { for: `gen-length-${n}` }, t('ui.gen.length'), ' ', shown), length,
        check('uppercase', 'ui.gen.uppercase'), check('lowercase', 'ui.gen.lowercase'), check('digits', 'ui.gen.digits'), check('symbols', 'ui.gen.symbols'), check('allowSimilar', 'ui.gen.similar'));
    }
  };
  renderControls();
  box.append(output, meter, reason, entropy, controls, h('div', { class: 'actions' },
    button([icon('refresh-cw'), t('ui.gen.again')], generate),
    onUse ? button([icon('check'), t('ui.gen.use')], () => onUse(output.textContent), 'primary') : null));
  generate();
  return box;
}

export async function showGenerator(pane) {
  pane.append(h('h1', {}, t('ui.gen.title')), generatorControls(null));
}

export async function showTrash(pane) {
  const reply = (await call('trash-list', { favoritesOnly: false, offset: 0, limit: 1000 })).body;
  const rerender = async () => showTrash(clear(pane));
  pane.append(h('div', { class: 'row' }, h('h1', { class: 'grow' }, t('ui.trash.title')),
    reply.items.length ? button([icon('trash-2'), t('ui.trash.emptyAll')], async () => {
      const ok = await dialog(t('ui.trash.emptyAll'), h('p', {}, t('ui.trash.confirm')), [{ label: t('ui.cancel'), value: false }, { label: t('ui.trash.emptyAll'), value: true, danger: true }]);
      if (!ok) return;
      try { await call('trash-empty'); toast(t('ui.trash.deleted')); await rerender(); } catch (e) { report(e); }
    }, 'danger') : null));
  if (!reply.items.length) { pane.append(emptyState('trash-2', t('ui.trash.empty'))); return; }
  pane.append(h('ul', { class: 'findinglist' }, ...reply.items.map((item) => h('li', { class: 'finding' },
    h('span', { class: 'grow' }, h('strong', {}, item.title), h('br'), h('span', { class: 'hint' }, t('ui.trash.when', { date: formatDate(item.trashedAt) }))),
    button([icon('rotate-ccw'), t('ui.trash.restore', { title: item.title })], async () => {
      try { await call('trash-restore', { item: item.id }); toast(t('ui.trash.restored', { title: item.title })); await refreshList(); await rerender(); } catch (e) { report(e); }
    }),
    button([icon('x'), t('ui.trash.delete', { title: item.title })], async () => {
      const ok = await dialog(t('ui.trash.delete', { title: item.title }), h('p', {}, t('ui.trash.confirmOne', { title: item.title })), [{ label: t('ui.cancel'), value: false }, { label: t('ui.trash.delete', { title: item.title }), value: true, danger: true }]);
      if (!ok) return;
      try { await call('trash-delete', { item: item.id }); toast(t('ui.trash.deleted')); await rerender(); } catch (e) { report(e); }
    }, 'danger')))));
}

function select(id, labelText, choices, current, onChange) {
  const el = h('select', { id }, ...choices.map(([value, text]) => h('option', { value: String(value), selected: String(value) === String(current) }, text)));
  el.addEventListener('change', () => onChange(el.value));
  return [h('label', { for: id }, labelText), el];
}

// LST-13: the vault at a glance, as chips that open the list with their filter (logins, notes, cards, identities,
// two-factor codes, passkeys, items in vaults shared with a family or team).
function statChips() {
  const { categories, codes, passkeys, shared } = vaultCounts();
  const chip = (id, label, count, filter) => h('button', { type: 'button', class: 'chip statchip', 'data-stat': id, onclick: () => showListing(filter) },
    h('strong', {}, String(count)), ' ', label);
  return h('div', { class: 'chips', id: 'stat-chips', role: 'group', 'aria-label': t('ui.settings.glance') },
    ...['login', 'credit-card', 'secure-note', 'identity'].map((c) => chip(c, categoryName(c), categories[c] || 0, { kind: 'category', value: c })),
    chip('codes', t('ui.nav.codes'), codes, { kind: 'codes' }),
    chip('passkeys', t('ui.nav.passkeys'), passkeys || 0, { kind: 'passkeys' }),
    chip('shared', t('ui.nav.shared'), shared || 0, { kind: 'shared' }));
}

// This browser's own notifications (SEC-18 in the page): turned on here, per browser, and allowed by it.
const NOTIFY_KEY = 'passbox.notify';
export const browserNotifying = () => 'Notification' in window && Notification.permission === 'granted' && localStorage.getItem(NOTIFY_KEY) === 'on';

export async function showSettings(pane) {
  await ready();
  const s = (await call('settings')).body;
  state.settings = s;
  const change = async (name, value) => {
    try { await changeSetting(name, value); toast(t('ui.settings.saved')); } catch (e) { report(e); await showSettings(clear(pane)); }
  };
  const minutes = [0, 1, 5, 15, 30, 60].map((m) => [m, m === 0 ? t('ui.settings.everyAction') : t('ui.settings.minutes', { count: m })]);
  const reminder = [[0, t('ui.settings.never')], [14, t('ui.settings.days', { count: 14 })], [30, t('ui.settings.days', { count: 30 })]];
  const quick = h('input', { id: 'set-quick', type: 'checkbox', checked: s.quickUnlock !== false });
  quick.addEventListener('change', () => change('quick-unlock', quick.checked ? 'on' : 'off'));
  const keys = h('input', { id: 'set-keys', type: 'checkbox', checked: s.webShortcuts !== false });
  keys.addEventListener('change', () => change('web-shortcuts', keys.checked ? 'on' : 'off'));
  // SEC-14 without an account: the breach catalogue refreshed from Have I Been Pwned's public list, opt-in, as
  // a local vault makes no request of its own otherwise (an account's catalogue comes from its server).
  const catalogue = h('input', { id: 'set-catalogue', type: 'checkbox', checked: !!s.breachCatalogueURL, 'aria-describedby': 'set-catalogue-hint' });
  catalogue.addEventListener('change', () => change('breach-catalogue', catalogue.checked ? 'on' : 'off'));
  // SEC-18 in the page: this browser's own notifications, asked of the browser when turned on (main.js shows them).
  // An account's vault: its master password is changed at the server, and it has no local-only settings.
  const accountMaster = !!(state.status && state.status.account);
  const notify = h('input', { id: 'set-notify', type: 'checkbox', 'aria-describedby': 'set-notify-hint', checked: browserNotifying() });
  notify.addEventListener('change', async () => {
    if (!notify.checked) { localStorage.removeItem(NOTIFY_KEY); toast(t('ui.settings.saved')); return; }
    if (await Notification.requestPermission() === 'granted') { localStorage.setItem(NOTIFY_KEY, 'on'); toast(t('ui.settings.saved')); return; }
    notify.checked = false;
    toast(t('ui.settings.notifyRefused'));
  });
  const clipboard = h('input', { id: 'set-clipboard', type: 'number', min: '10', max: '600', value: String(clipboardSeconds()) });
  clipboard.addEventListener('change', () => change('clipboard', clipboard.value));
  const error = h('p', { class: 'error', role: 'alert' });
  const current = h('input', { id: 'set-current', type: 'password', autocomplete: 'new-password' });
  const next = h('input', { id: 'set-new', type: 'password', autocomplete: 'new-password' });
  const repeat = h('input', { id: 'set-repeat', type: 'password', autocomplete: 'new-password' });
  const meter = h('div', { class: 'meter', role: 'img', 'aria-label': t('ui.strength.meter') }, h('span'));
  const reason = h('p', { class: 'hint' });
  next.addEventListener('input', () => rateStrength(next.value, [], meter, reason));
  // An account's vault follows its master password, changed at the server (DEV-3): every other device is signed
  // out, the Secret Key stays the same. A local vault's password re-keys its slot here.
  const form = h('form', {}, h('h2', {}, t(accountMaster ? 'ui.settings.master' : 'ui.settings.password')),
    accountMaster ? h('p', { class: 'hint', id: 'master-hint' }, t('ui.settings.masterHint')) : null,
    h('label', { for: 'set-current' }, t('ui.settings.current')), current,
    h('label', { for: 'set-new' }, t('ui.settings.new')), next, meter, reason, ...suggestButton(next, repeat),
    h('label', { for: 'set-repeat' }, t('ui.settings.repeat')), repeat, error,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary' }, t('ui.settings.change'))));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    if (next.value !== repeat.value) { error.textContent = t('ui.onboard.mismatch'); return; }
    try {
      await call(accountMaster ? 'account-password' : 'change-password', { current: new Secret(current.value), new: new Secret(next.value) });
      current.value = ''; next.value = ''; repeat.value = '';
      toast(t(accountMaster ? 'ui.settings.masterChanged' : 'ui.settings.changed'), null, accountMaster ? 8 : 4);
    } catch (e) { error.textContent = errorText(e); current.value = ''; }
  });
  pane.append(h('div', { class: 'editor' }, h('h1', {}, t('ui.settings.title')), statChips(),
    ...select('set-autolock', t('ui.settings.autoLock'), minutes, s.autoLockMinutes, (v) => change('auto-lock', v)),
    ...select('set-language', t('ui.settings.language'), [['en', t('ui.settings.nativeEnglish')], ['de', t('ui.settings.nativeGerman')]], language, (v) => setLanguage(v).catch(report)),
    ...select('set-theme', t('ui.settings.theme'), [['system', t('ui.settings.system')], ['dark', t('ui.settings.dark')], ['light', t('ui.settings.light')]], document.documentElement.dataset.theme, (v) => setTheme(v).catch(report)),
    h('label', { class: 'check-label', for: 'set-quick' }, quick, t('ui.settings.quickUnlock')),
    ...select('set-reminder', t('ui.settings.reminder'), reminder, s.reminderDays, (v) => change('reminder', v === '0' ? 'never' : v)),
    h('label', { for: 'set-clipboard' }, t('ui.settings.clipboard')), clipboard,
    h('label', { class: 'check-label', for: 'set-keys' }, keys, t('ui.settings.shortcuts')),
    ...(accountMaster ? [] : [h('label', { class: 'check-label', for: 'set-catalogue' }, catalogue, t('ui.settings.catalogue')),
      h('p', { class: 'hint', id: 'set-catalogue-hint' }, t('ui.settings.catalogueHint'))]),
    ...('Notification' in window ? [h('label', { class: 'check-label', for: 'set-notify' }, notify, t('ui.settings.notify')),
      h('p', { class: 'hint', id: 'set-notify-hint' }, t('ui.settings.notifyHint'))] : []), form,
    // Duress passwords, erasing and Delete All Data are the local vault's (an account's vault has none).
    ...(accountMaster ? [] : (await import('./coercion.js')).coercionSettings(s)),
    // Backups: for the local vault and an account's alike.
    await (await import('./backup.js')).backupSettings(),
    // The browser extension's pairings.
    await (await import('./browsers.js')).browserSettings(),
    // Imports of other apps' files (uploads) and exports for them (downloads).
    (await import('./importer.js')).importSettings(), (await import('./importer.js')).exportSettings(),
    // About (ACC-13, ERR-5): the version, the security design in a paragraph, and that it is not audited.
    h('section', { id: 'about' }, h('h2', {}, t('ui.about.title')),
      h('p', { id: 'about-version' }, t('ui.about.version', { version: (state.status && state.status.productVersion) || '', protocol: state.status ? state.status.protocolVersion : '' })),
      h('p', {}, t('ui.about.design')), h('p', { class: 'alertcard', role: 'note' }, t('ui.about.preview')))));
}
