// Backups in the page (docs/SECURITY.md "Backups"): the backup password, a backup file or PDF to save or
// print (never to copy), auto-backup, a transfer shown as QR codes one after another, and restoring from a
// file or from images of the codes. Loaded when Settings is first shown.
import { call, Secret, fileBase64, UPLOAD_LIMIT } from './api.js';
import { t, errorText, formatDate, language } from './i18n.js';
import { h, button, clear, toast, dialog, qrCode, saveFile } from './dom.js';
import { refreshList } from './app.js';

let n = 0;
function field(label, attrs) {
  const id = `bk-${++n}`;
  const input = h('input', { id, ...attrs });
  return { input, nodes: [h('label', { for: id }, label), input] };
}
const secret = (label, autocomplete = 'new-password') => field(label, { type: 'password', autocomplete, spellcheck: 'false' });

function form(heading, hint, fields, action, send) {
  const error = h('p', { class: 'error', role: 'alert' });
  const el = h('form', {}, h('h3', {}, heading), ...(hint ? [h('p', { class: 'hint' }, hint)] : []), ...fields.flatMap((f) => f.nodes), error,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary' }, action)));
  el.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = t('ui.backup.working');
    try { await send(error); if (error.textContent === t('ui.backup.working')) error.textContent = ''; } catch (e) { error.textContent = errorText(e); }
    for (const f of fields) if (f.input.type === 'password' || f.input.type === 'file') f.input.value = '';
  });
  return el;
}

export async function backupSettings() {
  const section = h('section', { class: 'backups', 'aria-labelledby': 'bk-title' });
  await render(section);
  return section;
}

async function render(section) {
  const view = (await call('backup-view')).body;
  clear(section).append(h('h2', { id: 'bk-title' }, t('ui.backup.title')),
    h('p', { id: 'bk-last' }, view.lastBackup ? t('ui.backup.last', { date: formatDate(view.lastBackup) }) : t('ui.backup.never')));
  if (view.problem) section.append(h('p', { class: 'error', role: 'alert' }, t('ui.backup.problem', { reason: errorText({ code: view.problem.code, facts: view.problem.facts }) })));
  const current = secret(t('ui.settings.current')), next = secret(t('ui.backup.password'), 'new-password'), repeat = secret(t('ui.settings.repeat'), 'new-password');
  const hint = field(t('ui.backup.hint'), { type: 'text', maxlength: '120', value: view.hint || '', spellcheck: 'false' });
  section.append(form(t(view.passwordSet ? 'ui.backup.change' : 'ui.backup.set'), t('ui.backup.passwordHint'), [current, next, repeat, hint], t('ui.save'), async (error) => {
    if (next.input.value !== repeat.input.value) { error.textContent = t('ui.onboard.mismatch'); return; }
    await call('backup-password', { current: new Secret(current.input.value), password: new Secret(next.input.value), hint: hint.input.value });
    toast(t('ui.backup.passwordSet'));
    await render(section);
  }));
  if (!view.passwordSet) return;

  // Save and Print only (G53): the file goes where the browser saves it; nothing is copied or kept here.
  const paper = h('select', { id: 'bk-paper' }, h('option', { value: 'a4' }, 'A4'), h('option', { value: 'letter' }, 'Letter'));
  const make = async (format) => {
    const file = (await call('backup-make', { format, paper: paper.value, language })).body;
    await render(section);
    return file;
  };
  const print = async () => {
    const file = await make('pdf');
    const bytes = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
    const url = URL.createObjectURL(new Blob([bytes], { type: 'application/pdf' }));
    const frame = h('iframe', { src: url, hidden: true, title: t('ui.backup.print') });
    frame.addEventListener('load', () => { frame.contentWindow.print(); setTimeout(() => { frame.remove(); URL.revokeObjectURL(url); }, 60_000); });
    document.body.append(frame);
  };
  const act = (label, run, id) => button(label, () => run().catch((e) => toast(errorText(e))), '', { id });
  section.append(h('h3', {}, t('ui.backup.save')), h('p', { class: 'hint' }, t('ui.backup.saveHint')),
    h('label', { for: 'bk-paper' }, t('ui.backup.paper')), paper,
    h('div', { class: 'actions' }, act(t('ui.backup.file'), async () => saveFile(await make('file')), 'bk-file'),
      act(t('ui.backup.pdf'), async () => saveFile(await make('pdf')), 'bk-pdf'), act(t('ui.backup.print'), print, 'bk-print')));

  const folder = field(t('ui.backup.folder'), { type: 'text', value: view.folder || '', placeholder: '/home/…/Backups', spellcheck: 'false' });
  const days = field(t('ui.backup.keepDays'), { type: 'number', min: '1', max: '3650', value: String(view.retentionDays) });
  const auto = form(t('ui.backup.auto'), t('ui.backup.autoHint'), [folder, days], t('ui.save'), async () => {
    const shorter = view.folder && Number(days.input.value) < view.retentionDays;
    if (shorter && !await dialog(t('ui.backup.auto'), h('p', {}, t('ui.backup.shorter', { days: days.input.value })), [{ label: t('ui.cancel'), value: false }, { label: t('ui.save'), value: true }])) return;
    await call('backup-auto', folder.input.value ? { folder: folder.input.value, retentionDays: Number(days.input.value) } : { folder: null });
    toast(t(folder.input.value ? 'ui.backup.autoOn' : 'ui.backup.autoOff'));
    await render(section);
  });
  section.append(auto, transferPanel(), restoreForm(section));
}

