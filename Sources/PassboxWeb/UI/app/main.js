// Passbox web UI: boot, routing, the shell (navigation, list, main pane), locking and keyboard shortcuts.
import { call, SessionLost, AgentGone, activity } from './api.js';
import { t, loadLanguage, language, errorText, translateTree, formatDate, ready } from './i18n.js';
import { h, icon, button, clear, toast, dialog, brand, emptyState, closeMenu } from './dom.js';
import { ItemList } from './list.js';
import { showLock, showNoSession, showOffline, showOnboarding } from './gate.js';
import { showItem, showHistory, maskRevealed } from './item.js';
import { showCheck } from './check.js';
import { renderHome, countLine } from './home.js';
import { pickBar } from './picker.js';
import { vaultIcon, newVault, editVault, rememberVault, rememberedFilter } from './vaults.js';
import { showGenerator, showTrash, showSettings, browserNotifying } from './tools.js';
import { state, categoryName, categoryIcons, provide } from './app.js';

const root = document.getElementById('root');
let list = null;
let pollTimer = null;

// Any failure: a lost session or a gone agent changes the screen; anything else is said in a toast.
function report(error) {
  if (error instanceof SessionLost) return showNoSession();
  if (error instanceof AgentGone) return toast(t('ui.offline'));
  if (error && error.code === 'locked') { state.status = { ...(state.status || {}), unlocked: false }; return showLock(); }
  toast(errorText(error), null, 8);
}

// The theme (DS-1): the agent's setting (settings.json) once it is known; until then this origin's last one, so
// a light page does not flash dark. Unset, the system's setting decides (tokens.css: prefers-color-scheme).
function applyTheme(theme) {
  const chosen = theme || localStorage.getItem('passbox.theme');
  document.documentElement.dataset.theme = ['light', 'dark'].includes(chosen) ? chosen : 'system';
  localStorage.setItem('passbox.theme', document.documentElement.dataset.theme);
}

async function boot() {
  provide({ report, route, dropVaultState, loadVaults, refreshList, openItem, openHistory, editItem, mainPane, showPlaceholder, confirmDiscard, refreshNotices, changeSetting, setLanguage, setTheme, findItem: (id) => (list ? list.item(id) : undefined),
    vaultCounts: () => (list ? { categories: list.categoryCounts(), codes: list.codeCount(), passkeys: list.passkeyCount(), shared: list.sharedCount() } : { categories: {}, codes: 0, passkeys: 0, shared: 0 }), showListing: (filter) => navigate(filter) });
  applyTheme();
  // Language, theme, clipboard time and shortcuts are the agent's settings: they outlast its port.
  // The strings, the catalogue and the agent's status at once: none waits for another.
  const catalog = fetch('/catalog.json', { cache: 'no-store' }).then((r) => r.json());
  const status = call('status');
  status.catch(() => {});
  const settings = call('settings');
  settings.catch(() => {});
  // The list's first page too, in case the vault is unlocked (a locked agent answers `locked`, ignored).
  state.firstPage = call('list', { favoritesOnly: false, offset: 0, limit: 100, sort: 'az' });
  state.firstPage.catch(() => {});
  // The strings in the language last spoken here (else the browser's), fetched at once; again only when the
  // agent's setting names another.
  const guess = localStorage.getItem('passbox.lang') || ((navigator.language || 'en').toLowerCase().startsWith('de') ? 'de' : 'en');
  const strings = loadLanguage(guess);
  try { state.settings = (await settings).body; } catch (e) { state.settings = {}; }
  applyTheme(state.settings.webTheme);
  await strings;
  if (state.settings.webLanguage && state.settings.webLanguage !== guess) await loadLanguage(state.settings.webLanguage);
  if (state.settings.webLanguage) localStorage.setItem('passbox.lang', state.settings.webLanguage);
  document.title = t('ui.app.name');
  translateTree(document);
  try {
    state.catalog = await catalog;
    await route(await status);
  } catch (e) {
    report(e);
  }
  pollTimer = setInterval(poll, 2000);
  document.addEventListener('visibilitychange', hiddenOrShown);
  document.addEventListener('keydown', shortcuts);
  for (const kind of ['keydown', 'keyup']) document.addEventListener(kind, capsLock, true);
  window.addEventListener('beforeunload', (event) => { if (editorIsDirty()) { event.preventDefault(); event.returnValue = ''; } });
}

async function route(known) {
  const reply = known || await call('status');
  state.status = reply.body;
  if (state.status.vaultExists === false) return showOnboarding();
  if (!state.status.unlocked) return showLock();
  return showShell();
}

