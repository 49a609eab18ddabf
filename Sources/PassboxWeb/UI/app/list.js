// The item list: virtualised (only the rows in view exist in the DOM), so 10,000 items scroll and filter as
// fast as 10. Pages come from the agent's `list` (1,000 at most each); search asks the agent's index.
import { call } from './api.js';
import { t, language } from './i18n.js';
import { h, icon, button, clear, announce, below, menuIsOpen } from './dom.js';
import { itemTile, report, state } from './app.js';
import { itemMenu, copyItemField, copiesPassword, setFavorite } from './item.js';

const ROW = 56;
const FIRST_PAGE = 100;
const PAGE = 1000;
// The best matches: a search shows its first hundred (ranked), and says so when there may be more.
const SEARCH_LIMIT = 100;
const SKELETON_ROWS = 8;

// Timings the benchmark reads (passbox bench ui): navigation to the first painted list, and each search
// from its keystroke to its results painted.
window.__passboxTimings = window.__passboxTimings || { listPainted: null, searches: [] };
// Runs `then` once the frame now being prepared has been painted: a message posted from the frame's
// animation callback is delivered after that frame's rendering.
function afterPaint(then) {
  requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => then();
    channel.port2.postMessage(0);
  });
}

// The list counts as painted when the browser reports the first row's text on screen (Element Timing), not
// when the script has merely built it.
if (window.PerformanceObserver && PerformanceObserver.supportedEntryTypes && PerformanceObserver.supportedEntryTypes.includes('element')) {
  new PerformanceObserver((entries) => {
    for (const entry of entries.getEntries()) {
      if (entry.identifier === 'first-row' && window.__passboxTimings.listPainted === null) window.__passboxTimings.listPainted = entry.renderTime || entry.loadTime;
    }
  }).observe({ type: 'element', buffered: true });
}

// LST-4: the section a row falls in. A–Z and Z–A: the title's first letter without its accent ("#" for
// anything else); newest and oldest by when the item was made, recently used by when it was last used or
// changed: Today, Yesterday, Last week, Last month, then one a month.
function letterOf(title) {
  const c = (title || '').trim().normalize('NFD').replace(/[\u0300-\u036f]/g, '').charAt(0).toUpperCase();
  return c >= 'A' && c <= 'Z' ? c : '#';
}

function dayBucket(ms) {
  if (!ms) return t('ui.list.section.undated');
  const d = new Date(ms), now = new Date();
  const days = Math.round((new Date(now.getFullYear(), now.getMonth(), now.getDate()) - new Date(d.getFullYear(), d.getMonth(), d.getDate())) / 86400000);
  if (days <= 0) return t('ui.list.section.today');
  if (days === 1) return t('ui.list.section.yesterday');
  if (days < 7) return t('ui.list.section.week');
  if (days < 31) return t('ui.list.section.month');
  return new Intl.DateTimeFormat(language === 'de' ? 'de-DE' : 'en-GB', { month: 'long', year: 'numeric' }).format(d);
}

export function sectionOf(item, sort) {
  if (sort === 'az' || sort === 'za') return letterOf(item.title);
  if (sort === 'recent') return dayBucket(Math.max(item.lastUsed ? new Date(item.lastUsed).getTime() : 0, item.lastChanged ? new Date(item.lastChanged).getTime() : 0));
  return dayBucket(item.created);
}

