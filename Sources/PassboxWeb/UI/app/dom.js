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
