// Imports in the page (docs/CLI.md "Imports and exports"): a file another app exported, uploaded to the agent
// (never a path), read and shown as a preview, then brought in with one save after a second click. The
// file's own password travels as a secret. Exports stay on the command line: a page has nowhere to write.
import { call, Secret, fileBase64, UPLOAD_LIMIT } from './api.js';
import { t, errorText } from './i18n.js';
import { h, toast, announce } from './dom.js';
import { refreshList, loadVaults } from './main.js';

export function importSettings() {
  const file = h('input', { type: 'file', id: 'im-file' });
  const password = h('input', { type: 'password', id: 'im-password', autocomplete: 'current-password', spellcheck: 'false' });
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
