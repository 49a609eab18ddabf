// The screens before a vault is open: no session, the agent gone, onboarding (a new local vault) and the
// lock page; and the strength meter they share with the editor and settings.
import { call, Secret, SessionLost, AgentGone } from './api.js';
import { t, errorText, ready } from './i18n.js';
import { h, icon, button, clear, dialog, brand, toast } from './dom.js';
import { state, report, route, dropVaultState } from './app.js';
import { rateStrength, suggestButton } from './meter.js';

const root = document.getElementById('root');

export function showOffline() {
  dropVaultState();
  root.append(h('main', { id: 'main', class: 'center' }, h('div', { class: 'card' },
    brand(),
    h('h1', {}, t('ui.offline.title')), h('p', {}, t('ui.offline')))));
}


export function showNoSession() {
  dropVaultState();
  root.append(h('main', { id: 'main', class: 'center' }, h('div', { class: 'card' },
    brand(),
    h('h1', {}, t('ui.session.title')), h('p', {}, t('ui.session.text')))));
}

function passwordInput(id, labelKey, autocomplete) {
  return [h('label', { for: id }, t(labelKey)), h('input', { id, type: 'password', autocomplete, required: true })];
}

// Onboarding: a new vault on this computer, or an account on a Passbox server (sign in, or make one).
export async function showOnboarding(choice = 'local') {
  // The account forms' module only when asked for (most people start with a vault on this computer).
  const forms = choice === 'local' ? null : choice === 'link' ? await import('./link.js') : await import('./account.js');
  if (choice === 'link') await ready();
  dropVaultState();
  const choices = [['local', 'ui.onboard.choice.local'], ['signin', 'ui.onboard.choice.signin'], ['signup', 'ui.onboard.choice.signup'], ['link', 'ui.onboard.choice.link']];
  const bar = h('div', { class: 'toolbar', role: 'group', 'aria-label': t('ui.onboard.choice') },
    ...choices.map(([name, key]) => button(t(key), () => showOnboarding(name), 'ghost', { 'aria-pressed': String(name === choice), 'data-choice': name })));
  if (choice !== 'local') {
    const form = choice === 'link' ? forms.linkForm() : choice === 'signin' ? forms.signInForm() : forms.signUpForm();
    const words = { signin: 'ui.account.signIn', signup: 'ui.account.signUp', link: 'ui.link.new' }[choice];
    root.append(h('main', { id: 'main', class: 'center' }, h('div', { class: 'card' },
      brand(), bar,
      h('h1', {}, t(words + '.title')), h('p', { class: 'muted' }, t(words + '.text')), form)));
    form.querySelector('input').focus();
    return;
  }
  const error = h('p', { class: 'error', role: 'alert' });
  const meter = h('div', { class: 'meter', role: 'img', 'aria-label': t('ui.strength.meter') }, h('span'));
  const strengthText = h('p', { class: 'hint', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'button primary' }, t('ui.onboard.create'));
  const form = h('form', { novalidate: true },
    ...passwordInput('new-password', 'ui.onboard.password', 'new-password'), meter, strengthText,
    ...passwordInput('confirm-password', 'ui.onboard.confirm', 'new-password'), error,
    h('div', { class: 'actions' }, submit));
  const first = form.querySelector('#new-password');
  strengthText.after(...suggestButton(first, form.querySelector('#confirm-password')));
  first.addEventListener('input', async () => rateStrength(first.value, [], meter, strengthText));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const second = form.querySelector('#confirm-password');
    if (first.value !== second.value) { error.textContent = t('ui.onboard.mismatch'); return; }
    submit.disabled = true;
    error.textContent = t('ui.onboard.creating');
    try {
      await call('create-vault', { password: new Secret(first.value) });
      first.value = ''; second.value = '';
      await route();
    } catch (e) {
      submit.disabled = false;
      if (e instanceof SessionLost || e instanceof AgentGone) return report(e);
      error.textContent = errorText(e);
    }
  });
  root.append(h('main', { id: 'main', class: 'center' }, h('div', { class: 'card' },
    brand(), bar,
    h('h1', {}, t('ui.onboard.title')), h('p', { class: 'muted' }, t('ui.onboard.text')), form)));
  first.focus();
}

