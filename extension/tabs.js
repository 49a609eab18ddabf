// What the service worker remembers per tab, in memory only (never in storage): the save offer waiting for the
// user (it holds the submitted password until saved, dismissed or expired), the login filled last (for the
// one-time code that usually follows) and the last time the content script refused to act. The toolbar badge
// says "1" while an offer waits and "!" after a refusal.

const api = globalThis.browser ?? globalThis.chrome;

/** How long an unanswered offer keeps the password it holds. */
const OFFER_LIFETIME_MS = 10 * 60 * 1000;
/** How long after a fill the tab offers that login's one-time code. */
const CODE_WINDOW_MS = 5 * 60 * 1000;

const memory = new Map();

function tab(tabId) {
  let entry = memory.get(tabId);
  if (!entry) {
    entry = { offer: null, lastFill: null, refusal: null };
    memory.set(tabId, entry);
  }
  return entry;
}

/** Forgets everything of a closed tab. */
export function forgetTab(tabId) {
  const entry = memory.get(tabId);
  if (entry && entry.offer) dropOffer(entry);
  memory.delete(tabId);
}

// MARK: offers

function dropOffer(entry) {
  clearTimeout(entry.offer.timer);
  entry.offer.password = "";
  entry.offer = null;
}

/**
 * Keeps an offer {url, host, username, password, action (pending, save, update), item?, title?} for the tab,
 * replacing any earlier one. Returns it.
 */
export function setOffer(tabId, offer) {
  const entry = tab(tabId);
  if (entry.offer) dropOffer(entry);
  offer.at = Date.now();
  offer.timer = setTimeout(() => clearOffer(tabId, offer), OFFER_LIFETIME_MS);
  entry.offer = offer;
  updateBadge(tabId);
  return offer;
}

export function getOffer(tabId) {
  return memory.get(tabId)?.offer ?? null;
}

/** Drops the tab's offer (only `which` when given: a newer one stays). */
export function clearOffer(tabId, which) {
  const entry = memory.get(tabId);
  if (!entry || !entry.offer || (which && entry.offer !== which)) return;
  dropOffer(entry);
  updateBadge(tabId);
}

// MARK: the last fill

export function recordFill(tabId, { item, title, hasCode, url }) {
  tab(tabId).lastFill = { item, title, hasCode: Boolean(hasCode), url, at: Date.now() };
}

/** The login filled last in the tab, if within the code window. */
export function lastFill(tabId) {
  const fill = memory.get(tabId)?.lastFill;
  return fill && Date.now() - fill.at <= CODE_WINDOW_MS ? fill : null;
}

// MARK: refusals

export function setRefusal(tabId, reason) {
  tab(tabId).refusal = { reason, at: Date.now() };
  updateBadge(tabId);
}

export function getRefusal(tabId) {
  return memory.get(tabId)?.refusal ?? null;
}

export function clearRefusal(tabId) {
  const entry = memory.get(tabId);
  if (!entry || !entry.refusal) return;
  entry.refusal = null;
  updateBadge(tabId);
}

// MARK: the badge

/** Sets the tab's badge from what waits: "!" after a refusal, "1" while an offer waits. Never a secret. */
export function updateBadge(tabId) {
  const entry = memory.get(tabId);
  const text = entry?.refusal ? "!" : entry?.offer ? "1" : "";
  const color = entry?.refusal ? "#b3261e" : "#2f52d6";
  // A tab that closed meanwhile makes these fail; nothing to do then.
  Promise.resolve(api.action.setBadgeText({ tabId, text })).catch(() => {});
  if (text) Promise.resolve(api.action.setBadgeBackgroundColor({ tabId, color })).catch(() => {});
}
