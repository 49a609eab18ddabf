// An account on a Passbox server: sign-in and sign-up on the onboarding screen, the Secret Key shown once,
// and the account page (devices, activity, two-factor sign-in, Emergency Kit). The agent talks to the server;
// the page only ever talks to the agent.
import { call, Secret, SessionLost, AgentGone } from './api.js';
import { t, errorText, formatDate, language } from './i18n.js';
import { h, icon, button, clear, toast, dialog, announce, qrCode, saveFile, brand } from './dom.js';
import { state, report, route, refreshNotices } from './app.js';
import { rateStrength, suggestButton } from './meter.js';

function input(id, labelKey, attrs = {}) {
  return [h('label', { for: id }, t(labelKey)), h('input', { id, ...attrs })];
}

// The form's fields by id, read and cleared (the passwords) once sent.
function valueOf(form, id) { const el = form.querySelector('#' + id); return el ? el.value.trim() : ''; }

// A failure on a form: a lost session or a gone agent changes the screen; anything else is said beside it.
function formError(error, place) {
  if (error instanceof SessionLost || error instanceof AgentGone) return report(error);
  place.textContent = errorText(error);
}

// The first of `ids` left empty (its label names it in the message).
function missingField(form, ids) {
  return ids.map((id) => form.querySelector('#' + id)).find((el) => !el.value.trim()) || null;
}

// A sign-up or sign-in the agent finished although its answer said otherwise (another tab, or a vault that
// did not open): the page follows what the agent now serves.
async function followAgent(error, place) {
  if (error.code === 'alreadySignedIn' || error.code === 'vaultExists') { await route(); return; }
  formError(error, place);
}

export function signInForm() {
  const error = h('p', { class: 'error', role: 'alert' });
  const second = h('div', { hidden: true },
    ...input('signin-code', 'ui.account.code', { type: 'text', inputmode: 'numeric' }),
    h('p', { class: 'hint' }, t('ui.account.code.hint')),
    h('label', { class: 'check-label', for: 'signin-remember' }, h('input', { id: 'signin-remember', type: 'checkbox' }), t('ui.account.remember')));
  // Shown when the server offers other key-derivation settings than this device used last.
  const accept = h('label', { class: 'check-label', for: 'signin-accept', hidden: true }, h('input', { id: 'signin-accept', type: 'checkbox' }), t('ui.account.acceptNew'));
  const submit = h('button', { type: 'submit', class: 'button primary' }, t('ui.account.signIn'));
  const form = h('form', { novalidate: true },
    ...input('signin-server', 'ui.account.server', { type: 'url', placeholder: 'https://vault.example.org', required: true, spellcheck: 'false' }),
    ...input('signin-email', 'ui.account.email', { type: 'email', autocomplete: 'email', required: true }),
    ...input('signin-password', 'ui.account.master', { type: 'password', autocomplete: 'new-password', required: true }),
    ...input('signin-key', 'ui.account.secretKey', { type: 'password', autocomplete: 'new-password', spellcheck: 'false', required: true }),
    h('p', { class: 'hint' }, t('ui.account.secretKey.hint')),
    ...input('signin-device', 'ui.account.deviceName', { type: 'text', placeholder: t('ui.account.deviceName.placeholder'), maxlength: '100' }), second, accept, error,
    h('div', { class: 'actions' }, submit));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const password = form.querySelector('#signin-password'), key = form.querySelector('#signin-key'), code = form.querySelector('#signin-code');
    const missing = missingField(form, ['signin-server', 'signin-email', 'signin-password', 'signin-key']);
    if (missing) { error.textContent = t('ui.account.fillIn', { field: missing.labels[0].textContent }); missing.focus(); return; }
    submit.disabled = true;
    error.textContent = t('ui.account.signingIn');
    try {
      await call('account-signin', {
        server: valueOf(form, 'signin-server'), email: valueOf(form, 'signin-email'), password: new Secret(password.value), secretKey: new Secret(key.value),
        code: second.hidden || !code.value.trim() ? undefined : new Secret(code.value.trim()), rememberDevice: form.querySelector('#signin-remember').checked,
        acceptNewParameters: !accept.hidden && form.querySelector('#signin-accept').checked, deviceName: valueOf(form, 'signin-device') || undefined,
      });
      password.value = ''; key.value = ''; code.value = '';
      await route();
    } catch (e) {
      submit.disabled = false;
      code.value = '';
      if (e.code === 'twoFactorRequired') {
        // The account signs in with a second factor: the same form again, with the code.
        second.hidden = false;
        error.textContent = t('ui.account.needCode');
        code.focus();
        return;
      }
      if (e.code === 'serverParametersRefused' || e.code === 'serverSaltChanged') accept.hidden = false;
      await followAgent(e, error);
    }
  });
  return form;
}