export class ItemList {
  constructor(scroller, info, onOpen) {
    this.scroller = scroller;
    this.info = info;
    this.onOpen = onOpen;
    this.onLoaded = null;
    this.rows = [];       // entries: {section} or {item}, or undefined while its page is on its way
    this.all = [];        // every item of the vault (the "all" listing), for counts and tags
    this.active = -1;
    this.selectedId = null;
    this.generation = 0;
    this.query = '';
    this.box = h('div', { class: 'rows', role: 'listbox', tabindex: '0', 'aria-label': t('ui.list.label'), 'aria-keyshortcuts': 'Shift+F10 ContextMenu' });
    // LST-11: what an empty listing says, and its one action (`onEmpty` gives both for a kind of emptiness).
    this.empty = h('div', { class: 'emptystate', id: 'list-empty', hidden: true });
    this.onEmpty = null;
    scroller.append(this.box, this.empty);
    scroller.addEventListener('scroll', () => this.paint(), { passive: true });
    this.onResize = () => this.paint();
    window.addEventListener('resize', this.onResize);
    this.box.addEventListener('keydown', (event) => this.key(event));
    // A right click on a row opens its actions where the pointer is (LST-9).
    // From the keyboard (Shift+F10, the menu key) Firefox sends it to the list itself after the key, which
    // opened the menu already: the browser's own menu must not open over it (it would take the focus).
    this.box.addEventListener('contextmenu', (event) => {
      if (this.picking) return;
      const row = event.target.closest('.itemrow');
      if (!row) {
        // A right click on a section or an empty part keeps the browser's menu; the keys' own event does not.
        if (performance.now() - (this.menuKeyAt || -1e9) > 1000) return;
        event.preventDefault();
        if (!menuIsOpen()) this.openMenuFromKeyboard();
        return;
      }
      const index = Number(row.id.slice(4));
      const entry = this.rows[index];
      if (!entry || !entry.item) return;
      event.preventDefault();
      this.active = index;
      this.paint();
      itemMenu(entry.item, { x: event.clientX, y: event.clientY }, this.box);
    });
    // Focus from the keyboard picks the first item; a click's focus must not repaint the row being clicked.
    this.box.addEventListener('focus', () => { if (this.active < 0 && this.box.matches(':focus-visible')) this.move(1); });
  }

  // Called when the vault locks: nothing of the list stays reachable.
  destroy() {
    window.removeEventListener('resize', this.onResize);
    this.generation++;
    this.rows = [];
    this.all = [];
  }

  async page(filter, sort, offset, limit) {
    if (filter.kind === 'shared') return this.sharedPage(sort, offset, limit);
    const body = { favoritesOnly: filter.kind === 'favorites', offset, limit, sort };
    if (filter.kind === 'category') body.category = filter.value;
    if (filter.kind === 'tag') body.tag = filter.value;
    if (filter.kind === 'vault') body.vault = filter.value;
    if (filter.kind === 'codes') body.withCode = true;
    if (filter.kind === 'passkeys') body.withPasskey = true;
    return (await call('list', body)).body;
  }

  // Lists `filter` in `sort` order: the first page is painted at once, the rest fill in behind it.
  async load(filter, sort) {
    this.filter = filter;
    this.sort = sort;
    this.query = '';
    const generation = ++this.generation;
    // LST-11: skeleton rows until the first answer of the first listing.
    if (this.total === undefined && !this.rows.length) {
      this.rows = new Array(SKELETON_ROWS).fill(undefined);
      this.itemRows = SKELETON_ROWS;
      this.sections = [];
      this.paint();
    }
    try {
      // The page asked for while the app started, when it is this listing's.
      const prefetched = state.firstPage && filter.kind === 'all' && sort === 'az' ? state.firstPage : null;
      state.firstPage = null;
      const first = prefetched ? await prefetched.then((r) => r.body, () => this.page(filter, sort, 0, FIRST_PAGE)) : await this.page(filter, sort, 0, FIRST_PAGE);
      if (generation !== this.generation) return;
      if (window.__passboxTimings.listReceived === undefined) window.__passboxTimings.listReceived = performance.now();
      const items = new Array(first.total);
      first.items.forEach((item, i) => { items[i] = item; });
      this.setItems(items, first.total, first.vaultIsEmpty);
      if (window.__passboxTimings.listPainted === null && !(PerformanceObserver.supportedEntryTypes || []).includes('element')) {
        afterPaint(() => { window.__passboxTimings.listPainted = performance.now(); });
      }
      for (let offset = first.items.length; offset < first.total; offset += PAGE) {
        const next = await this.page(filter, sort, offset, PAGE);
        if (generation !== this.generation) return;
        next.items.forEach((item, i) => { items[offset + i] = item; });
        this.setItems(items, first.total, false);
      }
      window.__passboxTimings.loadedAll = performance.now();
      if (filter.kind === 'all') {
        this.all = items;
        if (this.onLoaded) this.onLoaded();
      } else if (this.all.length === 0) {
        const all = await this.everything();
        if (generation !== this.generation) return;
        this.all = all;
        if (this.onLoaded) this.onLoaded();
      }
    } catch (e) { report(e); }
  }

