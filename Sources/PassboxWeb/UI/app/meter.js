// The strength meter of a password field: gate, account, editor and tools share it, so none imports another
// screen for it (an import cycle once: gate loads account, which imported gate).
import { call, Secret } from './api.js';
import { t } from './i18n.js';

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