export function signUpForm() {
  const error = h('p', { class: 'error', role: 'alert' });
  const meter = h('div', { class: 'meter', role: 'img', 'aria-label': t('ui.strength.meter') }, h('span'));
  const strength = h('p', { class: 'hint', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'button primary' }, t('ui.account.create'));
  const form = h('form', { novalidate: true },
    ...input('signup-server', 'ui.account.server', { type: 'url', placeholder: 'https://vault.example.org', required: true, spellcheck: 'false' }),
    ...input('signup-email', 'ui.account.email', { type: 'email', autocomplete: 'email', required: true }),
    ...input('signup-password', 'ui.account.newMaster', { type: 'password', autocomplete: 'new-password', required: true }), meter, strength,
    ...input('signup-repeat', 'ui.onboard.confirm', { type: 'password', autocomplete: 'new-password', required: true }),
    ...input('signup-invitation', 'ui.account.invitation', { type: 'password', autocomplete: 'new-password' }),
    h('p', { class: 'hint' }, t('ui.account.invitation.hint')),
    ...input('signup-device', 'ui.account.deviceName', { type: 'text', placeholder: t('ui.account.deviceName.placeholder'), maxlength: '100' }), error,
    h('p', { class: 'hint', id: 'signup-preview' }, t('ui.about.preview')),
    h('div', { class: 'actions' }, submit));
  const password = form.querySelector('#signup-password');
  strength.after(...suggestButton(password, form.querySelector('#signup-repeat')));
  password.addEventListener('input', () => rateStrength(password.value, [valueOf(form, 'signup-email')], meter, strength));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const repeat = form.querySelector('#signup-repeat'), invitation = form.querySelector('#signup-invitation');
    const missing = missingField(form, ['signup-server', 'signup-email', 'signup-password']);
    if (missing) { error.textContent = t('ui.account.fillIn', { field: missing.labels[0].textContent }); missing.focus(); return; }
    if (password.value !== repeat.value) { error.textContent = t('ui.onboard.mismatch'); repeat.focus(); return; }
    submit.disabled = true;
    error.textContent = t('ui.account.creating');
    try {
      const made = (await call('account-signup', {
        server: valueOf(form, 'signup-server'), email: valueOf(form, 'signup-email'), password: new Secret(password.value),
        invitation: invitation.value.trim() ? new Secret(invitation.value.trim()) : undefined, deviceName: valueOf(form, 'signup-device') || undefined,
      })).body;
      password.value = ''; repeat.value = ''; invitation.value = '';
      showSecretKey(made);
    } catch (e) {
      submit.disabled = false;
      await followAgent(e, error);
    }
  });
  return form;
}