// The agent may lock at any moment (its timer, the session, `passbox lock`): every tab then drops what it
// shows and goes to the lock page.
// An agent that stopped (or cannot be reached) drops the screens too, and the page waits for it.
let offline = false;
// The vault's change mark the page last showed, and when it was last noted.
const followed = { mark: undefined, at: 0 };
// After a request of the page's own that may have changed the vault: the mark as it is now is the page's own
// (the code that made the change shows it), so the next poll reloads the list only for someone else's change.
async function ownChange() {
  try {
    const reply = await call('status');
    if (reply.body.unlocked) { followed.mark = reply.body.vaultMark; followed.at = Date.now(); }
  } catch (e) { /* the poll says what went wrong */ }
}
activity.changed = ownChange;
// SEC-18 in the page: a browser notification when a newly published breach puts more logins at risk, once this
// browser was allowed (Settings) and while the page is not in front (in front, its notice says it). It says how
// many logins, never which. The alerts the page finds at its first poll are its notice's, not a notification's.
let alertsSeen = null;
function notifyInBrowser(alerts) {
  const before = alertsSeen;
  alertsSeen = alerts || 0;
  if (before === null || !(alerts > before)) return;
  if (!browserNotifying()) return;
  if (document.visibilityState === 'visible' && document.hasFocus()) return;
  try {
    const note = new Notification('Passbox', { body: t('ui.breach.alert', { count: alerts }), tag: 'passbox-breach' });
    note.onclick = () => { window.focus(); note.close(); navigate({ view: 'check' }); };
  } catch (e) { /* a browser without page notifications (a phone's): the notice says it */ }
}
async function poll() {
  try {
    const reply = await call('status');
    const wasUnlocked = state.status && state.status.unlocked;
    const noticesBefore = JSON.stringify(state.status && [state.status.sync, state.status.account, state.status.breachAlerts]);
    const vaultBefore = state.status && state.status.vault + '|' + state.status.vaultExists;
    state.status = reply.body;
    // Locked, the agent's count starts again (and another vault may open): the next unlock's is a new baseline.
    if (state.status.unlocked) notifyInBrowser(state.status.breachAlerts); else alertsSeen = null;
    if (offline) { offline = false; await route(); return; }
    // A lock drops the screen (and a sign-out in another tab leaves no vault to unlock: route says which).
    if (wasUnlocked && !state.status.unlocked) { state.holdScreen = false; await route(reply); return; }
    if (state.holdScreen) return;
    // Locked, and the data directory now serves another vault (signed out or in elsewhere): its screen.
    if (!state.status.unlocked && vaultBefore !== state.status.vault + '|' + state.status.vaultExists) { await route(reply); return; }
    // The notices only when they changed (so a focused Sync now button keeps its focus).
    if (state.status.unlocked && shell.notices && document.body.contains(shell.notices) && JSON.stringify([state.status.sync, state.status.account, state.status.breachAlerts]) !== noticesBefore) {
      renderNotices();
      // The list head's sync state too ("all synced"), without redrawing its buttons.
      const count = document.getElementById('home-count');
      if (count && list) count.textContent = countLine(list.total || 0);
    }
    // Another client's change to the open vault (the CLI, another tab, the browser extension, or a sync that
    // brought another device's): the list follows it within a poll, keeping its place and the keyboard's row.
    // After each request of its own that may change the vault, the page notes the mark as it is then
    // (ownChange); a poll while such a request is on its way leaves the mark to it.
    const mark = state.status.unlocked && list ? state.status.vaultMark : undefined;
    if (mark === undefined || followed.mark === undefined) {
      followed.mark = mark;
    } else if (activity.at >= followed.at) {
      // A change of the page's own is under way: its ownChange notes the mark.
    } else if (mark !== followed.mark) {
      followed.mark = mark;
      // (Its own requests are done before `at` moves on: they are not taken for the page's own changes.)
      await Promise.all([loadVaults(), list.reload()]);
    }
    followed.at = Date.now();
  } catch (e) {
    if (e instanceof SessionLost) { clearInterval(pollTimer); showNoSession(); }
    else if (e instanceof AgentGone && !offline) { offline = true; showOffline(); }
  }
}

// Everything the open vault showed is dropped: the DOM, the list, the Security Check.
function dropVaultState() {
  closeMenu();
  if (list) list.destroy();
  list = null;
  state.selected = null;
  state.check = null;
  state.risk = null;
  state.tags = [];
  state.vaults = [];
  state.firstPage = null;
  for (const d of document.querySelectorAll('dialog')) d.remove();
  state.view = 'items';
  state.filter = { kind: 'all' };
  clear(root);
  clear(document.getElementById('toasts'));
}

