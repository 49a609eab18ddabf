// Small helpers to build the DOM: no HTML strings, so no value from the vault is ever parsed as markup.
import { t } from './i18n.js';

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key.startsWith('on')) el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function icon(name) { return h('span', { class: `icon i-${name}`, 'aria-hidden': 'true' }); }

// The LogoLockup (DS-13): the Solar keyhole on the Marina signature gradient, and the wordmark.
export function brand() { return h('div', { class: 'brand' }, h('span', { class: 'logomark' }, icon('keyhole')), t('ui.app.name')); }

// EmptyStateView (DS-11): the Solar icon on a Marina tile inside dotted rings, and what to say.
export function emptyState(name, text) { return h('div', { class: 'empty' }, h('span', { class: 'emptytile' }, icon(name)), h('p', {}, text)); }

// IconTile (DS-14): a two-letter monogram on one of eight tints. Logins of one site share the tint: it comes
// from the site's last two name labels (no favicon is fetched: docs/SECURITY.md says why), else the title.
// The host name of an item's first website that parses as an address ('' for none).
export function siteHost(item) {
  return (item.websites || []).map((w) => { try { return new URL(w.includes('://') ? w : 'https://' + w).hostname; } catch { return ''; } }).find(Boolean) || '';
}

export function iconTile(item) {
  const site = siteHost(item);
  const key = site ? site.split('.').slice(-2).join('.') : (item.title || '').toLowerCase();
  let hash = 0;
  for (const c of key) hash = (hash * 31 + c.codePointAt(0)) >>> 0;
  const words = (item.title || '?').trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? words[0][0] + words[1][0] : (words[0] || '?').slice(0, 2);
  return h('span', { class: `avatar monogram t${hash % 8}`, 'aria-hidden': 'true' }, letters.toUpperCase());
}

// A menu of actions (LST-9, DET-1), at `at` ({x, y} in the viewport): the first entry takes the focus, the arrows,
// Home and End move, Enter runs, Escape, Tab or a press outside close it and the focus goes back to `returnTo`.
// Entries: {id, icon, label, run, danger}; a missing one is left out.
let closeOpenMenu = null;

export function menuIsOpen() { return closeOpenMenu !== null; }

// Closes the open menu, if any (a lock, another screen): the focus stays where it is.
export function closeMenu() { if (closeOpenMenu) closeOpenMenu(false); }

export function openMenu(label, entries, at, returnTo) {
  if (closeOpenMenu) closeOpenMenu(false);
  const box = h('div', { class: 'menu', role: 'menu', 'aria-label': label, id: 'menu' });
  const close = (refocus) => {
    if (closeOpenMenu !== close) return;
    closeOpenMenu = null;
    box.remove();
    document.removeEventListener('pointerdown', outside, true);
    window.removeEventListener('blur', lost);
    if (refocus && returnTo && returnTo.isConnected) returnTo.focus();
  };
  const outside = (event) => { if (!box.contains(event.target)) close(false); };
  // The focus leaving the menu for elsewhere in the page (a click, a screen reader's move) closes it.
  box.addEventListener('focusout', (event) => { if (event.relatedTarget && !box.contains(event.relatedTarget)) close(false); });
  const lost = () => close(false);
  const items = entries.filter(Boolean).map((e) => h('button', {
    type: 'button', role: 'menuitem', tabindex: '-1', class: 'menuitem' + (e.danger ? ' danger' : ''), 'data-action': e.id,
    onclick: (event) => { event.stopPropagation(); close(true); e.run(); },
  }, icon(e.icon), h('span', {}, e.label)));
  box.append(...items);
  // The key that opened it may still bring the browser's own menu (Firefox sends contextmenu to what has the
  // focus, the first entry by then): not over this one.
  box.addEventListener('contextmenu', (event) => event.preventDefault());
  box.addEventListener('keydown', (event) => {
    const i = items.indexOf(document.activeElement);
    const to = { ArrowDown: (i + 1) % items.length, ArrowUp: (i - 1 + items.length) % items.length, Home: 0, End: items.length - 1 }[event.key];
    // Keys the menu does not use stay in it: the page's shortcuts (l locks, n, /) are not for it.
    event.stopPropagation();
    if (to !== undefined) { event.preventDefault(); items[to].focus(); }
    // Enter and Space choose the entry here, as the menu pattern says (not every browser makes a click of them).
    else if ((event.key === 'Enter' || event.key === ' ') && i >= 0) { event.preventDefault(); items[i].click(); }
    else if (event.key === 'Escape' || event.key === 'Tab') { event.preventDefault(); event.stopPropagation(); close(true); }
  });
  document.body.append(box);
  // Inside the window whatever the point: left of it or above it when it would run off.
  const width = box.offsetWidth, height = box.offsetHeight;
  box.style.left = `${Math.max(4, Math.min(at.x, window.innerWidth - width - 4))}px`;
  box.style.top = `${Math.max(4, at.y + height > window.innerHeight - 4 ? at.y - height : at.y)}px`;
  closeOpenMenu = close;
  document.addEventListener('pointerdown', outside, true);
  window.addEventListener('blur', lost);
  if (items.length) items[0].focus();
  return close;
}