// The Secret Key of a new account, shown once: the user writes it down (or saves the Emergency Kit next).
function showSecretKey(made) {
  const root = document.getElementById('root');
  clear(root);
  // Held while shown: a status change (the vault made here) does not take the page away; a lock does.
  state.holdScreen = true;
  const go = async (view) => { state.holdScreen = false; state.pendingView = view; await route(); };
  root.append(h('main', { id: 'main', class: 'center' }, h('div', { class: 'card' },
    brand(),
    h('h1', {}, t('ui.account.created.title')),
    h('p', {}, t('ui.account.created.text', { email: made.email, server: made.server })),
    h('p', { class: 'secretkey mono', id: 'secret-key' }, ...made.secretKey.split('-').flatMap((part, i, all) => [i < all.length - 1 ? part + '-' : part, h('wbr')])),
    h('p', { class: 'hint' }, t('ui.account.created.keep')),
    h('div', { class: 'actions' },
      button([icon('file-key'), t('ui.account.kit.open')], () => go({ view: 'account', tab: 'kit' }), 'primary'),
      button(t('ui.account.continue'), () => go(null))))));
  announce(t('ui.account.created.title'));
  root.querySelector('.button.primary').focus();
}

// MARK: the account page

const tabs = [['devices', 'server', 'ui.account.tab.devices'], ['activity', 'history', 'ui.account.tab.activity'], ['twoFactor', 'shield-check', 'ui.account.tab.twoFactor'], ['recovery', 'life-buoy', 'ui.account.tab.recovery'], ['kit', 'file-key', 'ui.account.tab.kit'], ['link', 'qr-code', 'ui.account.tab.link']];

export async function showAccount(pane, tab = 'devices') {
  let account;
  try {
    account = (await call('account-view')).body;
  } catch (e) {
    // This device's session ended at the server (signed out from another device): say so, and offer to sign
    // out here, after which the first screen signs in again.
    if (e.code !== 'notSignedIn') throw e;
    pane.append(h('h1', {}, t('ui.account.title')), h('p', { class: 'notice', role: 'alert' }, t('ui.account.endedHere')), signOutHere());
    return;
  }
  const body = h('div');
  const bar = h('div', { class: 'toolbar', role: 'group', 'aria-label': t('ui.account.sections') });
  const open = async (name) => {
    for (const b of bar.children) b.setAttribute('aria-pressed', String(b.dataset.tab === name));
    clear(body);
    try { await sections[name](body, account, () => showAccount(clear(pane), name), open); } catch (e) { report(e); }
  };
  for (const [name, iconName, key] of tabs) {
    const b = button([icon(iconName), t(key)], () => open(name), 'ghost');
    b.dataset.tab = name;
    bar.append(b);
  }
  pane.append(h('h1', {}, t('ui.account.title')),
    h('p', { class: 'muted' }, t('ui.account.summary', { email: account.email, server: account.server, id: account.accountID, date: formatDate(account.created) })),
    h('p', { class: 'hint' }, t('ui.account.kdf', { memory: Math.round(account.kdf.memoryKiB / 1024), passes: account.kdf.passes, lanes: account.kdf.lanes })),
    account.storage ? h('p', { class: 'hint', id: 'account-storage' }, t('ui.account.storage', { used: (account.storage.usedBytes / 1048576).toFixed(1), quota: Math.round(account.storage.quotaBytes / 1048576) })) : '',
    bar, body);
  await open(tabs.some(([name]) => name === tab) ? tab : 'devices');
}