// A transfer (TR-1): random-length codes shown one after another (2 s each), forgotten when stopped or when
// the page goes; nothing is saved, and it is no "last backup".
function transferPanel() {
  const stage = h('div', { class: 'transfer', 'aria-live': 'off' });
  let timer = null;
  const stop = () => { clearInterval(timer); timer = null; clear(stage); window.removeEventListener('pagehide', stop); };
  const start = button(t('ui.backup.transfer'), async () => {
    stop();
    try {
      const codes = (await call('backup-make', { format: 'transfer' })).body.transfer;
      let i = 0;
      const caption = h('p', { id: 'bk-code-number' });
      const show = () => {
        const code = codes[i % codes.length];
        clear(stage).append(qrCode(code, t('ui.backup.code', { number: i % codes.length + 1, total: codes.length })), caption, button(t('ui.backup.stop'), stop, '', { id: 'bk-stop' }));
        caption.textContent = t('ui.backup.code', { number: i % codes.length + 1, total: codes.length });
        i++;
      };
      show();
      timer = setInterval(show, 2000);
      window.addEventListener('pagehide', stop);
    } catch (e) { toast(errorText(e)); }
  }, '', { id: 'bk-transfer' });
  return h('div', {}, h('h3', {}, t('ui.backup.transferTitle')), h('p', { class: 'hint' }, t('ui.backup.transferHint')), start, stage);
}

// Restoring: a .pbbackup file, or images (photos, screenshots, pages) of a PDF's or a transfer's codes, in any
// order; always with the backup's own password (G59).
function restoreForm(section) {
  const files = field(t('ui.backup.files'), { type: 'file', multiple: true, accept: '.pbbackup,image/png,image/jpeg' });
  const password = secret(t('ui.backup.password'));
  const mode = h('select', { id: 'bk-mode' }, h('option', { value: 'new' }, t('ui.backup.asNew')), h('option', { value: 'replace' }, t('ui.backup.replace')));
  const el = form(t('ui.backup.restore'), t('ui.backup.restoreHint'), [files, password], t('ui.backup.restoreAction'), async (error) => {
    const chosen = [...files.input.files];
    if (!chosen.length) { error.textContent = t('ui.backup.choose'); return; }
    if (mode.value === 'replace' && !await dialog(t('ui.backup.restore'), h('p', {}, t('ui.backup.replaceConfirm')), [{ label: t('ui.cancel'), value: false }, { label: t('ui.backup.replace'), value: true, danger: true }])) return;
    if (chosen.some((f) => f.size > UPLOAD_LIMIT)) { error.textContent = t('ui.backup.tooLarge'); return; }
    const body = { password: new Secret(password.input.value), mode: mode.value, language };
    if (chosen.length === 1 && chosen[0].name.endsWith('.pbbackup')) {
      body.base64 = await fileBase64(chosen[0]);
    } else {
      body.codes = [];
      for (const f of chosen) body.codes.push(...(await call('read-qr', { image: await fileBase64(f) })).body.values);
    }
    const done = (await call('backup-restore', body)).body;
    error.textContent = '';
    toast(done.mode === 'replace' ? t('ui.backup.replaced', { count: done.items }) : t('ui.backup.restored', { count: done.items, vaults: done.vaults.join(', ') }));
    await refreshList();
    await render(section);
  });
  el.insertBefore(h('label', { for: 'bk-mode' }, t('ui.backup.mode')), el.querySelector('.error'));
  el.insertBefore(mode, el.querySelector('.error'));
  return el;
}
