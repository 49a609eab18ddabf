// The editor: every category's typed fields, custom fields (add, reorder, remove, concealed or not), the
// generator inline, the strength meter with its reason, and a prompt before unsaved changes are lost.
import { call, Secret, fileBase64, UPLOAD_LIMIT } from './api.js';
import { t, errorText, ready } from './i18n.js';
import { h, icon, iconButton, button, clear, toast, announce } from './dom.js';
import { state, report, categoryName, itemTile, openItem, refreshList, showPlaceholder, confirmDiscard } from './app.js';
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
  await ready();
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
  // An http address gets the one-click https fix (EDT-6); the tile above the form follows title and website.
  const httpsFix = h('p', { class: 'hint', id: 'edit-https', hidden: true });
  const tile = h('span', { id: 'edit-tile' });
  const refreshLook = () => {
    const lines = websites.value.split('\n').map((l) => l.trim()).filter(Boolean);
    clear(tile).append(itemTile({ category: chosen, title: title.value || '?', websites: lines }));
    const plain = lines.filter((l) => /^http:\/\//i.test(l));
    httpsFix.hidden = plain.length === 0;
    clear(httpsFix).append(...(plain.length ? [t('ui.edit.http', { count: plain.length }), ' ',
      button(t('ui.edit.useHttps'), () => { websites.value = websites.value.replace(/^(\s*)http:\/\//gim, '$1https://'); dirty = true; refreshLook(); }, 'ghost', { id: 'edit-use-https' })] : []));
  };
  title.addEventListener('input', refreshLook);
  websites.addEventListener('input', refreshLook);
  // EDT-1: a two-factor code set up with the item: the QR image the site shows (saved as a file) or its setup key
  // or otpauth:// link, added once the item is saved (read through the agent, as the item's Add a one-time code).
  const hasCode = !!detail && detail.fields.some((f) => f.code);
  const codeImage = h('input', { id: 'edit-code-image', type: 'file', accept: 'image/png,image/jpeg' });
  const codeText = h('input', { id: 'edit-code-text', type: 'text', autocomplete: 'off', spellcheck: 'false' });
  for (const input of [codeImage, codeText]) input.addEventListener('change', () => { dirty = true; });
  const twoFactor = hasCode || (detail && (detail.summary.locked || detail.summary.viewOnly)) ? null
    : h('details', { id: 'edit-two-factor' }, h('summary', {}, t('ui.edit.twoFactor')), h('p', { class: 'hint' }, t('ui.edit.twoFactorHelp')),
      h('label', { for: 'edit-code-image' }, t('ui.item.codeImage')), codeImage, h('label', { for: 'edit-code-text' }, t('ui.item.codeText')), codeText);
  const addCodeTo = async (id) => {
    const file = codeImage.files && codeImage.files[0];
    let setups = codeText.value.trim() ? [codeText.value.trim()] : [];
    if (file) {
      if (file.size > UPLOAD_LIMIT) { toast(t('ui.item.imageTooLarge'), null, 8); return; }
      setups = (await call('read-qr', { image: await fileBase64(file) })).body.values;
    }
    if (setups.length) await call('set-one-time-password', { item: id, setups });
  };
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
  // New items go to the vault the list shows, else the default one (VLT-7, EDT-4).
  const shown = state.filter && state.filter.kind === 'vault' ? state.filter.value : null;
  const vaultSelect = !detail && state.vaults.length > 1
    ? h('select', { id: 'edit-vault' }, ...state.vaults.map((v) => h('option', { value: v.id, selected: shown ? v.id === shown : v.isDefault }, v.name))) : null;

  const renderTyped = () => {
    clear(typedBox);
    typedInputs = [];
    for (const template of catalogEntry(chosen).fields) {
      const existing = detail ? detail.fields.find((f) => f.key === template.key) : null;
      const inputId = `edit-field-${template.key}`;
      const input = fieldInput(inputId, template, existing ? existing.value : '');
      typedInputs.push({ template, input, original: existing ? existing.value : '' });
      const label = fieldLabel(existing || { key: template.key, label: template.label });
      // A concealed field has its reveal toggle beside it (EDT-1); the value is masked again when the tab hides.
      // The button says what it does next: reveal while the value is hidden, hide while it shows.
      const look = () => {
        const shown = input.type !== 'password';
        reveal.setAttribute('aria-label', t(shown ? 'ui.item.conceal' : 'ui.item.reveal', { label }));
        reveal.title = reveal.getAttribute('aria-label');
        reveal.firstChild.className = `icon i-${shown ? 'eye-off' : 'eye'}`;
      };
      const reveal = template.concealed && input.tagName === 'INPUT' ? iconButton('eye', t('ui.item.reveal', { label }), () => {
        input.type = input.type === 'password' ? 'text' : 'password';
        look();
      }, { 'data-reveal': template.key }) : null;
      // Hiding the tab masks it again (maskRevealed), and the button follows.
      if (reveal) reveal.addEventListener('masked', look);
      typedBox.append(h('label', { for: inputId }, label), reveal ? h('div', { class: 'row' }, h('div', { class: 'grow' }, input), reveal) : input);
      if (template.key === 'password') {
        const meter = h('div', { class: 'meter', role: 'img', 'aria-label': t('ui.strength.meter') }, h('span'));
        const reason = h('p', { class: 'hint', 'aria-live': 'polite' });
        const rate = () => rateStrength(input.value, [title.value], meter, reason);
        input.addEventListener('input', rate);
        const genBox = h('div');
        const genButton = button([icon('wand-sparkles'), t('ui.edit.generate')], () => {
          if (genBox.firstChild) { clear(genBox); return; }
          genBox.append(generatorControls((value) => { input.value = value; input.type = 'text'; if (reveal) look(); dirty = true; rate(); }));
        });
        typedBox.append(meter, reason, h('div', { class: 'row' }, genButton), genBox);
        if (input.value) rate();
      }
    }
  };

  // EDT-2: a custom field is dragged by its handle to another place (pointer events: mouse, pen and touch alike);
  // the keyboard has the up and down buttons. The order is taken once the handle is let go.
  const dragField = (event, index, name) => {
    if (event.button !== 0 || customs.length < 2) return;
    event.preventDefault();
    const grip = event.currentTarget;
    const rows = [...customBox.querySelectorAll('.customfield')];
    const row = rows[index];
    const boxes = rows.map((r) => r.getBoundingClientRect());
    const startY = event.clientY;
    let target = index;
    row.classList.add('dragging');
    // The moves are followed on the document (a pointer that leaves the handle, or one whose capture a browser
    // does not grant, still drags).
    try { grip.setPointerCapture(event.pointerId); } catch (e) { /* followed on the document anyway */ }
    const move = (e) => {
      const dy = e.clientY - startY;
      row.style.transform = `translateY(${dy}px)`;
      const centre = boxes[index].top + boxes[index].height / 2 + dy;
      const below = boxes.findIndex((b) => centre < b.top + b.height / 2);
      target = below < 0 ? rows.length - 1 : (below > index ? below - 1 : below);
    };
    const end = () => {
      document.removeEventListener('pointermove', move);
      document.removeEventListener('pointerup', end);
      document.removeEventListener('pointercancel', end);
      row.classList.remove('dragging');
      row.style.transform = '';
      if (target === index) return;
      const [moved] = customs.splice(index, 1);
      customs.splice(target, 0, moved);
      dirty = true;
      renderCustoms();
      announce(t('ui.edit.movedTo', { label: name, position: target + 1 }));
    };
    document.addEventListener('pointermove', move);
    document.addEventListener('pointerup', end);
    document.addEventListener('pointercancel', end);
  };

  const renderCustoms = () => {
    clear(customBox);
    customs.forEach((c, index) => {
      const labelInput = h('input', { id: `custom-label-${index}`, type: 'text', value: c.label, autocomplete: 'off' });
      const valueInput = h('input', { id: `custom-value-${index}`, type: c.concealed ? 'password' : 'text', value: c.value, autocomplete: c.concealed ? 'new-password' : 'off', 'aria-label': t('ui.edit.fieldValue', { label: c.label || String(index + 1) }) });
      const valueLabel = h('label', { for: `custom-value-${index}` }, t('ui.edit.fieldValue', { label: c.label || String(index + 1) }));
      // The value's name follows the label as it is typed.
      labelInput.addEventListener('input', () => {
        c.label = labelInput.value;
        const named = t('ui.edit.fieldValue', { label: c.label || String(index + 1) });
        valueLabel.textContent = named;
        valueInput.setAttribute('aria-label', named);
      });
      valueInput.addEventListener('input', () => { c.value = valueInput.value; });
      const concealed = h('input', { id: `custom-concealed-${index}`, type: 'checkbox', checked: c.concealed, disabled: !!c.original });
      concealed.addEventListener('change', () => { c.concealed = concealed.checked; valueInput.type = c.concealed ? 'password' : 'text'; });
      const name = c.label || String(index + 1);
      const grip = h('span', { class: 'grip', title: t('ui.edit.drag', { label: name }), 'aria-hidden': 'true', 'data-grip': String(index) }, icon('grip-vertical'));
      grip.addEventListener('pointerdown', (event) => dragField(event, index, name));
      customBox.append(h('div', { class: 'customfield' }, grip,
        h('div', {}, h('label', { for: `custom-label-${index}` }, t('ui.edit.fieldLabel')), labelInput),
        h('div', {}, valueLabel, valueInput),
        h('div', { class: 'row' },
          h('label', { class: 'check-label', for: `custom-concealed-${index}` }, concealed, t('ui.edit.concealed')),
          iconButton('chevron-up', t('ui.edit.up', { label: name }), () => { if (index > 0) { [customs[index - 1], customs[index]] = [customs[index], customs[index - 1]]; dirty = true; renderCustoms(); } }),
          iconButton('chevron-down', t('ui.edit.down', { label: name }), () => { if (index < customs.length - 1) { [customs[index + 1], customs[index]] = [customs[index], customs[index + 1]]; dirty = true; renderCustoms(); } }),
          iconButton('x', t('ui.edit.remove', { label: name }), () => { customs.splice(index, 1); dirty = true; renderCustoms(); }))));
    });
  };

  categorySelect.addEventListener('change', () => { chosen = categorySelect.value; heading.textContent = t('ui.edit.new', { category: categoryName(chosen) }); renderTyped(); renderItemPassword(); refreshLook(); });
  renderTyped();
  renderItemPassword();
  renderCustoms();
  form.addEventListener('input', () => { dirty = true; });

  // Cancel with unsaved changes asks first; Ctrl+S (⌘S) saves from anywhere in the form (EDT-3).
  const cancel = async () => {
    if (dirty && !(await confirmDiscard())) return;
    dirty = false;
    if (detail) await openItem(detail.summary.id);
    else showPlaceholder();
  };

  let saving = false;
  form.addEventListener('keydown', (event) => {
    if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 's') { event.preventDefault(); if (!event.repeat && !saving) form.requestSubmit(); }
  });
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
    if (saving) return;
    saving = true;
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
      // The code after the item: the item is saved whatever becomes of it, and a failure is said on its page.
      let codeFailure = null;
      if (twoFactor && ((codeImage.files && codeImage.files[0]) || codeText.value.trim())) {
        try { await addCodeTo(saved.id); } catch (e) { codeFailure = e; }
      }
      state.check = null;
      // A hidden item just saved stays open until the next search (it is in no list).
      state.hiddenOpen = changes.searchPassphrase ? saved.id : (state.hiddenOpen === saved.id ? saved.id : null);
      await refreshList();
      await openItem(saved.id);
      if (codeFailure) report(codeFailure);
    } catch (e) {
      error.textContent = errorText(e);
    } finally { saving = false; }
  });

  refreshLook();
  form.append(...[h('div', { class: 'detailhead' }, tile, heading),
    h('label', { for: 'edit-category' }, t('ui.edit.category')), categorySelect,
    vaultSelect ? h('label', { for: 'edit-vault' }, t('ui.edit.vault')) : null, vaultSelect,
    h('label', { for: 'edit-title' }, t('ui.edit.name')), title,
    typedBox,
    h('label', { for: 'edit-websites' }, t('ui.edit.websites')), websites, httpsFix,
    twoFactor,
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