const shell = {};

function navButton(label, iconName, filterOrView, count) {
  const b = h('button', { type: 'button', class: 'nav-item' }, typeof iconName === 'string' ? icon(iconName) : iconName, h('span', {}, label), count !== undefined ? h('span', { class: 'count' }, String(count)) : null);
  b.addEventListener('click', () => navigate(filterOrView));
  b.dataset.nav = JSON.stringify(filterOrView);
  return b;
}

// The navigation is drawn anew only when what it shows changed: every list load asks, and a redraw under a
// pointer that is pressing a button there loses that click (the press and the release land on different nodes).
let drawnNav = { nav: null, key: '' };

function renderNav() {
  const counts = list ? list.categoryCounts() : {};
  const codes = list ? list.codeCount() : 0;
  const passkeys = list ? list.passkeyCount() : 0;
  const shared = list ? list.sharedCount() : 0;
  const key = JSON.stringify([document.documentElement.lang, counts, codes, passkeys, shared, state.vaults, state.tags.slice(0, 40), state.catalog.length, !!(state.status && state.status.account)]);
  if (drawnNav.nav === shell.nav && drawnNav.key === key) { markNav(); return; }
  drawnNav = { nav: shell.nav, key };
  const nav = clear(shell.nav);
  nav.append(...[
    brand(),
    h('button', { type: 'button', class: 'button primary', onclick: () => newItem() }, icon('plus'), t('ui.nav.new')),
    h('ul', {},
      h('li', {}, navButton(t('ui.nav.all'), 'folder', { kind: 'all' })),
      h('li', {}, navButton(t('ui.nav.favorites'), 'star', { kind: 'favorites' })),
      h('li', {}, navButton(t('ui.nav.recent'), 'clock', { kind: 'recent' })),
      codes ? h('li', {}, navButton(t('ui.nav.codes'), 'timer', { kind: 'codes' }, codes)) : null,
      passkeys ? h('li', {}, navButton(t('ui.nav.passkeys'), 'key-round', { kind: 'passkeys' }, passkeys)) : null,
      shared ? h('li', {}, navButton(t('ui.nav.shared'), 'users', { kind: 'shared' }, shared)) : null),
    h('h3', {}, t('ui.nav.categories')),
    h('ul', {}, ...state.catalog.filter((c) => counts[c.name]).map((c) => h('li', {}, navButton(categoryName(c.name), categoryIcons[c.name] || 'file-text', { kind: 'category', value: c.name }, counts[c.name])))),
    h('h3', {}, t('ui.nav.vaults')),
    h('ul', {}, ...(state.vaults.length > 1 ? state.vaults.map((v) => h('li', {}, navButton(v.name, vaultIcon(v), { kind: 'vault', value: v.id }, v.items))) : []),
      h('li', {}, h('button', { type: 'button', class: 'nav-item', id: 'nav-vault-new', onclick: () => newVault(navigate) }, icon('folder-plus'), h('span', {}, t('ui.vault.new'))))),
    state.tags.length ? h('h3', {}, t('ui.nav.tags')) : null,
    state.tags.length ? h('ul', {}, ...state.tags.slice(0, 40).map((tag) => h('li', {}, navButton(tag, 'tag', { kind: 'tag', value: tag })))) : null,
    h('ul', {},
      h('li', {}, navButton(t('ui.nav.check'), 'shield', { view: 'check' })),
      h('li', {}, navButton(t('ui.nav.generator'), 'wand-sparkles', { view: 'generator' })),
      h('li', {}, navButton(t('ui.nav.trash'), 'trash-2', { view: 'trash' })),
      state.status && state.status.account ? h('li', {}, navButton(t('ui.nav.account'), 'user', { view: 'account' })) : null,
      state.status && state.status.account ? h('li', {}, navButton(t('ui.nav.sharing'), 'users', { view: 'sharing' })) : null,
      h('li', {}, navButton(t('ui.nav.settings'), 'settings', { view: 'settings' })),
      h('li', {}, navButton(t('ui.nav.shortcuts'), 'keyboard', { view: 'keys' })),
      h('li', {}, h('button', { type: 'button', class: 'nav-item', onclick: lockNow }, icon('lock'), h('span', {}, t('ui.nav.lock'))))),
  ].filter(Boolean));
  markNav();
}

