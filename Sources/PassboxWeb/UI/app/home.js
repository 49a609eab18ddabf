// The head of the item list (LST-1, LST-2, LST-3): a big title (the vault or filter) with the count and the sync
// state ("142 items · all synced"), a chip that removes the filter, and on All items without a search the four
// category cards with their counts and the three items used last, as round tiles with how long ago.
import { t, relativeTime } from './i18n.js';
import { h, icon, iconTile, clear } from './dom.js';
import { state, categoryName, categoryIcons } from './app.js';

const CARDS = ['login', 'credit-card', 'secure-note', 'identity'];

function filterName(filter) {
  if (filter.kind === 'favorites') return t('ui.nav.favorites');
  if (filter.kind === 'recent') return t('ui.nav.recent');
  if (filter.kind === 'codes') return t('ui.nav.codes');
  if (filter.kind === 'passkeys') return t('ui.nav.passkeys');
  if (filter.kind === 'shared') return t('ui.nav.shared');
  if (filter.kind === 'category') return categoryName(filter.value);
  if (filter.kind === 'tag') return filter.value;
  if (filter.kind === 'vault') { const v = state.vaults.find((x) => x.id === filter.value); return v ? v.name : filter.value; }
  return t('ui.nav.all');
}

// "all synced", "3 changes to send", "not synced" for an account; "on this device" for the local vault.
export function syncState(status) {
  if (!status || !status.account) return t('ui.home.local');
  const sync = status.sync;
  if (!sync || sync.lastFailure) return t('ui.home.notSynced');
  if (sync.queued > 0) return t('ui.home.queued', { count: sync.queued });
  return sync.lastSync ? t('ui.home.synced') : t('ui.home.notSynced');
}


// "142 items · all synced".
export function countLine(total) { return `${t('ui.list.count', { count: total })} · ${syncState(state.status)}`; }

// `list` is the shell's ItemList; `go(filter)` shows a filter, `open(id)` an item, `sync()` syncs as the notices' button.
export function renderHome(box, list, total, { go, open, sync, searching, vault }) {
  const filter = state.filter || { kind: 'all' };
  const name = filterName(filter);
  const pickButton = h('button', { type: 'button', class: 'button ghost icon-only', id: 'pick-start', 'aria-label': t('ui.pick.start'), title: t('ui.pick.start'), 'aria-pressed': list.picking ? 'true' : 'false', onclick: () => list.setPicking(!list.picking) }, icon('list-checks'));
  const syncButton = state.status && state.status.account
    ? h('button', { type: 'button', class: 'button ghost icon-only', id: 'sync-now', 'aria-label': t('ui.home.sync'), title: t('ui.home.sync'), onclick: sync }, icon('refresh-cw'))
    : null;
  clear(box).append(...[
    h('div', { class: 'hometitle' },
      h('div', { class: 'grow' }, h('h2', { id: 'home-title' }, name),
        h('p', { class: 'muted', id: 'home-count' }, countLine(total))),
      pickButton, syncButton,
      // A narrow window shows the detail pane, where a chosen vault's Edit and Delete are, on request (LST-15).
      filter.kind === 'vault' && state.vaults.length > 1 ? h('button', { type: 'button', class: 'button ghost icon-only narrow-only', id: 'vault-open', 'aria-label': t('ui.vault.editButton'), title: t('ui.vault.editButton'), onclick: vault }, icon('pencil')) : null),
    filter.kind !== 'all' ? h('div', { class: 'chips' }, h('button', { type: 'button', class: 'chip', 'aria-pressed': 'true', id: 'filter-chip', 'aria-label': t('ui.home.removeFilter', { name }), onclick: () => go({ kind: 'all' }) }, name, icon('x'))) : null].filter(Boolean));
  if (filter.kind !== 'all' || searching) return;
  const counts = list.categoryCounts();
  box.append(h('div', { class: 'catcards', role: 'group', 'aria-label': t('ui.home.categories') }, ...CARDS.map((c) =>
    h('button', { type: 'button', class: 'catcard', 'data-category': c, 'aria-label': t('ui.home.card.count', { name: t('ui.home.card.' + c), count: counts[c] || 0 }), onclick: () => go({ kind: 'category', value: c }) },
      h('span', { class: 'cattile' }, icon(categoryIcons[c])), h('strong', {}, String(counts[c] || 0)), h('span', {}, t('ui.home.card.' + c))))));
  const recent = list.all.filter((i) => i && i.lastUsed).sort((a, b) => b.lastUsed - a.lastUsed).slice(0, 3);
  if (recent.length) {
    box.append(h('h3', { class: 'homehead' }, t('ui.nav.recent')), h('ul', { class: 'recenttiles' }, ...recent.map((item) =>
      h('li', {}, h('button', { type: 'button', class: 'recenttile', onclick: () => open(item.id) }, iconTile(item), h('span', { class: 'name' }, item.title), h('span', { class: 'muted' }, relativeTime(item.lastUsed)))))));
  }
}