  // One item of the vault by its id (Security Check asks once per finding): a map made once per listing, as
  // `all` is only ever replaced whole.
  item(id) {
    if (this.indexed !== this.all) {
      this.index = new Map();
      for (const item of this.all) if (item) this.index.set(item.id, item);
      this.indexed = this.all;
    }
    return this.index.get(id);
  }

  async everything() {
    const out = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.page({ kind: 'all' }, 'az', offset, PAGE);
      out.push(...page.items);
      if (out.length >= page.total || page.items.length === 0) return out;
    }
  }

  // The listing again, and the vault's items for the counts: the items the page knows stay until the new ones
  // have come (Security Check's links and the detail pane ask for them meanwhile), and an answer a newer load
  // overtook is dropped.
  async reload() {
    if (this.query) await this.search(this.query);
    else await this.load(this.filter, this.sort);
    if (this.filter.kind !== 'all' || this.query) {
      const generation = this.generation;
      const all = await this.everything();
      if (generation !== this.generation) return;
      this.all = all;
      if (this.onLoaded) this.onLoaded();
    }
  }

  setItems(items, total, vaultIsEmpty) {
    const changed = this.total !== total || this.shownFilter !== this.filter;
    this.total = total;
    this.shownFilter = this.filter;
    if (changed && this.onTotal) this.onTotal();
    // The keyboard's row stays on its item when the rows move (a favourite gains a row at the top).
    const activeEntry = this.rows[this.active];
    const activeId = activeEntry && activeEntry.item ? activeEntry.item.id : null;
    const rows = [];
    const sections = [];
    const favorites = this.filter.kind === 'all' && !this.query && this.sort === 'az' ? items.filter((item) => item && item.favorite) : [];
    if (favorites.length) {
      sections.push(rows.length);
      rows.push({ section: t('ui.list.favoritesSection') });
      for (const item of favorites) rows.push({ item });
    }
    // Sections follow the items as their pages arrive (an item not yet loaded starts none).
    let last = null;
    for (let i = 0; i < total; i++) {
      const item = items[i];
      if (item && !this.query) {
        const label = sectionOf(item, this.sort);
        if (label !== last) { sections.push(rows.length); rows.push({ section: label }); last = label; }
      }
      rows.push(item ? { item } : undefined);
    }
    this.rows = rows;
    if (activeId) {
      // The occurrence nearest where it was (an item in Favourites is also in its letter's section).
      let best = -1;
      rows.forEach((r, i) => { if (r && r.item && r.item.id === activeId && (best < 0 || Math.abs(i - this.active) < Math.abs(best - this.active))) best = i; });
      this.active = best;
    }
    this.sections = sections;
    this.firstItemRow = Math.max(0, rows.findIndex((r) => r && r.item));
    this.itemRows = rows.length - this.sections.length;
    this.total = total;
    this.info.textContent = total === 0 ? (vaultIsEmpty ? t('ui.list.empty') : t('ui.list.none')) : t('ui.list.count', { count: total });
    this.showEmpty(total === 0 ? (vaultIsEmpty ? 'empty' : this.filter.kind) : null);
    this.paint();
  }

  // The empty state for `kind` ('empty' for a vault without items, 'search', or the filter's kind), or none.
  showEmpty(kind) {
    const key = kind ? `${kind}|${JSON.stringify(this.filter)}` : null;
    if (key === this.emptyKey) return;
    this.emptyKey = key;
    clear(this.empty);
    this.empty.hidden = !kind || !this.onEmpty;
    // The line above the list says it too, for assistive technology only while the empty state shows.
    this.info.classList.toggle('sr-only', !this.empty.hidden);
    if (this.empty.hidden) return;
    const { text, action, run, iconName } = this.onEmpty(kind, this.filter);
    this.empty.append(h('span', { class: 'emptyicon', 'aria-hidden': 'true' }, icon(iconName)), h('p', {}, text),
      action ? button(action, run, kind === 'empty' ? 'primary' : 'ghost') : '');
  }

  // `startedAt`: when the keystroke's event happened (its timeStamp), so the time counted starts there.
  async search(query, startedAt = performance.now()) {
    this.query = query.trim();
    const generation = ++this.generation;
    const started = startedAt;
    if (!this.query) return this.load(this.filter, this.sort);
    try {
      const reply = (await call('search', { query: this.query, limit: SEARCH_LIMIT })).body;
      if (generation !== this.generation) return;
      this.rows = reply.items.map((item) => ({ item }));
      // No match may be a killphrase that just deleted an item (the answer is the same by design): once the
      // typing pauses, the page's copy of the list and the counts are fetched again, so nothing of it stays.
      clearTimeout(this.refreshTimer);
      if (!reply.items.length) this.refreshTimer = setTimeout(async () => { try { this.all = await this.everything(); if (this.onLoaded) this.onLoaded(); } catch (e) { report(e); } }, 600);
      this.total = reply.items.length;
      this.sections = [];
      this.firstItemRow = 0;
      this.itemRows = this.rows.length;
      this.info.textContent = reply.items.length === 0 ? t('ui.list.none')
        : (reply.items.length >= SEARCH_LIMIT ? t('ui.list.best', { count: SEARCH_LIMIT }) : t('ui.list.count', { count: reply.items.length }));
      this.showEmpty(reply.items.length === 0 ? 'search' : null);
      this.scroller.scrollTop = 0;
      this.active = -1;
      this.paint();
      afterPaint(() => window.__passboxTimings.searches.push(performance.now() - started));
      announce(this.info.textContent);
    } catch (e) { report(e); }
  }

  categoryCounts() {
    const counts = {};
    for (const item of this.all) if (item) counts[item.category] = (counts[item.category] || 0) + 1;
    return counts;
  }

  // LST-5: how many items hold a one-time-password setup.
  codeCount() { return this.all.reduce((n, item) => n + (item && item.hasCode ? 1 : 0), 0); }
  sharedCount() { return this.all.reduce((n, item) => n + (item && item.shared ? 1 : 0), 0); }

  // LST-13's "shared items": the items of the vaults shared with a family or team, in `sort` order. The agent's
  // listing has no such filter, so the first page reads the whole listing (as the counts do) and keeps the
  // shared ones for the pages after it.
  async sharedPage(sort, offset, limit) {
    if (offset === 0 || !this.shared) {
      const items = [];
      for (let at = 0; ; at += PAGE) {
        const page = (await call('list', { favoritesOnly: false, offset: at, limit: PAGE, sort })).body;
        items.push(...page.items);
        if (items.length >= page.total || page.items.length === 0) break;
      }
      this.shared = items.filter((item) => item.shared);
    }
    return { items: this.shared.slice(offset, offset + limit), total: this.shared.length, vaultIsEmpty: false };
  }

  passkeyCount() { return this.all.reduce((n, item) => n + (item && item.passkeys ? 1 : 0), 0); }

  tags() {
    const seen = new Set();
    for (const item of this.all) if (item) for (const tag of item.tags) seen.add(tag);
    return [...seen].sort((a, b) => a.localeCompare(b));
  }

  // Only the rows in view (and a few around them) are made.
  paint() {
    const height = this.scroller.clientHeight || 600;
    this.box.style.height = `${this.rows.length * ROW}px`;
    const first = Math.max(0, Math.floor(this.scroller.scrollTop / ROW) - 6);
    const last = Math.min(this.rows.length, first + Math.ceil(height / ROW) + 12);
    // A row whose content did not change keeps its node: a click whose press and release straddle a repaint (the
    // risk badges arriving, a poll's reload) still lands, and scrolling makes only the rows that come into view.
    const kept = new Map();
    for (const el of this.box.children) kept.set(el.dataset.key, el);
    const wanted = [];
    for (let i = first; i < last; i++) {
      const key = this.rowKey(i);
      let el = kept.get(key);
      if (!el) { el = this.row(i); el.dataset.key = key; }
      wanted.push(el);
    }
    // Kept rows never move in the DOM (a node taken out and put back between a press and its release loses the
    // click in Firefox): the others go, and the new ones go in between, in index order.
    const wantedSet = new Set(wanted);
    for (const el of [...this.box.children]) if (!wantedSet.has(el)) el.remove();
    let next = this.box.firstChild;
    for (const el of wanted) {
      if (el === next) next = next.nextSibling;
      else this.box.insertBefore(el, next);
    }
    if (this.active >= 0 && this.active < this.rows.length) this.box.setAttribute('aria-activedescendant', `row-${this.active}`);
    else this.box.removeAttribute('aria-activedescendant');
  }

  // What a row shows, as text: equal keys draw equal rows.
  rowKey(index) {
    const entry = this.rows[index];
    if (entry && entry.section) return `${index}|s|${entry.section}`;
    const item = entry && entry.item;
    if (!item) return `${index}|loading|${this.itemRows}|${this.sectionsBefore(index)}`;
    const picked = this.picking ? this.picking.has(item.id) : item.id === this.selectedId;
    const risk = state.risk ? (state.risk.get(item.id) || []).join(',') : '';
    return [index, item.id, item.title, item.summary, item.category, (item.websites || []).join(' '), item.favorite, item.shared || '', item.locked, item.viewOnly,
      index === this.active, picked, !!this.picking, risk, this.itemRows, this.sectionsBefore(index), index === (this.firstItemRow || 0)].join('|');
  }

  row(index) {
    const entry = this.rows[index];
    const top = `${index * ROW}px`;
    if (entry && entry.section) {
      const el = h('div', { class: 'sectionrow', role: 'presentation', 'aria-hidden': 'true' }, entry.section);
      el.style.top = top;
      return el;
    }
    const item = entry && entry.item;
    // While items are being picked (LST-8) a row's selection is whether it is picked, and a click picks it.
    const picked = this.picking ? !!item && this.picking.has(item.id) : item && item.id === this.selectedId;
    // A row whose item is on its way is a skeleton: grey shapes, its name for assistive technology only.
    const el = h('div', {
      class: 'itemrow' + (this.picking ? ' picking' : '') + (item ? '' : ' skeleton'), role: 'option', id: `row-${index}`, 'aria-selected': picked ? 'true' : 'false',
      // Position among the item rows (section headings are not options).
      'aria-setsize': String(this.itemRows), 'aria-posinset': String(index + 1 - this.sectionsBefore(index)),
    },
    this.picking ? h('span', { class: 'pick', 'aria-hidden': 'true' }, picked ? icon('check') : null) : null,
    item ? itemTile(item) : h('span', { class: 'avatar', 'aria-hidden': 'true' }),
    item ? h('span', { class: 'texts' }, h('span', { class: 'title', elementtiming: index === (this.firstItemRow || 0) ? 'first-row' : undefined }, item.title), h('span', { class: 'sub' }, (item.shared ? `[${item.shared}] ` : '') + (item.locked ? t('ui.sealed.summary') : (item.summary || ''))))
      : h('span', { class: 'texts' }, h('span', { class: 'sr-only' }, t('ui.loading')), h('span', { class: 'bar', 'aria-hidden': 'true' }), h('span', { class: 'bar short', 'aria-hidden': 'true' })),
    item && item.favorite ? h('span', { class: 'icon i-star star', role: 'img', 'aria-label': t('ui.list.favorite') }) : null,
    item ? this.badges(item) : null,
    item && !this.picking ? this.actions(item) : null);
    el.style.top = top;
    if (index === this.active) el.classList.add('active');
    if (item) el.addEventListener('click', () => { this.active = index; if (this.picking) this.pick(item.id); else this.onOpen(item); });
    return el;
  }

  // LST-7: a shield when Security Check finds the login at risk (breached, weak, reused, http), a mark for an
  // item of a family's or team's vault. Hover and the keyboard's row show the actions in their place.
  badges(item) {
    const risk = state.risk && state.risk.get(item.id);
    return [
      risk ? h('span', { class: 'badge risk icon i-shield-alert', role: 'img', 'aria-label': t('ui.list.risk', { kinds: risk.map((k) => t(`check.kind.${k}.title`)).join(', ') }) }) : null,
      item.shared ? h('span', { class: 'badge shared icon i-users', role: 'img', 'aria-label': t('ui.item.shared', { badge: item.shared }) }) : null,
    ];
  }

  // LST-9: copy the password, favourite, and the menu, for the pointer. They are not in the tab order (a row is an
  // option of the listbox, which holds no controls): the keyboard opens the same menu with Shift+F10 or the menu key.
  actions(item) {
    const action = (name, label, run) => h('span', { class: 'rowaction', title: label, 'data-row-action': name, onclick: (event) => { event.stopPropagation(); run(event); } }, icon(name));
    return h('span', { class: 'rowactions', 'aria-hidden': 'true' },
      copiesPassword(item) ? action('copy', t('ui.item.copy', { label: t('ui.field.password') }), () => copyItemField(item, 'password')) : null,
      item.viewOnly ? null : action('star', t(item.favorite ? 'ui.item.unfavorite' : 'ui.item.favorite'), () => setFavorite(item.id, !item.favorite)),
      action('ellipsis-vertical', t('ui.item.more'), (event) => itemMenu(item, below(event.currentTarget), this.box)));
  }

  // The keyboard's row's menu, below its title.
  openMenuFromKeyboard() {
    const entry = this.rows[this.active];
    const row = document.getElementById(`row-${this.active}`);
    if (entry && entry.item && row) itemMenu(entry.item, below(row.querySelector('.title') || row), this.box);
  }

  // Picking several items for one action (the floating bar of picker.js); `on` false ends it.
  setPicking(on) {
    this.picking = on ? new Set() : null;
    if (on) this.box.setAttribute('aria-multiselectable', 'true'); else this.box.removeAttribute('aria-multiselectable');
    this.paint();
    if (this.onPick) this.onPick();
  }

  pick(id) {
    if (this.picking.has(id)) this.picking.delete(id); else this.picking.add(id);
    this.paint();
    if (this.onPick) this.onPick();
  }

  sectionsBefore(index) { return (this.sections || []).filter((at) => at < index).length; }

  select(id) {
    this.selectedId = id;
    this.paint();
  }

  focus() {
    this.box.focus();
  }

  move(step) {
    let i = this.active;
    for (let tries = 0; tries < this.rows.length; tries++) {
      i += step;
      if (i < 0 || i >= this.rows.length) return;
      if (this.rows[i] && this.rows[i].item) break;
    }
    this.active = i;
    const top = i * ROW;
    if (top < this.scroller.scrollTop) this.scroller.scrollTop = top;
    else if (top + ROW > this.scroller.scrollTop + this.scroller.clientHeight) this.scroller.scrollTop = top + ROW - this.scroller.clientHeight;
    this.paint();
  }

  key(event) {
    if (event.key === 'ArrowDown') { event.preventDefault(); this.move(1); }
    else if (event.key === 'ArrowUp') { event.preventDefault(); this.move(-1); }
    else if (event.key === 'Home') { event.preventDefault(); this.active = -1; this.move(1); }
    else if (event.key === 'End') { event.preventDefault(); this.active = this.rows.length; this.move(-1); }
    else if ((event.key === 'ContextMenu' || (event.key === 'F10' && event.shiftKey)) && !this.picking) {
      event.preventDefault();
      this.menuKeyAt = performance.now();
      this.openMenuFromKeyboard();
    } else if (event.key === 'Enter' || (event.key === ' ' && this.picking)) {
      const entry = this.rows[this.active];
      if (entry && entry.item) { event.preventDefault(); if (this.picking) this.pick(entry.item.id); else this.onOpen(entry.item); }
    }
  }
}
