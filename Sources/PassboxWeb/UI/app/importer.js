// Imports and exports in the page (docs/CLI.md "Imports and exports"). An import: a file another app
// exported, uploaded to the agent (never a path), read and shown as a preview, then brought in with one save
// after a second click; the file's own password travels as a secret. An export: made by the agent and handed
// back as a download (never a path of the agent's); a plain one only after two confirmations.
import { call, Secret, fileBase64, UPLOAD_LIMIT } from './api.js';
import { t, errorText } from './i18n.js';
import { h, toast, announce, dialog, saveFile } from './dom.js';
import { refreshList, loadVaults } from './app.js';

export function importSettings() {
  const file = h('input', { type: 'file', id: 'im-file' });
  const password = h('input', { type: 'password', id: 'im-password', autocomplete: 'new-password', spellcheck: 'false' });
  const vaults = h('input', { type: 'checkbox', id: 'im-vaults' });
  const out = h('div', { id: 'im-preview', 'aria-live': 'polite' });
  const error = h('p', { class: 'error', role: 'alert' });
  const go = h('button', { type: 'button', class: 'button primary', id: 'im-confirm', hidden: true }, '');
  let request = null;

  const body = async (confirm) => ({ ...request, password: password.value ? new Secret(password.value) : undefined, confirm });
  const preview = async () => {
    error.textContent = '';
    out.replaceChildren();
    go.hidden = true;
    const chosen = file.files[0];
    if (!chosen) { error.textContent = t('ui.import.choose'); return; }
    if (chosen.size > UPLOAD_LIMIT) { error.textContent = t('ui.import.tooLarge'); return; }
    request = { format: 'auto', base64: await fileBase64(chosen), name: chosen.name, groups: vaults.checked ? 'vaults' : 'tags', keepDuplicates: false };
    error.textContent = t('ui.backup.working');
    try {
      const p = (await call('import-items', await body(false))).body;
      error.textContent = '';
      const lines = [t('ui.import.read', { source: p.source }), t('ui.import.would', { count: p.items, vault: p.vault, trashed: p.trashed })];
      if (p.attachments) lines.push(t('ui.import.files', { count: p.attachments }));
      if (p.newVaults.length) lines.push(t('ui.import.newVaults', { names: p.newVaults.join(', ') }));
      if (p.duplicates) lines.push(t('ui.import.duplicates', { count: p.duplicates, titles: p.duplicateTitles.join(', ') }));
      for (const [reason, n] of Object.entries(p.notBrought)) lines.push(t('ui.import.notBrought', { count: n, what: t('import.notBrought.' + reason) }));
      if (p.refused) lines.push(t('ui.import.refused', { count: p.refused }));
      out.replaceChildren(h('ul', {}, ...lines.map((l) => h('li', {}, l))));
      if (p.items + p.trashed > 0) {
        go.textContent = t('ui.import.confirm', { count: p.items + p.trashed });
        go.hidden = false;
      }
    } catch (e) { error.textContent = errorText(e); }
  };
  go.addEventListener('click', async () => {
    error.textContent = t('ui.backup.working');
    try {
      const done = (await call('import-items', await body(true))).body;
      error.textContent = '';
      go.hidden = true;
      password.value = '';
      file.value = '';
      request = null;
      out.replaceChildren(h('p', {}, t('ui.import.done', { count: done.items + done.trashed })));
      announce(t('ui.import.done', { count: done.items + done.trashed }));
      toast(t('ui.import.done', { count: done.items + done.trashed }));
      await loadVaults();
      await refreshList();
    } catch (e) { error.textContent = errorText(e); }
  });
  file.addEventListener('change', () => { out.replaceChildren(); go.hidden = true; });
  return h('section', { class: 'imports', 'aria-labelledby': 'im-title' },
    h('h2', { id: 'im-title' }, t('ui.import.title')), h('p', { class: 'hint' }, t('ui.import.hint')),
    h('label', { for: 'im-file' }, t('ui.import.file')), file,
    h('label', { for: 'im-password' }, t('ui.import.password')), password,
    h('label', { class: 'check-label', for: 'im-vaults' }, vaults, t('ui.import.groupsAsVaults')),
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'button', id: 'im-preview-button', onclick: preview }, t('ui.import.preview')), go),
    error, out);
}

export function exportSettings() {
  const format = h('select', { id: 'ex-format' },
    h('option', { value: 'kdbx' }, t('ui.export.kdbx')), h('option', { value: 'bitwarden-json' }, t('ui.export.plain')));
  const password = h('input', { type: 'password', id: 'ex-password', autocomplete: 'new-password', spellcheck: 'false' });
  const again = h('input', { type: 'password', id: 'ex-confirm', autocomplete: 'new-password', spellcheck: 'false' });
  const secret = h('div', { class: 'ex-secret' },
    h('label', { for: 'ex-password' }, t('ui.export.password')), password, h('label', { for: 'ex-confirm' }, t('ui.export.confirm')), again);
  const out = h('div', { id: 'ex-result', 'aria-live': 'polite' });
  const error = h('p', { class: 'error', role: 'alert' });
  format.addEventListener('change', () => { secret.hidden = format.value !== 'kdbx'; out.replaceChildren(); error.textContent = ''; });

  const go = async () => {
    error.textContent = '';
    out.replaceChildren();
    let request;
    if (format.value === 'kdbx') {
      if (password.value !== again.value) { error.textContent = t('ui.export.mismatch'); return; }
      request = { format: 'kdbx', password: new Secret(password.value) };
    } else {
      // Asked twice, as the command line does: the file holds every secret in plain text.
      const first = await dialog(t('ui.export.plain'), h('p', {}, t('ui.export.plainWarn')),
        [{ label: t('ui.cancel'), value: false }, { label: t('ui.export.continue'), value: true, danger: true }]);
      if (!first) return;
      const second = await dialog(t('ui.export.plain'), h('p', {}, t('ui.export.plainAgain')),
        [{ label: t('ui.cancel'), value: false }, { label: t('ui.export.plainGo'), value: true, danger: true }]);
      if (!second) return;
      request = { format: 'bitwarden-json', plainConfirmed: true };
    }
    error.textContent = t('ui.backup.working');
    try {
      const done = (await call('export-items', request)).body;
      error.textContent = '';
      password.value = '';
      again.value = '';
      saveFile(done);
      const lines = [t('ui.export.done', { count: done.entries, name: done.name })];
      for (const [reason, n] of Object.entries(done.leftOut)) lines.push(t('ui.export.leftOut', { count: n, what: t('export.leftOut.' + reason) }));
      lines.push(t('ui.export.outside'));
      out.replaceChildren(h('ul', {}, ...lines.map((l) => h('li', {}, l))));
      announce(lines[0]);
    } catch (e) { error.textContent = errorText(e); }
  };
  return h('section', { class: 'exports', 'aria-labelledby': 'ex-title' },
    h('h2', { id: 'ex-title' }, t('ui.export.title')), h('p', { class: 'hint' }, t('ui.export.hint')),
    h('label', { for: 'ex-format' }, t('ui.export.format')), format, secret,
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'button', id: 'ex-go', onclick: go }, t('ui.export.go'))),
    error, out);
}