// The list's head: title, count, sync state, category cards and the items used last (home.js).
function showHome() {
  if (!shell.home || !list) return;
  shell.home.classList.toggle('searching', !!shell.search.value);
  renderHome(shell.home, list, list.total || 0, { go: navigate, open: openItem, sync: syncNow, searching: !!shell.search.value, vault: () => showPane('main', { pane: 'list' }) });
}

function markNav() {
  const current = ['items', 'item', 'history', 'edit'].includes(state.view) ? JSON.stringify(state.filter) : JSON.stringify({ view: state.view });
  for (const b of shell.nav.querySelectorAll('[data-nav]')) {
    if (b.dataset.nav === current) b.setAttribute('aria-current', 'true'); else b.removeAttribute('aria-current');
  }
}

// LST-15: a window 700 px wide or less shows one pane at a time under a bottom bar of four tabs and a raised
// "+" (CSS decides; wide windows show all three panes and no bar). Each tab keeps where it was: Items its list
// or the item open, Security Check and Generator their screen, Profile the navigation or the screen opened from
// it. A tap on the tab already shown goes back to its start, as on a phone.
const tabOfView = (view) => (['check', 'generator'].includes(view) ? view : 'profile');
let tabPlaces = {};
let currentTab = 'items';

// PANE is what a narrow window shows ('list', 'main' or 'nav'); PLACE what its tab shows again when chosen.
function showPane(pane, place = { pane }) {
  if (!shell.root) return;
  const tab = place.view ? tabOfView(place.view) : pane === 'nav' ? 'profile' : 'items';
  currentTab = tab;
  tabPlaces[tab] = place;
  shell.root.dataset.pane = pane;
  shell.root.dataset.tab = tab;
  for (const b of shell.tabbar.querySelectorAll('[data-tab]')) {
    if (b.dataset.tab === tab) b.setAttribute('aria-current', 'page'); else b.removeAttribute('aria-current');
  }
}

async function openTab(tab) {
  const place = tab === currentTab ? null : tabPlaces[tab];
  if (tab === 'items') {
    if (place && place.item) return openItem(place.item);
    showPane('list');
    return list.focus();
  }
  if (tab === 'profile' && !(place && place.view)) {
    showPane('nav');
    const first = shell.nav.querySelector('button');
    return first && first.focus();
  }
  return navigate(place || { view: tab });
}

function tabButton(tab, iconName, label) {
  return h('button', { type: 'button', class: 'tab', 'data-tab': tab, onclick: () => openTab(tab).catch(report) }, icon(iconName), h('span', {}, label));
}

