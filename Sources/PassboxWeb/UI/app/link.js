// Signing in on another device (issue 33): the old device's "Sign in on another device" (a one-time code and
// its QR code, then "Is this your device?" with the six digits both screens show) and the new device's "Use a
// code from another device" (the code, a pasted passbox-link: address or a photo of the QR code; the six
// digits; then only the master password). The agents run the exchange; the page shows where it is.
import { call, Secret, SessionLost, AgentGone, fileBase64 } from './api.js';
import { t, errorText, formatDate } from './i18n.js';
import { h, button, clear, qrCode, announce, dialog } from './dom.js';
import { report, route } from './app.js';

function failed(error, place) {
  if (error instanceof SessionLost || error instanceof AgentGone) return report(error);
  place.textContent = errorText(error);
}

// The six digits, large.
const digits = (code, id) => h('p', { class: 'linkcode', id }, code);

// The old device: a code, then the new device's name and digits, then the user's answer.
export async function linkSection(body) {
  const error = h('p', { class: 'error', role: 'alert' });
  const area = h('div', { 'aria-live': 'polite' });
  // One wait at a time: the button rests while a code is shown and waited on.
  const show = button(t('ui.link.show'), () => { show.disabled = true; open().catch((e) => failed(e, error)).finally(() => { show.disabled = false; }); }, 'primary', { id: 'link-open' });
  body.append(h('h2', {}, t('ui.link.title')), h('p', { class: 'hint' }, t('ui.link.intro')), area, error, show);
  async function open() {
    error.textContent = '';
    const offer = (await call('link-open')).body;
    clear(area).append(
      h('p', {}, t('ui.link.typeThis', { date: formatDate(offer.expires) })), digits(offer.code, 'link-code'),
      offer.size ? qrCode(offer, t('ui.link.qr')) : null,
      h('p', { class: 'hint' }, t('ui.link.address')), h('p', {}, h('code', { class: 'wrap', id: 'link-uri' }, offer.uri)),
      h('p', { class: 'hint', role: 'status' }, t('ui.link.waiting')));
    // Asked again every few seconds while the section is on screen; the agent waits meanwhile.
    let asking = {};
    while (!asking.code) {
      if (!document.body.contains(area)) return;
      asking = (await call('link-wait')).body;
    }
    const answer = async (yes) => {
      try {
        await call('link-confirm', { yes });
        clear(area).append(h('p', { role: 'status', id: 'link-done' }, t(yes ? 'ui.link.sent' : 'ui.link.declined', { name: asking.name })));
      } catch (e) { failed(e, error); }
    };
    clear(area).append(h('div', { class: 'notice', role: 'alert' },
      h('p', {}, t('ui.link.asking', { name: asking.name, address: asking.address || '?' })), digits(asking.code, 'link-digits'),
      h('p', {}, t('ui.link.compare')),
      h('div', { class: 'actions' },
        button(t('ui.link.yes'), () => answer(true), 'primary', { id: 'link-yes' }),
        button(t('ui.link.no'), () => answer(false), 'danger', { id: 'link-no' }))));
    area.querySelector('#link-yes').focus();
  }
}

// The server an address names (shown before anything is sent: a stranger's link would sign in elsewhere).
function addressServer(text) {
  const at = text.indexOf('passbox-link:v1?');
  if (at < 0) return null;
  return new URLSearchParams(text.slice(at + 16).split(/[\s<>\x22]/)[0]).get('server');
}

// The new device: the code and server (or an address, typed, pasted or read from a photo of the QR code).
export function linkForm() {
  const error = h('p', { class: 'error', role: 'alert' });
  const steps = h('div', { 'aria-live': 'polite' });
  const field = (id, key, attrs) => [h('label', { for: id }, t(key)), h('input', { id, type: 'text', spellcheck: 'false', ...attrs })];
  const photo = h('input', { id: 'link-photo', type: 'file', accept: 'image/*' });
  const form = h('form', { novalidate: true },
    ...field('link-server', 'ui.account.server', { type: 'url', placeholder: 'https://vault.example.org' }),
    ...field('link-text', 'ui.link.code', { autocomplete: 'off' }), h('p', { class: 'hint' }, t('ui.link.code.hint')),
    h('label', { for: 'link-photo' }, t('ui.link.photo')), photo,
    ...field('link-name', 'ui.account.deviceName', { placeholder: t('ui.account.deviceName.placeholder'), maxlength: '64' }),
    error, h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary' }, t('ui.link.go'))), steps);
  const value = (id) => form.querySelector('#' + id).value.trim();
  photo.addEventListener('change', async () => {
    const file = photo.files[0];
    if (!file) return;
    try {
      const found = (await call('read-qr', { image: await fileBase64(file) })).body.values.find((v) => v.includes('passbox-link:'));
      if (found) form.querySelector('#link-text').value = found; else error.textContent = t('ui.link.noCode');
    } catch (e) { failed(e, error); }
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    const text = value('link-text');
    const server = addressServer(text);
    if (!text || (!server && !value('link-server'))) { error.textContent = t('ui.link.fillIn'); return; }
    if (server) {
      // The user says the address's server is theirs before the agent sends anything there.
      const sure = await dialog(t('ui.link.server.title'), h('p', {}, t('ui.link.server.check', { server })),
        [{ label: t('ui.cancel'), value: false }, { label: t('ui.link.server.yes'), value: true, primary: true }]);
      if (!sure) return;
    }
    try {
      await call('link-begin', { server: server ? undefined : value('link-server'), text, name: value('link-name') || undefined });
      await follow();
    } catch (e) { failed(e, error); }
  });
  async function follow() {
    clear(steps).append(h('p', { role: 'status' }, t('ui.link.sent.hello')));
    let status = {};
    while (!status.ready) {
      // The user left this screen: the wait stops with it.
      if (!document.body.contains(steps)) return;
      status = (await call('link-answer')).body;
      if (status.code && !steps.querySelector('#link-digits')) {
        clear(steps).append(h('p', {}, t('ui.link.check')), digits(status.code, 'link-digits'), h('p', { class: 'hint', role: 'status' }, t('ui.link.confirmThere')));
        announce(t('ui.link.check') + ' ' + status.code);
      }
    }
    const password = h('input', { id: 'link-password', type: 'password', autocomplete: 'new-password' });
    // The account's second factor, asked for only when the server wants it.
    const code = h('input', { id: 'link-2fa', type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code' });
    const second = h('div', { hidden: true }, h('label', { for: 'link-2fa' }, t('ui.account.code')), code);
    const finish = h('form', { novalidate: true }, h('p', { role: 'status' }, t('ui.link.received', { email: status.email })),
      h('label', { for: 'link-password' }, t('ui.account.master')), password, second,
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary' }, t('ui.account.signIn'))));
    finish.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (!password.value) { error.textContent = t('ui.account.typeMaster'); return; }
      error.textContent = t('ui.account.signingIn');
      try {
        await call('link-finish', { password: new Secret(password.value), code: second.hidden || !code.value.trim() ? undefined : new Secret(code.value.trim()) });
        password.value = '';
        await route();
      } catch (x) {
        password.value = '';
        code.value = '';
        if (x.code === 'twoFactorRequired') { second.hidden = false; error.textContent = t('ui.account.needCode'); code.focus(); return; }
        failed(x, error);
      }
    });
    clear(steps).append(finish);
    password.focus();
  }
  return form;
}
