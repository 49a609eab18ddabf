// Paired browsers in Settings (docs/PROTOCOL.md "The browser extension"): a browser waiting to pair shows
// its code here, to confirm only when the extension shows the same; paired browsers with their last use,
// each removable (its sessions end at once). Loaded when Settings is first shown.
import { call } from './api.js';
import { t, errorText, formatDate } from './i18n.js';
import { h, button, clear, toast } from './dom.js';

export async function browserSettings() {
  const section = h('section', { class: 'browsers', 'aria-labelledby': 'br-title' });
  await render(section);
  return section;
}

async function render(section) {
  const view = (await call('browser-pairings')).body;
  const error = h('p', { class: 'error', role: 'alert' });
  const act = async (op, body, done) => {
    error.textContent = '';
    try { await call(op, body); toast(done); await render(section); } catch (e) { error.textContent = errorText(e); }
  };
  clear(section).append(h('h2', { id: 'br-title' }, t('ui.browsers.title')), h('p', { class: 'hint' }, t('ui.browsers.hint')));
  for (const p of view.pending) {
    section.append(h('div', { class: 'pairing', 'data-pairing': p.pairing },
      h('p', {}, t('ui.browsers.asks', { browser: p.browser, name: p.name })),
      h('p', { class: 'code', id: `br-code-${p.pairing}` }, p.code),
      h('p', { class: 'hint' }, t('ui.browsers.compare')),
      h('div', { class: 'actions' },
        button(t('ui.browsers.confirm'), () => act('browser-pair-confirm', { pairing: p.pairing, code: p.code }, t('ui.browsers.paired', { name: p.name })), 'primary', { id: `br-confirm-${p.pairing}` }),
        button(t('ui.browsers.decline'), () => act('browser-remove', { pairing: p.pairing }, t('ui.browsers.declined')), '', { id: `br-decline-${p.pairing}` }))));
  }
  if (view.paired.length === 0 && view.pending.length === 0) section.append(h('p', { id: 'br-none' }, t('ui.browsers.none')));
  const list = h('ul', { class: 'paired', id: 'br-list' });
  for (const p of view.paired) {
    const used = p.lastUsed ? t('ui.browsers.lastUsed', { date: formatDate(p.lastUsed) }) : t('ui.browsers.neverUsed');
    list.append(h('li', { 'data-pairing': p.pairing },
      h('span', {}, `${p.name} (${p.browser})`), h('span', { class: 'hint' }, ` ${t('ui.browsers.pairedAt', { date: formatDate(p.pairedAt) })} · ${used} `),
      button(t('ui.browsers.remove'), () => act('browser-remove', { pairing: p.pairing }, t('ui.browsers.removed', { name: p.name })), 'danger', { id: `br-remove-${p.pairing}` })));
  }
  if (view.paired.length) section.append(list);
  section.append(error, button(t('ui.browsers.refresh'), () => render(section).catch((e) => { error.textContent = errorText(e); }), 'ghost', { id: 'br-refresh' }));
}
