// The page's shared state and the shell's actions, in one module the screens import: main.js provides the
// actions at boot, so no screen imports main.js (which imports the screens) and the import graph has no cycle.
import { t } from './i18n.js';
import { h, icon, iconTile } from './dom.js';

export const state = {
  status: null, catalog: [], view: 'items', filter: { kind: 'all' }, selected: null, sort: 'az', check: null, tags: [], vaults: [],
};

export function categoryName(name) {
  const key = 'ui.category.' + name;
  const text = t(key);
  return text === key ? name : text;
}

// An item's tile: its monogram when it is a login or has a website, else its category's icon on a plain tile.
export function itemTile(item) {
  if (item.category === 'login' || (item.websites || []).length) return iconTile(item);
  return h('span', { class: 'avatar' }, icon(categoryIcons[item.category] || 'file-text'));
}

export const categoryIcons = {
  'login': 'user', 'password': 'key-round', 'secure-note': 'sticky-note', 'credit-card': 'credit-card', 'identity': 'id-card',
  'bank-account': 'landmark', 'id-document': 'id-card', 'driver-licence': 'car', 'software-licence': 'package', 'wifi': 'wifi',
  'ssh-key': 'terminal', 'api-credential': 'code', 'server': 'server', 'database': 'database', 'recovery-phrase': 'file-key',
  'private-key': 'key', 'one-time-password': 'timer', 'document': 'file-text',
};

// The shell's actions (main.js), called through here.
const actions = {};

export function provide(given) { Object.assign(actions, given); }

export const report = (...a) => actions.report(...a);
export const route = (...a) => actions.route(...a);
export const dropVaultState = (...a) => actions.dropVaultState(...a);
export const loadVaults = (...a) => actions.loadVaults(...a);
export const refreshList = (...a) => actions.refreshList(...a);
export const openItem = (...a) => actions.openItem(...a);
export const openHistory = (...a) => actions.openHistory(...a);
// The list's summary of an item (its websites, category…), or undefined while the list has not loaded it.
export const findItem = (...a) => actions.findItem(...a);
// The open vault's counts by category and of items with a code (from the list), and a listing shown by filter.
export const vaultCounts = (...a) => actions.vaultCounts(...a);
export const showListing = (...a) => actions.showListing(...a);
export const editItem = (...a) => actions.editItem(...a);
export const mainPane = (...a) => actions.mainPane(...a);
export const showPlaceholder = (...a) => actions.showPlaceholder(...a);
export const confirmDiscard = (...a) => actions.confirmDiscard(...a);
export const refreshNotices = (...a) => actions.refreshNotices(...a);
export const changeSetting = (...a) => actions.changeSetting(...a);
export const setLanguage = (...a) => actions.setLanguage(...a);
export const setTheme = (...a) => actions.setTheme(...a);