async function showShell() {
  dropVaultState();
  tabPlaces = {};
  currentTab = 'items';
  shell.nav = h('nav', { class: 'nav', 'aria-label': t('ui.nav.label') });
  shell.search = h('input', { id: 'search', type: 'search', spellcheck: 'false', placeholder: t('ui.search.placeholder'), 'aria-label': t('ui.search.label') });
  shell.sort = h('select', { id: 'sort', 'aria-label': t('ui.list.sort') }, ...['az', 'za', 'newest', 'oldest', 'recent'].map((s) => h('option', { value: s }, t('ui.sort.' + s))));
  shell.notices = h('div');
  shell.info = h('div', { class: 'listinfo', 'aria-live': 'polite' });
  shell.scroller = h('div', { class: 'scroller' });
  shell.main = h('main', { id: 'main', class: 'main', tabindex: '-1' });
  shell.home = h('div', { class: 'home' });
  const listPane = h('section', { class: 'listpane', 'aria-label': t('ui.list.label') }, shell.home,
    h('div', { class: 'listhead' }, h('div', { class: 'searchbox', role: 'search' }, icon('search'), shell.search), h('div', { class: 'filters' }, shell.sort)),
    shell.notices, shell.info, shell.scroller, shell.pickBar = h('div'));
  shell.back = h('button', { type: 'button', class: 'paneback', id: 'pane-back', onclick: () => openTab(currentTab).catch(report) }, icon('chevron-left'), h('span', {}, t('ui.pane.back')));
  shell.tabbar = h('nav', { class: 'tabbar', id: 'tabbar', 'aria-label': t('ui.tab.label') },
    tabButton('items', 'folder', t('ui.tab.items')),
    tabButton('check', 'shield', t('ui.tab.check')),
    h('button', { type: 'button', class: 'tabnew', id: 'tab-new', 'aria-label': t('ui.nav.new'), onclick: () => newItem() }, icon('plus')),
    tabButton('generator', 'wand-sparkles', t('ui.nav.generator')),
    tabButton('profile', 'user', t('ui.tab.profile')));
  root.append(shell.root = h('div', { class: 'shell' }, shell.nav, listPane, shell.back, shell.main, shell.tabbar));
  showPane('list');
  // A narrow window folds the list's head (category cards, recently used) away once its rows are scrolled, so
  // the rows get the window; at the top again the head comes back (LST-15: the head took half of a phone). Only
  // rows that overflow the taller pane too fold it: others would fit, snap back to the top and unfold it again.
  // The tab bar shows only in a narrow window (style.css decides): a wide window's scrolling measures nothing.
  shell.scroller.addEventListener('scroll', () => {
    if (shell.scroller.scrollTop === 0) { listPane.classList.remove('scrolled'); return; }
    if (listPane.classList.contains('scrolled') || getComputedStyle(shell.tabbar).display === 'none') return;
    const head = [...shell.home.querySelectorAll('.catcards, .homehead, .recenttiles')];
    if (!head.length) return;
    const height = head[head.length - 1].getBoundingClientRect().bottom - head[0].getBoundingClientRect().top;
    if (shell.scroller.scrollHeight > shell.scroller.clientHeight + height + 48) listPane.classList.add('scrolled');
  }, { passive: true });
  list = new ItemList(shell.scroller, shell.info, (item) => { openItem(item.id); state.hiddenOpen = item.match === 'passphrase' ? item.id : null; });
  // A hidden item shows only while the search is its passphrase: another search closes it.
  const closeHidden = () => { if (state.hiddenOpen) { state.hiddenOpen = null; state.selected = null; showPlaceholder(); } };
  shell.search.addEventListener('input', (event) => {
    closeHidden();
    list.search(shell.search.value, event.timeStamp);
    if (list.picking) list.setPicking(false);
    if (!!shell.search.value !== shell.home.classList.contains('searching')) showHome();
  });
  shell.search.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown') { event.preventDefault(); list.focus(); }
    if (event.key === 'Escape') { closeHidden(); shell.search.value = ''; list.search(''); showHome(); }
  });
  shell.sort.addEventListener('change', () => { state.sort = shell.sort.value; list.load(state.filter, state.sort); });
  list.onTotal = showHome;
  // LST-11: each kind of empty listing says what it is and offers the one step that helps.
  const showAll = () => navigate({ kind: 'all' });
  list.onEmpty = (kind, filter) => {
    if (kind === 'empty') return { iconName: 'plus', text: t('ui.list.empty'), action: t('ui.nav.new'), run: () => newItem() };
    if (kind === 'vault') return { iconName: 'folder', text: t('ui.list.emptyVault'), action: t('ui.nav.new'), run: () => newItem() };
    if (kind === 'search') return { iconName: 'search', text: t('ui.list.none'), action: t('ui.list.clearSearch'), run: () => { shell.search.value = ''; list.search(''); showHome(); shell.search.focus(); } };
    if (kind === 'category') return { iconName: categoryIcons[filter.value] || 'file-text', text: t('ui.list.emptyCategory', { category: categoryName(filter.value) }), action: t('ui.list.addOne'), run: () => newItem(filter.value) };
    const text = { favorites: 'ui.list.emptyFavorites', codes: 'ui.list.emptyCodes', tag: 'ui.list.emptyTag' }[filter.kind] || 'ui.list.emptyHere';
    return { iconName: filter.kind === 'favorites' ? 'star' : 'folder', text: t(text), action: t('ui.list.showAll'), run: showAll };
  };
  shell.pickBar.replaceWith(shell.pickBar = pickBar(list));
  list.onLoaded = () => {
    state.tags = list.tags();
    renderNav();
    showHome();
    refreshRisk();
    // An item gone meanwhile (a killphrase) leaves the detail pane too.
    if (state.view === 'item' && state.selected && state.selected !== state.hiddenOpen && !list.all.some((i) => i && i.id === state.selected)) showPlaceholder();
  };
  renderNav();
  renderNotices();
  // The vault chosen last (VLT-5), when there was one: the vaults first, to know it is still there.
  if (localStorage.getItem('passbox.vault')) { await loadVaults(); state.filter = rememberedFilter() || state.filter; markNav(); } else loadVaults();
  showPlaceholder();
  await list.load(state.filter, state.sort);
  // Into the search box, unless the person went somewhere meanwhile: a New item clicked while the list
  // loaded, and its title half typed, must not lose the rest of its keys to the search.
  if (!document.activeElement || document.activeElement === document.body) shell.search.focus();
  // A view asked for before the vault opened (the Emergency Kit right after a sign-up).
  const pending = state.pendingView;
  state.pendingView = null;
  if (pending) await navigate(pending);
}