const sections = {
  async link(body) { await (await import('./link.js')).linkSection(body); },
  async devices(body, account, reload, open) {
    // Signing a device out needs the master password (a fresh proof of the sign-in key, not the session alone).
    const error = h('p', { class: 'error', role: 'alert' });
    const password = h('input', { id: 'dev-password', type: 'password', autocomplete: 'new-password' });
    const proof = () => {
      if (password.value) return new Secret(password.value);
      error.textContent = t('ui.account.typeMaster');
      password.focus();
      return null;
    };
    const failed = (e) => { password.value = ''; formError(e, error); password.focus(); };
    const rows = account.devices.map((d) => h('tr', {},
      h('td', {}, d.name, d.isCurrent ? [' ', h('span', { class: 'chip' }, t('ui.account.thisDevice'))] : null,
        h('br'), h('span', { class: d.signedVia ? 'hint' : 'error' }, t('device.via.' + (d.signedVia || 'none'), { name: d.approvedBy || '?' }))),
      h('td', {}, d.address), h('td', {}, formatDate(d.lastSeen)),
      h('td', {}, d.isCurrent ? null : button(t('ui.account.signOutDevice'), async () => {
        const ok = await dialog(t('ui.account.signOutDevice.title', { name: d.name }), h('p', {}, t('ui.account.signOutDevice.text')), [{ label: t('ui.cancel'), value: false }, { label: t('ui.account.signOutDevice'), value: true, danger: true }]);
        if (!ok) return;
        const secret = proof();
        if (!secret) return;
        error.textContent = t('ui.account.checking');
        try { await call('device-signout', { device: d.deviceID, others: false, password: secret }); toast(t('ui.account.signedOutDevice', { name: d.name })); await reload(); } catch (e) { failed(e); }
      }, 'ghost'))));
    const others = account.devices.filter((d) => !d.isCurrent).length;
    body.append(h('h2', {}, t('ui.account.tab.devices')),
      h('table', { class: 'keys' }, h('thead', {}, h('tr', {}, ...['ui.account.device', 'ui.account.address', 'ui.account.lastSeen', 'ui.account.action'].map((k) => h('th', { scope: 'col' }, t(k))))), h('tbody', {}, ...rows)),
      others ? h('div', { class: 'actions' }, button(t('ui.account.signOutOthers'), async () => {
        const ok = await dialog(t('ui.account.signOutOthers'), h('p', {}, t('ui.account.signOutOthers.text', { count: others })), [{ label: t('ui.cancel'), value: false }, { label: t('ui.account.signOutOthers'), value: true, danger: true }]);
        if (!ok) return;
        const secret = proof();
        if (!secret) return;
        error.textContent = t('ui.account.checking');
        try { const n = (await call('device-signout', { others: true, password: secret })).body.count; toast(t('ui.account.signedOutOthers', { count: n })); await reload(); } catch (e) { failed(e); }
      }, 'danger')) : '',
      others ? h('div', {}, h('label', { for: 'dev-password' }, t('ui.account.master')), password, error) : '', signOutHere(() => open('kit')));
  },

  async activity(body) {
    const events = (await call('account-activity')).body.events;
    const kinds = ['signup', 'signin', 'signinFailed', 'signout', 'deviceSignedOut', 'passwordChanged', 'twoFactorOn', 'twoFactorOff', 'recoverySetUp', 'recovered', 'recoveryStarted', 'recoveryFailed', 'familyRecoveryAllowed', 'familyRecoveryStopped', 'familyRecoveryStarted', 'recoveredByFamily'];
    body.append(h('h2', {}, t('ui.account.tab.activity')),
      h('ul', { class: 'versions' }, ...events.map((e) => h('li', { class: 'version' },
        h('strong', {}, kinds.includes(e.kind) ? t('activity.' + e.kind) : e.kind), ' ',
        h('span', { class: 'muted' }, [formatDate(e.at), e.address, e.deviceName].filter(Boolean).join(' · '))))),
      h('p', { class: 'hint' }, t('activity.note')));
  },

  async twoFactor(body, account, reload) {
    const error = h('p', { class: 'error', role: 'alert' });
    body.append(h('h2', {}, t('ui.account.tab.twoFactor')));
    if (account.twoFactor.enabled) {
      const password = h('input', { id: 'tf-password', type: 'password', autocomplete: 'new-password' });
      const form = h('form', {}, h('p', {}, t('twoFactor.on', { count: account.twoFactor.recoveryCodesLeft })),
        h('label', { for: 'tf-password' }, t('ui.account.master')), password, error,
        h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button danger' }, t('ui.account.twoFactor.disable'))));
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        error.textContent = t('ui.account.checking');
        try { await call('two-factor-disable', { password: new Secret(password.value) }); password.value = ''; toast(t('twoFactor.disabled')); await reload(); } catch (e) { password.value = ''; formError(e, error); password.focus(); }
      });
      body.append(form);
      return;
    }
    // Turning it on needs the master password: a session alone must not bind the account to another app.
    const password = h('input', { id: 'tf-enrol-password', type: 'password', autocomplete: 'new-password' });
    const form = h('form', {}, h('p', {}, t('ui.account.twoFactor.off')),
      h('label', { for: 'tf-enrol-password' }, t('ui.account.master')), password, error,
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary' }, t('ui.account.twoFactor.enable'))));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!password.value) { error.textContent = t('ui.account.typeMaster'); password.focus(); return; }
      error.textContent = t('ui.account.checking');
      let setup;
      try { setup = (await call('two-factor-enrol', { password: new Secret(password.value) })).body; } catch (e) { password.value = ''; formError(e, error); password.focus(); return; }
      password.value = '';
      enrol(clear(body), setup, reload);
    });
    body.append(form);
  },

  // ACC-11: whether a recovery code is set up and since when, which families' owners may help the account
  // back in, and a new code after the master password (shown once; it replaces the old one).
  async recovery(body, account, reload) {
    const recovery = account.recovery || { configured: false };
    const families = recovery.organisations || [];
    const error = h('p', { class: 'error', role: 'alert' });
    const password = h('input', { id: 'recovery-password', type: 'password', autocomplete: 'new-password' });
    const form = h('form', {},
      recovery.configured ? h('p', { class: 'hint' }, t('ui.account.recovery.replaces')) : '',
      h('label', { for: 'recovery-password' }, t('ui.account.master')), password, error,
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary', id: 'recovery-make' }, t(recovery.configured ? 'ui.account.recovery.remake' : 'ui.account.recovery.make'))));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!password.value) { error.textContent = t('ui.account.typeMaster'); password.focus(); return; }
      error.textContent = t('ui.account.checking');
      let code;
      try { code = (await call('recovery-setup', { password: new Secret(password.value) })).body.codes[0]; } catch (e) { password.value = ''; formError(e, error); password.focus(); return; }
      password.value = '';
      clear(body).append(h('h2', {}, t('ui.account.tab.recovery')), h('p', {}, t('ui.account.recovery.made')),
        h('p', { class: 'secretkey mono', id: 'recovery-code' }, code),
        h('p', { class: 'hint' }, t('ui.account.recovery.keep')),
        h('div', { class: 'actions' }, button(t('ui.account.done'), reload, 'primary')));
      announce(t('ui.account.recovery.made'));
    });
    body.append(h('h2', {}, t('ui.account.tab.recovery')),
      h('p', { id: 'recovery-status' }, recovery.configured ? t('ui.account.recovery.on', { date: formatDate(recovery.created) }) : t('ui.account.recovery.off')),
      h('p', { id: 'recovery-families', class: 'hint' }, families.length ? t('ui.account.recovery.family', { list: families.join(', ') }) : t('ui.account.recovery.noFamily')),
      form);
  },

  async kit(body, account, reload) {
    const error = h('p', { class: 'error', role: 'alert' });
    const password = h('input', { id: 'kit-password', type: 'password', autocomplete: 'new-password' });
    const download = h('form', {}, h('p', {}, t('ui.account.kit.text')),
      h('label', { for: 'kit-password' }, t('ui.account.master')), password, error,
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary' }, icon('file-key'), t('ui.account.kit.download'))));
    download.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!password.value) { error.textContent = t('ui.account.typeMaster'); password.focus(); return; }
      error.textContent = t('ui.account.checking');
      try {
        const file = (await call('kit-pdf', { password: new Secret(password.value), language })).body;
        password.value = '';
        saveFile(file);
        error.textContent = '';
        toast(t('ui.account.kit.saved'));
      } catch (e) { password.value = ''; formError(e, error); password.focus(); }
    });
    body.append(h('h2', {}, t('ui.account.tab.kit')), download);
    if (account.kitConfirmed) { body.append(h('p', { class: 'notice', role: 'note' }, t('ui.account.kit.confirmed'))); return; }
    const confirmError = h('p', { class: 'error', role: 'alert' });
    const lastFour = h('input', { id: 'kit-last-four', type: 'text', spellcheck: 'false', maxlength: '8' });
    const confirm = h('form', {}, h('h3', {}, t('ui.account.kit.confirmTitle')), h('label', { for: 'kit-last-four' }, t('ui.account.kit.lastFour')), lastFour, confirmError,
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button' }, t('ui.account.kit.confirm'))));
    confirm.addEventListener('submit', async (event) => {
      event.preventDefault();
      try {
        await call('kit-confirm', { lastFour: new Secret(lastFour.value) });
        lastFour.value = '';
        toast(t('kit.confirmed'));
        await refreshNotices();
        await reload();
      } catch (e) { formError(e, confirmError); lastFour.focus(); }
    });
    body.append(confirm);
  },
};