// Where a menu opened from `el` (a button, or a row from the keyboard) appears: below its start.
export function below(el) {
  const r = el.getBoundingClientRect();
  return { x: r.left, y: r.bottom + 4 };
}

// An icon button: its accessible name is the worded label (also its tooltip).
export function iconButton(name, label, onclick, extra = {}) {
  return h('button', { type: 'button', class: 'button ghost icon-only', 'aria-label': label, title: label, onclick, ...extra }, icon(name));
}

export function button(label, onclick, cls = '', extra = {}) {
  return h('button', { type: 'button', class: `button ${cls}`.trim(), onclick, ...extra }, label);
}

export function clear(el) { while (el.firstChild) el.firstChild.remove(); return el; }

export function announce(text) {
  const region = document.getElementById('announce');
  region.textContent = '';
  setTimeout(() => { region.textContent = text; }, 30);
}

// A toast (a live region announces it); with an action it stays `seconds` long and offers the action once.
export function toast(text, action, seconds = 4) {
  const box = document.getElementById('toasts');
  const el = h('div', { class: 'toast' }, h('span', { class: 'grow' }, text));
  let timer;
  const close = () => { clearTimeout(timer); el.remove(); };
  if (action) el.append(button(action.label, async () => { close(); await action.run(); }, 'ghost'));
  el.append(h('button', { type: 'button', class: 'button ghost icon-only', 'aria-label': t('ui.close'), title: t('ui.close'), onclick: close }, icon('x')));
  box.append(el);
  timer = setTimeout(close, seconds * 1000);
  return close;
}

// A modal dialog; resolves with the value of the button pressed (or null on Escape).
export function dialog(title, body, choices, cls = '') {
  return new Promise((resolve) => {
    const heading = h('h2', { id: 'dialog-title' }, title);
    const d = h('dialog', { 'aria-labelledby': 'dialog-title', class: cls || undefined }, heading, body);
    const row = h('div', { class: 'actions' });
    for (const c of choices) row.append(button(c.label, () => { d.close(); resolve(c.value); }, c.primary ? 'primary' : (c.danger ? 'danger' : '')));
    d.append(row);
    d.addEventListener('close', () => { d.remove(); resolve(null); });
    document.body.append(d);
    d.showModal();
  });
}

// A QR code as an SVG of its dark modules, dark on light whatever the theme (as cameras read it best).
export function qrCode(setup, label) {
  const ns = 'http://www.w3.org/2000/svg', quiet = 4, size = setup.size + 2 * quiet;
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('class', 'qr');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  const background = document.createElementNS(ns, 'rect');
  for (const [k, v] of [['width', size], ['height', size], ['class', 'qr-light']]) background.setAttribute(k, String(v));
  let d = '';
  setup.modules.forEach((row, y) => { for (let x = 0; x < row.length; x++) if (row[x] === '1') d += `M${x + quiet} ${y + quiet}h1v1h-1z`; });
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', d);
  path.setAttribute('class', 'qr-dark');
  svg.append(background, path);
  return svg;
}

// A file from the agent, saved by the browser (never kept by the page).
export function saveFile(file) {
  const bytes = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: file.mediaType }));
  const a = h('a', { href: url, download: file.name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  bytes.fill(0);
}
