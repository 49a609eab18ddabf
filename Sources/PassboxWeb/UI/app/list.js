// The item list: virtualised (only the rows in view exist in the DOM), so 10,000 items scroll and filter as
// fast as 10. Pages come from the agent's `list` (1,000 at most each); search asks the agent's index.
import { call } from './api.js';
import { t } from './i18n.js';
import { h, icon, clear, announce } from './dom.js';
import { categoryIcons, report, state } from './app.js';

const ROW = 56;
const FIRST_PAGE = 100;
const PAGE = 1000;
// The best matches: a search shows its first hundred (ranked), and says so when there may be more.
const SEARCH_LIMIT = 100;

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
    this.box = h('div', { class: 'rows', role: 'listbox', tabindex: '0', 'aria-label': t('ui.list.label') });
    scroller.append(this.box);
    scroller.addEventListener('scroll', () => this.paint(), { passive: true });
    this.onResize = () => this.paint();
    window.addEventListener('resize', this.onResize);
    this.box.addEventListener('keydown', (event) => this.key(event));
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
    const body = { favoritesOnly: filter.kind === 'favorites', offset, limit, sort };
    if (filter.kind === 'category') body.category = filter.value;
    if (filter.kind === 'tag') body.tag = filter.value;
    if (filter.kind === 'vault') body.vault = filter.value;
    return (await call('list', body)).body;
  }

  // Lists `filter` in `sort` order: the first page is painted at once, the rest fill in behind it.
  async load(filter, sort) {
    this.filter = filter;
    this.sort = sort;
    this.query = '';
    const generation = ++this.generation;
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
        this.all = await this.everything();
        if (this.onLoaded) this.onLoaded();
      }
    } catch (e) { report(e); }
  }

  async everything() {
    const out = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.page({ kind: 'all' }, 'az', offset, PAGE);
      out.push(...page.items);
      if (out.length >= page.total || page.items.length === 0) return out;
    }
  }

  async reload() {
    this.all = [];
    if (this.query) await this.search(this.query);
    else await this.load(this.filter, this.sort);
    if (this.filter.kind !== 'all' || this.query) { this.all = await this.everything(); if (this.onLoaded) this.onLoaded(); }
  }

  setItems(items, total, vaultIsEmpty) {
    const rows = [];
    const sections = this.filter.kind === 'all' && !this.query && (this.sort === 'az');
    const favorites = sections ? items.filter((item) => item && item.favorite) : [];
    if (favorites.length) {
      rows.push({ section: t('ui.list.favoritesSection') });
      for (const item of favorites) rows.push({ item });
      rows.push({ section: t('ui.nav.all') });
    }
    for (let i = 0; i < total; i++) rows.push(items[i] ? { item: items[i] } : undefined);
    this.rows = rows;
    this.sections = favorites.length ? [0, favorites.length + 1] : [];
    this.firstItemRow = favorites.length ? 1 : 0;
    this.itemRows = rows.length - this.sections.length;
    this.total = total;
    this.info.textContent = total === 0 ? (vaultIsEmpty ? t('ui.list.empty') : t('ui.list.none')) : t('ui.list.count', { count: total });
    this.paint();
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
    clear(this.box);
    for (let i = first; i < last; i++) this.box.append(this.row(i));
    if (this.active >= 0 && this.active < this.rows.length) this.box.setAttribute('aria-activedescendant', `row-${this.active}`);
    else this.box.removeAttribute('aria-activedescendant');
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
    const el = h('div', {
      class: 'itemrow', role: 'option', id: `row-${index}`, 'aria-selected': item && item.id === this.selectedId ? 'true' : 'false',
      // Position among the item rows (section headings are not options).
      'aria-setsize': String(this.itemRows), 'aria-posinset': String(index + 1 - this.sectionsBefore(index)),
    },
    h('span', { class: 'avatar' }, icon(item ? (categoryIcons[item.category] || 'file-text') : 'clock')),
    h('span', { class: 'texts' }, h('span', { class: 'title', elementtiming: index === (this.firstItemRow || 0) && item ? 'first-row' : undefined }, item ? item.title : t('ui.loading')), h('span', { class: 'sub' }, item ? (item.shared ? `[${item.shared}] ` : '') + (item.locked ? t('ui.sealed.summary') : (item.summary || '')) : '')),
    item && item.favorite ? h('span', { class: 'icon i-star star', role: 'img', 'aria-label': t('ui.list.favorite') }) : null);
    el.style.top = top;
    if (index === this.active) el.classList.add('active');
    if (item) el.addEventListener('click', () => { this.active = index; this.onOpen(item); });
    return el;
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
    else if (event.key === 'Enter') {
      const entry = this.rows[this.active];
      if (entry && entry.item) { event.preventDefault(); this.onOpen(entry.item); }
    }
  }
}