// Two-factor setup: the QR code (drawn here from the agent's modules) and the setup key, then a code of the
// app turns it on and the ten recovery codes are shown once.
function enrol(body, setup, reload) {
  const error = h('p', { class: 'error', role: 'alert' });
  const code = h('input', { id: 'tf-code', type: 'text', inputmode: 'numeric' });
  const form = h('form', {}, h('label', { for: 'tf-code' }, t('ui.account.twoFactor.code')), code, error,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary' }, t('ui.account.twoFactor.turnOn'))));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const codes = (await call('two-factor-confirm', { code: new Secret(code.value.trim()) })).body.codes;
      code.value = '';
      clear(body).append(h('h2', {}, t('ui.account.tab.twoFactor')), h('p', {}, t('twoFactor.enabled')), h('p', {}, t('twoFactor.keepCodes')),
        h('ul', { class: 'chips', id: 'recovery-codes' }, ...codes.map((c) => h('li', { class: 'chip mono' }, c))),
        h('div', { class: 'actions' }, button(t('ui.account.done'), reload, 'primary')));
    } catch (e) { code.value = ''; formError(e, error); code.focus(); }
  });
  body.append(h('h2', {}, t('ui.account.tab.twoFactor')), ...(setup.size ? [h('p', {}, t('ui.account.twoFactor.scan')), qrCode(setup, t('ui.account.twoFactor.qr'))] : []),
    h('p', {}, t('ui.account.twoFactor.key')), h('p', { class: 'mono', id: 'tf-setup-key' }, setup.setupKey.replace(/(.{4})(?=.)/g, '$1 ')), form);
  code.focus();
}

