// The strength meter of a password field: gate, account, editor and tools share it, so none imports another
// screen for it (an import cycle once: gate loads account, which imported gate).
import { call, Secret } from './api.js';
import { t, language } from './i18n.js';

// The strength of a password as the meter and its reason (the agent rates it with zxcvbn).
export async function rateStrength(password, userInputs, meter, text) {
  if (!password) { meter.dataset.score = ''; meter.firstChild.style.width = '0'; text.textContent = ''; return; }
  try {
    const s = (await call('strength', { password: new Secret(password), userInputs })).body;
    meter.dataset.score = String(s.score);
    meter.firstChild.style.width = `${(s.score + 1) * 20}%`;
    const label = t('strength.label.' + s.score);
    const parts = [t('ui.strength.text', { label, log10: Math.round(s.guessesLog10) })];
    if (s.warning) parts.push(t(s.warning));
    text.textContent = parts.join('. ');
  } catch (e) { /* the meter is advice: without it the form still works */ }
}

// GEN-4: "Suggest a password made of words" wherever a master password is chosen (a new vault, sign-up, a
// changed password): five words from the agent's generator in the page's language, with a digit, put in the
// field and its repetition and shown there (to be written down), then rated as typing would be.
export function suggestButton(password, repeat) {
  const note = document.createElement('p');
  note.className = 'hint';
  note.setAttribute('aria-live', 'polite');
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'button ghost';
  b.id = `${password.id}-suggest`;
  b.textContent = t('ui.suggest');
  b.addEventListener('click', async () => {
    try {
      const made = (await call('generate', { words: 5, uppercase: true, lowercase: true, digits: true, symbols: true, allowSimilar: false, separator: '-', capitalize: false, includeDigit: true, language })).body;
      for (const field of [password, repeat]) {
        if (!field) continue;
        field.value = made.password;
        field.type = 'text';
        field.dataset.concealed = '';
      }
      note.textContent = t('ui.suggest.note');
      password.dispatchEvent(new Event('input'));
    } catch (e) { note.textContent = ''; }
  });
  return [b, note];
}