export function showLock() {
  dropVaultState();
  const status = state.status || {};
  const error = h('p', { class: 'error', role: 'alert' });
  const quick = status.quickUnlock && status.quickUnlock.offered;
  let useQuick = quick;
  const body = h('div');
  const render = () => {
    clear(body);
    const field = useQuick
      ? [h('label', { for: 'unlock-password' }, t('ui.lock.quickPassword', { user: status.quickUnlock.user || '' })), h('input', { id: 'unlock-password', type: 'password', autocomplete: 'new-password' })]
      : passwordInput('unlock-password', status.account ? 'ui.lock.masterPassword' : 'ui.lock.password', 'new-password');
    const submit = h('button', { type: 'submit', class: 'button primary' }, icon('lock'), t('ui.lock.unlock'));
    const form = h('form', {}, ...field, error, h('div', { class: 'actions' }, submit,
      quick ? button(useQuick ? t(status.account ? 'ui.lock.useMaster' : 'ui.lock.master') : t('ui.lock.quick', { user: status.quickUnlock.user || '' }), () => { useQuick = !useQuick; render(); }, 'ghost') : null));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const input = form.querySelector('#unlock-password');
      submit.disabled = true;
      error.textContent = t('ui.lock.unlocking');
      try {
        if (useQuick) await call('quick-unlock', { loginPassword: new Secret(input.value) });
        else await call('unlock', { password: new Secret(input.value) });
        input.value = '';
        await route();
      } catch (e) {
        submit.disabled = false;
        input.value = '';
        if (e instanceof SessionLost || e instanceof AgentGone) return report(e);
        // The wait after failures comes worded with its minutes (error.mustWait).
        error.textContent = errorText(e);
        input.focus();
      }
    });
    body.append(form);
    form.querySelector('input').focus();
  };
  root.append(h('main', { id: 'main', class: 'center' }, h('div', { class: 'card' },
    brand(),
    h('h1', {}, t('ui.lock.title')), body,
    h('p', { class: 'hint' }, status.account ? t('ui.lock.account', { email: status.account.email, server: status.account.server }) : t('ui.lock.vault', { path: status.vault || '' })),
    forgotButton(!!status.account), status.account ? otherAccountButton() : null)));
  render();
}

// ACC-9 on the lock page: "Use a different account…" signs this device out without the vault open. The Secret
// Key's last four characters (from the printed Emergency Kit) stand in for the master password: whoever signs
// out shows they have the Secret Key needed to sign in again, and a stranger at a locked screen cannot remove it.
function otherAccountButton() {
  return button(t('ui.lock.otherAccount'), async () => {
    const lastFour = h('input', { id: 'other-last-four', type: 'text', spellcheck: 'false', maxlength: '8', autocomplete: 'off' });
    const ok = await dialog(t('ui.lock.otherAccount.title'),
      h('div', {}, h('p', {}, t('ui.lock.otherAccount.text')), h('label', { for: 'other-last-four' }, t('ui.account.kit.lastFour')), lastFour),
      [{ label: t('ui.cancel'), value: false }, { label: t('ui.account.signOutHere'), value: true, danger: true }]);
    const typed = lastFour.value;
    lastFour.value = '';
    if (!ok) return;
    try {
      await call('account-signout', { forgetSecretKey: true, lastFour: new Secret(typed) });
      await route();
    } catch (e) {
      if (e instanceof SessionLost || e instanceof AgentGone) return report(e);
      toast(errorText(e), null, 8);
    }
  }, 'ghost', { id: 'other-account' });
}

// "Forgot your password?" (ACC-10): honestly, nobody can reset it, and what can be done instead.
export function forgotButton(account) {
  return button(t('ui.forgot.button'), () => dialog(t('ui.forgot.title'), h('p', { id: 'forgot-text' }, t(account ? 'ui.forgot.account' : 'ui.forgot.local')),
    [{ label: t('ui.close'), value: true, primary: true }]), 'ghost', { id: 'forgot' });
}

// MARK: the shell
