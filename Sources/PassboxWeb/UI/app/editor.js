// The editor: every category's typed fields, custom fields (add, reorder, remove, concealed or not), the
// generator inline, the strength meter with its reason, and a prompt before unsaved changes are lost.
import { call, Secret } from './api.js';
import { t, errorText } from './i18n.js';
import { h, icon, iconButton, button, clear, toast } from './dom.js';
import { state, report, categoryName, openItem, refreshList, mainPane } from './app.js';
import { rateStrength } from './meter.js';
import { generatorControls } from './tools.js';
import { fieldLabel } from './item.js';

let dirty = false;
export function editorIsDirty() { return dirty && document.querySelector('form.editor') !== null; }

function fieldInput(id, template, value) {
  if (template.kind === 'multiline' || template.kind === 'multiline-hidden') {
    return h('textarea', { id, spellcheck: 'false', class: template.concealed ? 'mono' : '' }, value);
  }
  const type = template.concealed ? 'password' : 'text';
  return h('input', { id, type, value, autocomplete: template.concealed ? 'new-password' : 'off', spellcheck: 'false', 'data-concealed': template.concealed || undefined });
}

export async function showEditor(pane, { id, category }) {
  dirty = false;
  let detail = null;
  if (id) detail = (await call('show', { item: id, reveal: true })).body;
  let chosen = detail ? detail.summary.category : category;
  const catalogEntry = (name) => state.catalog.find((c) => c.name === name) || { name, fields: [] };
  const error = h('p', { class: 'error', role: 'alert' });
  const form = h('form', { class: 'editor', novalidate: true });
  const heading = h('h1', {}, detail ? t('ui.edit.title', { title: detail.summary.title }) : t('ui.edit.new', { category: categoryName(chosen) }));
  const typedBox = h('div');
  const customBox = h('div');
  let typedInputs = [];
  let customs = detail ? detail.fields.filter((f) => f.custom).map((f) => ({ id: f.id, label: f.label, value: f.value, concealed: f.concealed, original: f })) : [];

  const categorySelect = h('select', { id: 'edit-category', disabled: !!detail }, ...state.catalog.map((c) => h('option', { value: c.name, selected: c.name === chosen }, categoryName(c.name))));
  const title = h('input', { id: 'edit-title', type: 'text', value: detail ? detail.summary.title : '', autocomplete: 'off', required: true });
  // The item's whole websites and tags (a summary's are cut at 200 characters).
  const fullWebsites = detail ? (detail.websites || detail.summary.websites) : [];
  const fullTags = detail ? (detail.tags || detail.summary.tags) : [];
  const websites = h('textarea', { id: 'edit-websites', spellcheck: 'false' }, fullWebsites.join('\n'));
  const tags = h('input', { id: 'edit-tags', type: 'text', value: fullTags.join(', '), autocomplete: 'off' });
  const notes = h('textarea', { id: 'edit-notes' }, detail ? detail.notes : '');
  const favorite = h('input', { id: 'edit-favorite', type: 'checkbox', checked: detail ? detail.summary.favorite : false });
  // Phrases (the local vault's): written, never shown, so the editor looks the same whether an item has one.
  const secretInput = (id) => h('input', { id, type: 'password', autocomplete: 'new-password', spellcheck: 'false' });
  const killphrase = secretInput('edit-killphrase');
  const passphrase = secretInput('edit-passphrase');
  const dropPhrases = h('input', { id: 'edit-drop-phrases', type: 'checkbox' });
  const phrases = state.status && state.status.account ? null : h('details', {}, h('summary', {}, t('ui.edit.phrases')), h('p', { class: 'hint' }, t('ui.edit.phrasesHint')),
    h('label', { for: 'edit-killphrase' }, t('ui.edit.killphrase')), killphrase, h('label', { for: 'edit-passphrase' }, t('ui.edit.passphrase')), passphrase,
    detail ? h('label', { class: 'check-label', for: 'edit-drop-phrases' }, dropPhrases, t('ui.edit.dropPhrases')) : null);
  // A new recovery phrase or private key is saved only with a password of its own (a note or SSH key may be).
  const itemPassword = secretInput('edit-item-password');
  const itemPasswordBox = h('div');
  const renderItemPassword = () => {
    clear(itemPasswordBox);
    if (detail || !['recovery-phrase', 'private-key', 'secure-note', 'ssh-key'].includes(chosen)) return;
    itemPasswordBox.append(h('label', { for: 'edit-item-password' }, t(['recovery-phrase', 'private-key'].includes(chosen) ? 'ui.edit.itemPasswordNeeded' : 'ui.edit.itemPassword')), itemPassword);
  };
  // A new item's vault, when there is more than one (the default vault first chosen).
  const vaultSelect = !detail && state.vaults.length > 1
    ? h('select', { id: 'edit-vault' }, ...state.vaults.map((v) => h('option', { value: v.id, selected: v.isDefault }, v.name))) : null;

  const renderTyped = () => {
    clear(typedBox);
    typedInputs = [];
    for (const template of catalogEntry(chosen).fields) {
      const existing = detail ? detail.fields.find((f) => f.key === template.key) : null;
      const inputId = `edit-field-${template.key}`;
      const input = fieldInput(inputId, template, existing ? existing.value : '');
      typedInputs.push({ template, input, original: existing ? existing.value : '' });
      typedBox.append(h('label', { for: inputId }, fieldLabel(existing || { key: template.key, label: template.label })), input);
      if (template.key === 'password') {
        const meter = h('div', { class: 'meter', role: 'img', 'aria-label': t('ui.strength.meter') }, h('span'));
        const reason = h('p', { class: 'hint', 'aria-live': 'polite' });
        const rate = () => rateStrength(input.value, [title.value], meter, reason);
        input.addEventListener('input', rate);
        const genBox = h('div');
        const genButton = button([icon('wand-sparkles'), t('ui.edit.generate')], () => {
          if (genBox.firstChild) { clear(genBox); return; }
          genBox.append(generatorControls((value) => { input.value = value; input.type = 'text'; dirty = true; rate(); }));
        });
        typedBox.append(meter, reason, h('div', { class: 'row' }, genButton), genBox);
        if (input.value) rate();
      }
    }
  };

  const renderCustoms = () => {
    clear(customBox);
    customs.forEach((c, index) => {
      const labelInput = h('input', { id: `custom-label-${index}`, type: 'text', value: c.label, autocomplete: 'off' });
      const valueInput = h('input', { id: `custom-value-${index}`, type: c.concealed ? 'password' : 'text', value: c.value, autocomplete: 'off', 'aria-label': t('ui.edit.fieldValue', { label: c.label || String(index + 1) }) });
      labelInput.addEventListener('input', () => { c.label = labelInput.value; });
      valueInput.addEventListener('input', () => { c.value = valueInput.value; });
      const concealed = h('input', { id: `custom-concealed-${index}`, type: 'checkbox', checked: c.concealed, disabled: !!c.original });
      concealed.addEventListener('change', () => { c.concealed = concealed.checked; valueInput.type = c.concealed ? 'password' : 'text'; });
      const name = c.label || String(index + 1);
      customBox.append(h('div', { class: 'customfield' },
        h('div', {}, h('label', { for: `custom-label-${index}` }, t('ui.edit.fieldLabel')), labelInput),
        h('div', {}, h('label', { for: `custom-value-${index}` }, t('ui.edit.fieldValue', { label: name })), valueInput),
        h('div', { class: 'row' },
          h('label', { class: 'check-label', for: `custom-concealed-${index}` }, concealed, t('ui.edit.concealed')),
          iconButton('chevron-up', t('ui.edit.up', { label: name }), () => { if (index > 0) { [customs[index - 1], customs[index]] = [customs[index], customs[index - 1]]; dirty = true; renderCustoms(); } }),
          iconButton('chevron-down', t('ui.edit.down', { label: name }), () => { if (index < customs.length - 1) { [customs[index + 1], customs[index]] = [customs[index], customs[index + 1]]; dirty = true; renderCustoms(); } }),
          iconButton('x', t('ui.edit.remove', { label: name }), () => { customs.splice(index, 1); dirty = true; renderCustoms(); }))));
    });
  };

  categorySelect.addEventListener('change', () => { chosen = categorySelect.value; heading.textContent = t('ui.edit.new', { category: categoryName(chosen) }); renderTyped(); renderItemPassword(); });
  renderTyped();
  renderItemPassword();
  renderCustoms();
  form.addEventListener('input', () => { dirty = true; });

  const cancel = async () => {
    dirty = false;
    if (detail) await openItem(detail.summary.id);
    else clear(mainPane()).append(h('p', { class: 'empty' }, t('ui.item.none')));
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!title.value.trim()) { error.textContent = t('ui.edit.needsTitle'); title.focus(); return; }
    const changes = { fieldsFromCommandLine: [], secretFields: [], removeFields: [] };
    const websiteList = websites.value.split('\n').map((w) => w.trim()).filter(Boolean);
    const tagList = tags.value.split(',').map((w) => w.trim()).filter(Boolean);
    if (!detail || title.value !== detail.summary.title) changes.title = title.value.trim();
    if (!detail || websiteList.join('\n') !== fullWebsites.join('\n')) changes.websites = websiteList;
    if (!detail || tagList.join(',') !== fullTags.join(',')) changes.tags = tagList;
    if (!detail || notes.value !== detail.notes) changes.notes = notes.value;
    if (!detail || favorite.checked !== detail.summary.favorite) changes.favorite = favorite.checked;
    for (const { template, input, original } of typedInputs) {
      if (input.value === original) continue;
      (template.concealed ? changes.secretFields : changes.fieldsFromCommandLine).push({ label: template.key, value: input.value });
    }
    // Custom fields: those gone or renamed are removed, new and changed ones set, and their order given.
    const kept = new Set(customs.filter((c) => c.original && c.label === c.original.label).map((c) => c.original.id));
    if (detail) for (const f of detail.fields.filter((f) => f.custom)) if (!kept.has(f.id)) changes.removeFields.push(f.label);
    for (const c of customs) {
      if (!c.label.trim()) continue;
      if (c.original && c.label === c.original.label && c.value === c.original.value) continue;
      (c.concealed ? changes.secretFields : changes.fieldsFromCommandLine).push({ label: c.label.trim(), value: c.value });
    }
    changes.customOrder = customs.filter((c) => c.label.trim()).map((c) => c.label.trim());
    if (dropPhrases.checked) { changes.killphrase = ''; changes.searchPassphrase = ''; }
    if (killphrase.value) changes.killphrase = killphrase.value;
    if (passphrase.value) changes.searchPassphrase = passphrase.value;
    try {
      const reply = detail
        ? await call('edit', { item: detail.summary.id, changes })
        : await call('add', { category: chosen, changes, vault: vaultSelect ? vaultSelect.value : undefined, itemPassword: itemPassword.value ? new Secret(itemPassword.value) : undefined });
      dirty = false;
      const saved = reply.body;
      if (saved.weakPassword) {
        const label = t('strength.label.' + saved.weakPassword.score);
        toast(saved.weakPassword.warning ? t('ui.edit.weak', { label, reason: t(saved.weakPassword.warning) }) : t('ui.edit.weakNoReason', { label }), null, 8);
      } else toast(saved.keyCheck ? t(saved.keyCheck) : t('ui.edit.saved', { title: saved.title }), null, saved.keyCheck ? 8 : 4);
      state.check = null;
      // A hidden item just saved stays open until the next search (it is in no list).
      state.hiddenOpen = changes.searchPassphrase ? saved.id : (state.hiddenOpen === saved.id ? saved.id : null);
      await refreshList();
      await openItem(saved.id);
    } catch (e) {
      error.textContent = errorText(e);
    }
  });

  form.append(...[heading,
    h('label', { for: 'edit-category' }, t('ui.edit.category')), categorySelect,
    vaultSelect ? h('label', { for: 'edit-vault' }, t('ui.edit.vault')) : null, vaultSelect,
    h('label', { for: 'edit-title' }, t('ui.edit.name')), title,
    typedBox,
    h('label', { for: 'edit-websites' }, t('ui.edit.websites')), websites,
    h('label', { for: 'edit-tags' }, t('ui.edit.tags')), tags,
    h('label', { for: 'edit-notes' }, t('ui.edit.notes')), notes,
    h('label', { class: 'check-label', for: 'edit-favorite' }, favorite, t('ui.edit.favorite')),
    itemPasswordBox, phrases,
    h('h2', {}, t('ui.edit.custom')), customBox,
    button([icon('plus'), t('ui.edit.addField')], () => { customs.push({ label: '', value: '', concealed: false }); dirty = true; renderCustoms(); const inputs = customBox.querySelectorAll('input[type="text"]'); if (inputs.length) inputs[inputs.length - 2].focus(); }),
    error,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary' }, t('ui.save')), button(t('ui.cancel'), cancel))].filter(Boolean));
  pane.append(form);
  title.focus();
}