// LST-7, SEC-16: which logins Security Check finds at risk, for the rows' shields. Asked a moment after the
// list has loaded (never before its first paint, nor between keystrokes: a check of 10,000 logins holds the
// agent 80–260 ms), only when the items changed since the last answer, one question at a time; the report is
// kept for the detail's findings and Security Check.
const riskKinds = ['breached-password', 'breached-website', 'weak', 'reused', 'unsecured-website'];
let riskAsking = null;
let riskTimer = null;
let riskSeen = '';
let riskFrom = null;

function refreshRisk() {
  clearTimeout(riskTimer);
  riskTimer = setTimeout(askRisk, 800);
}

function applyRisk(check) {
  const risk = new Map();
  for (const f of check.findings) if (!f.dismissed && riskKinds.includes(f.kind)) risk.set(f.itemID, [...(risk.get(f.itemID) || []), f.kind]);
  riskFrom = check;
  state.risk = risk;
  state.check = check;
  list.paint();
}

async function askRisk() {
  if (!list) return;
  const seen = list.all.map((i) => (i ? i.id + (i.lastChanged || '') : '')).join('|');
  // The items as they were at the last answer: that answer stands, or a newer report Security Check asked for.
  if (seen === riskSeen && state.check) { if (state.check !== riskFrom) applyRisk(state.check); return; }
  if (riskAsking) { riskAsking.again = true; return; }
  const asking = riskAsking = { again: false };
  const asked = list;
  try {
    const check = (await call('check', { runBreachCheck: false, background: true })).body;
    if (list && list === asked) { riskSeen = seen; applyRisk(check); }
  } catch (e) { /* the shields wait for the next load */ }
  riskAsking = null;
  if (asking.again && list) askRisk();
}

// The vaults (several in a local file or an account): a section in the navigation when there is more than one.
async function loadVaults() {
  const asked = list;
  try {
    const vaults = (await call('vault-list')).body.vaults;
    // A lock while the answer was on its way dropped the list: nothing of the vault comes back.
    if (!list || list !== asked) return;
    state.vaults = vaults;
    if (shell.nav) renderNav();
  } catch (e) { state.vaults = []; }
}

// Merge notices already shown (the agent keeps them until a sync takes them).
const shownNotices = new Set();

function renderNotices() {
  const sync = state.status && state.status.sync;
  clear(shell.notices);
  // The Emergency Kit reminder, until the kit is confirmed on this device.
  const account = state.status && state.status.account;
  if (account && account.kitReminder) {
    shell.notices.append(h('div', { class: 'notice', role: 'note', id: 'kit-reminder' }, icon('triangle-alert'), ' ', t('ui.account.kit.reminder'), ' ',
      button(t('ui.account.kit.open'), () => navigate({ view: 'account', tab: 'kit' }), 'ghost')));
  }
  // SEC-14, SEC-18: logins a newly published breach puts at risk, until Security Check is opened (the agent
  // also said it once as a desktop notification).
  const alerts = state.status && state.status.breachAlerts;
  if (alerts) {
    shell.notices.append(h('div', { class: 'notice', role: 'alert', id: 'breach-alert' }, icon('shield-alert'), ' ', t('ui.breach.alert', { count: alerts }), ' ',
      button(t('ui.nav.check'), () => navigate({ view: 'check' }), 'ghost')));
  }
  if (account && account.sharingWarnings) {
    shell.notices.append(h('div', { class: 'notice', role: 'note', id: 'sharing-banner' }, icon('triangle-alert'), ' ', t('ui.sharing.banner', { count: account.sharingWarnings }), ' ',
      button(t('ui.nav.sharing'), () => navigate({ view: 'sharing' }), 'ghost')));
  }
  if (sync) {
    // An account: what is queued, the last sync, the live connection, and a sync now.
    const lines = [t('sync.status', { queued: sync.queued, last: sync.lastSync ? formatDate(sync.lastSync) : t('sync.never') })];
    if (sync.live !== undefined && sync.live !== null) lines.push(t(sync.live ? 'sync.live.on' : 'sync.live.off'));
    if (sync.lastFailure) lines.push(t('sync.lastFailure', { reason: t('error.' + sync.lastFailure) }));
    // Signed out from another device: the way on is the account page (sign out here, then sign in again).
    const ended = sync.lastFailure === 'notSignedIn';
    shell.notices.append(h('div', { class: 'notice', role: 'status' }, lines.join(' '), ' ',
      ended ? button(t('ui.nav.account'), () => navigate({ view: 'account' }), 'ghost') : button(t('ui.sync.now'), syncNow, 'ghost')));
    showMergeNotices(sync.notices || []);
  }
  if (sync && sync.undecryptable && sync.undecryptable.length) {
    shell.notices.append(h('div', { class: 'notice', role: 'note' }, t('ui.notice.undecryptable', { count: sync.undecryptable.length })));
  }
}

