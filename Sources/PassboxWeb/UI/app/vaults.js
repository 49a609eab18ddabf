// Vaults in the page (VLT-1, VLT-2, VLT-5): each with its icon and colour in the navigation, "New vault", and a
// chosen vault's Edit (name, icon, colour), the agent's `vault-create` and `vault-edit`. The vault last chosen
// is remembered on this browser and shown again at the next visit, when it still exists.
import { call } from './api.js';
import { t, ready } from './i18n.js';
import { h, icon, dialog, toast } from './dom.js';
import { state, report, loadVaults } from './app.js';

// The agent's vault icons (VaultIcon) as Lucide's, and its ten colours.
export const VAULT_ICONS = {
  house: 'house', briefcase: 'briefcase', star: 'star', heart: 'heart', lock: 'lock', key: 'key', globe: 'globe', folder: 'folder',
  card: 'credit-card', person: 'user', people: 'users', cloud: 'cloud', code: 'code', gift: 'gift',
};
export const VAULT_COLOURS = ['blue', 'green', 'orange', 'red', 'purple', 'pink', 'teal', 'yellow', 'brown', 'grey'];

// A vault's mark: its icon in its colour.
export function vaultIcon(vault) {
  return h('span', { class: `icon i-${VAULT_ICONS[vault.icon] || 'folder'} vaultmark v-${VAULT_COLOURS.includes(vault.colour) ? vault.colour : 'blue'}`, 'aria-hidden': 'true' });
}

const REMEMBERED = 'passbox.vault';
export function rememberVault(filter) {
  if (filter.kind === 'vault') localStorage.setItem(REMEMBERED, filter.value); else localStorage.removeItem(REMEMBERED);
}
// The filter to start with: the vault chosen last, when it is still there.
export function rememberedFilter() {
  const id = localStorage.getItem(REMEMBERED);
  return id && state.vaults.some((v) => v.id === id) ? { kind: 'vault', value: id } : null;
}

// The form of a vault's name, icon and colour; resolves with {name, icon, colour} or null (cancelled).
async function vaultForm(title, vault, action) {
  await ready();
  const name = h('input', { id: 'vault-name', type: 'text', value: vault ? vault.name : '', autocomplete: 'off', maxlength: '100', required: true });
  const radios = (group, values, current, render) => h('div', { class: 'swatches', role: 'radiogroup', 'aria-label': t(`ui.vault.${group}`) }, ...values.map((value) => {
    const input = h('input', { type: 'radio', name: `vault-${group}`, value, id: `vault-${group}-${value}`, checked: value === current });
    return h('label', { class: 'swatch', for: `vault-${group}-${value}`, title: t(`ui.vault.${group}.${value}`) }, input, render(value), h('span', { class: 'sr-only' }, t(`ui.vault.${group}.${value}`)));
  }));
  const icons = radios('icon', Object.keys(VAULT_ICONS), vault ? vault.icon : 'folder', (v) => h('span', { class: `icon i-${VAULT_ICONS[v]}`, 'aria-hidden': 'true' }));
  const colours = radios('colour', VAULT_COLOURS, vault ? vault.colour : 'teal', (v) => h('span', { class: `dot v-${v}`, 'aria-hidden': 'true' }));
  const body = h('div', {}, h('label', { for: 'vault-name' }, t('ui.vault.name')), name, h('p', { class: 'label' }, t('ui.vault.icon')), icons, h('p', { class: 'label' }, t('ui.vault.colour')), colours);
  const pressed = await dialog(title, body, [{ label: t('ui.cancel'), value: false }, { label: action, value: true, primary: true }]);
  if (!pressed || !name.value.trim()) return null;
  const chosen = (group) => (body.querySelector(`input[name="vault-${group}"]:checked`) || {}).value;
  return { name: name.value.trim(), icon: chosen('icon'), colour: chosen('colour') };
}

export async function newVault(go) {
  const values = await vaultForm(t('ui.vault.new'), null, t('ui.vault.create'));
  if (!values) return;
  try {
    const made = (await call('vault-create', values)).body;
    await loadVaults();
    toast(t('ui.vault.created', { name: made.name }));
    await go({ kind: 'vault', value: made.id });
  } catch (e) { report(e); }
}

export async function editVault(vault, go) {
  const values = await vaultForm(t('ui.vault.edit', { name: vault.name }), vault, t('ui.save'));
  if (!values) return;
  try {
    await call('vault-edit', { vault: vault.id, ...values });
    await loadVaults();
    await go({ kind: 'vault', value: vault.id });
  } catch (e) { report(e); }
}