// Signing this device out: the Secret Key leaves it (asked first, with the Emergency Kit named); the vault
// stays here encrypted and opens again after the next sign-in.
// `showKit` (when the account page is up): the dialog offers the Emergency Kit first (ACC-9, KIT-5).
function signOutHere(showKit) {
  return h('div', { class: 'signout' }, h('h3', {}, t('ui.account.signOutHere')), h('p', { class: 'hint' }, t('ui.account.signOutHere.text')),
    button(t('ui.account.signOutHere'), async () => {
      const ok = await dialog(t('ui.account.signOutHere.title'), h('p', {}, t('ui.account.signOutHere.confirm')), [{ label: t('ui.cancel'), value: false },
        showKit ? { label: t('ui.account.kitFirst'), value: 'kit', primary: true } : null, { label: t('ui.account.signOutHere'), value: true, danger: true }].filter(Boolean));
      if (ok === 'kit') { showKit(); return; }
      if (!ok) return;
      try {
        const ended = (await call('account-signout', { forgetSecretKey: true })).body.count === 1;
        await route();
        // Out of reach, the server still holds the session until it expires: said once the first screen shows.
        if (!ended) toast(t('ui.account.signedOutOffline'), null, 12);
      } catch (e) { report(e); }
    }, 'danger'));
}