function showMergeNotices(notices) {
  for (const n of notices) {
    const key = `${n.kind}|${n.at}|${n.itemID}`;
    if (shownNotices.has(key)) continue;
    shownNotices.add(key);
    toast(t('sync.notice.' + n.kind, { title: n.title, fields: n.fields.join(', ') }), null, 12);
  }
}

async function syncNow() {
  try {
    const reply = (await call('sync', { takeNotices: true })).body;
    toast(t('sync.done', { pulled: reply.pulled, pushed: reply.pushed }));
    showMergeNotices(reply.status.notices);
    state.status = { ...state.status, sync: { ...reply.status, live: state.status.sync ? state.status.sync.live : undefined } };
    renderNotices();
    await refreshList();
    await loadVaults();
  } catch (e) { report(e); }
}

function showPlaceholder() {
  clear(shell.main).append(emptyState('key-round', t('ui.item.none')));
  // Nothing open: a narrow window shows the list instead.
  if (currentTab === 'items') showPane('list');
  // A vault chosen in the navigation: it can be deleted from here (LB-2), when it is not the only one.
  const chosen = state.filter.kind === 'vault' && state.vaults.length > 1 ? state.vaults.find((v) => v.id === state.filter.value) : null;
  if (chosen) {
    shell.main.append(h('div', { class: 'actions vault-actions' },
      button([icon('pencil'), t('ui.vault.editButton')], () => editVault(chosen, navigate), '', { id: 'vault-edit' }),
      button(t('ui.vault.delete', { name: chosen.name }), () => deleteVault(chosen).catch(report), 'danger', { id: 'vault-delete' })));
  }
}

// Asks first, saying how many items the vault holds and where they go; then they go to that vault's trash.
async function deleteVault(chosen) {
  const preview = (await call('vault-delete', { vault: chosen.id, confirm: false })).body;
  const sure = await dialog(t('ui.vault.delete', { name: preview.name }),
    h('p', {}, t('ui.vault.deleteAsk', { name: preview.name, count: preview.items, trashed: preview.trashed, home: preview.home })),
    [{ label: t('ui.cancel'), value: false }, { label: t('ui.vault.deleteConfirm'), value: true, danger: true }]);
  if (!sure) return;
  const done = (await call('vault-delete', { vault: preview.id, confirm: true })).body;
  toast(t('ui.vault.deleted', { name: done.name, count: done.items, home: done.home }));
  await loadVaults();
  await navigate({ kind: 'all' });
}

async function refreshList() {
  if (!list) return;
  loadVaults();
  await list.reload();
}

async function navigate(target) {
  closeMenu();
  if (editorIsDirty() && !(await confirmDiscard())) return;
  if (target.view) {
    state.view = target.view;
    markNav();
    const views = { check: showCheck, generator: showGenerator, trash: showTrash, settings: showSettings, keys: showShortcuts, account: showAccount, sharing: showSharing };
    showPane('main', target);
    try { await views[target.view](clear(shell.main), target.tab); } catch (e) { report(e); }
    shell.main.focus();
    return;
  }
  state.view = 'items';
  state.filter = target;
  rememberVault(target);
  if (list.picking) list.setPicking(false);
  markNav();
  shell.search.value = '';
  showPlaceholder();
  showPane('list');
  await list.load(target, target.kind === 'recent' ? 'recent' : state.sort);
}

async function confirmDiscard() {
  const choice = await dialog(t('ui.edit.unsaved'), h('p'), [{ label: t('ui.edit.keep'), value: false }, { label: t('ui.edit.discard'), value: true, danger: true }]);
  return choice === true;
}

async function openItem(id, options = {}) {
  closeMenu();
  if (editorIsDirty() && !(await confirmDiscard())) return;
  state.view = 'item';
  state.selected = id;
  if (list) list.select(id);
  markNav();
  showPane('main', { item: id });
  try {
    await showItem(clear(shell.main), id, options);
  } catch (e) { report(e); }
}

async function openHistory(id) {
  state.view = 'history';
  showPane('main', { item: id });
  try { await showHistory(clear(shell.main), id); } catch (e) { report(e); }
}

async function editItem(id) {
  state.view = 'edit';
  showPane('main', { item: id });
  try { await showEditor(clear(shell.main), { id }); } catch (e) { report(e); }
}

