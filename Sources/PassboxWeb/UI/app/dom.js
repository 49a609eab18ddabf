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
  for (const [k, v] of [['width', size], ['height', size], ['fill', '#fff']]) background.setAttribute(k, String(v));
  let d = '';
  setup.modules.forEach((row, y) => { for (let x = 0; x < row.length; x++) if (row[x] === '1') d += `M${x + quiet} ${y + quiet}h1v1h-1z`; });
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', d);
  path.setAttribute('fill', '#000');
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