async function newItem(category = 'login') {
  if (editorIsDirty() && !(await confirmDiscard())) return;
  state.view = 'edit';
  markNav();
  showPane('main', { pane: 'list' });
  try { await showEditor(clear(shell.main), { category }); } catch (e) { report(e); }
}

function mainPane() { return shell.main; }

// After a change the notices depend on (the Emergency Kit confirmed): the agent's status again, and the notices.
async function refreshNotices() {
  state.status = (await call('status')).body;
  if (shell.notices && document.body.contains(shell.notices)) renderNotices();
}

// PRV-1: while the tab is hidden the page is covered (nothing of the vault in a window switcher's snapshot), and
// revealed secrets are masked again. (LCK-8's "Immediately" is the agent's: at auto-lock "every action" it locks
// after each request, so a hidden or closed tab already holds a locked vault.)
function hiddenOrShown() {
  document.body.classList.toggle('covered', document.hidden);
  if (document.hidden) maskRevealed();
}

async function lockNow() {
  try { await call('lock', { forget: false }); } catch (e) { /* the page locks either way */ }
  state.status = { ...(state.status || {}), unlocked: false };
  showLock();
}

const shortcutList = [
  ['/', 'ui.keys.search'], ['n', 'ui.keys.new'], ['e', 'ui.keys.edit'], ['c', 'ui.keys.copy'], ['l', 'ui.keys.lock'],
  ['↑ ↓', 'ui.keys.move'], ['Enter', 'ui.keys.open'], ['Shift+F10', 'ui.list.menuHint'], ['Esc', 'ui.keys.escape'], ['?', 'ui.keys.help'],
];

// The editor's module is loaded when it is first shown (the first visit stays under its 300 KiB); until then
// nothing can be unsaved in it.
let editorModule = null;
const editorIsDirty = () => !!editorModule && editorModule.editorIsDirty();
async function showEditor(pane, options) {
  editorModule = editorModule || await import('./editor.js');
  await editorModule.showEditor(pane, options);
}

// The account page's module is loaded when it is first shown (most vaults are local ones).
async function showAccount(pane, tab) {
  const { showAccount: show } = await import('./account.js');
  await ready();
  await show(pane, tab);
}

async function showSharing(pane) {
  await (await import('./sharing.js')).showSharing(pane);
}

function showShortcuts(pane) {
  pane.append(h('h1', {}, t('ui.keys.title')), h('table', { class: 'keys' }, h('tbody', {}, ...shortcutList.map(([k, key]) => h('tr', {}, h('td', {}, h('kbd', {}, k)), h('td', {}, t(key)))))),
    h('p', { class: 'hint' }, t('ui.keys.note')));
}

// Single keys act only when no text field has the focus and no modifier is held, so none fights the
// browser's own shortcuts (which all use Ctrl or Alt).
function shortcuts(event) {
  if (state.settings && state.settings.webShortcuts === false) return;
  if (!shell.main || !document.body.contains(shell.main)) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  const typing = target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || target.isContentEditable);
  if (typing || document.querySelector('dialog[open]')) return;
  const actions = {
    '/': () => shell.search.focus(),
    'n': () => newItem(),
    'e': () => { if (state.selected && state.view === 'item') editItem(state.selected); },
    'c': () => { const b = shell.main.querySelector('[data-copy="password"]'); if (b) b.click(); },
    'l': () => lockNow(),
    '?': () => navigate({ view: 'keys' }),
  };
  const action = actions[event.key];
  if (action) { event.preventDefault(); action(); }
}

// Caps Lock on while typing a password: said beside the field (KB-1), gone once it is off.
function capsLock(event) {
  const field = event.target;
  if (!field || field.type !== 'password' || !event.getModifierState) return;
  let note = field.nextElementSibling && field.nextElementSibling.classList.contains('capslock') ? field.nextElementSibling : null;
  if (event.getModifierState('CapsLock')) {
    if (!note) field.after(note = h('p', { class: 'hint capslock', role: 'status' }, t('ui.capsLock')));
  } else if (note) note.remove();
}

// Changes one of the agent's settings and keeps the page's copy in step; the answer is the new settings.
async function changeSetting(name, value) {
  state.settings = (await call('change-setting', { name, value })).body;
  return state.settings;
}

async function setLanguage(lang) {
  await changeSetting('web-language', lang);
  localStorage.setItem('passbox.lang', lang);
  await loadLanguage(lang);
  document.title = t('ui.app.name');
  translateTree(document);
  await showShell();
}

async function setTheme(theme) {
  await changeSetting('web-theme', theme);
  applyTheme(theme);
}


boot();
