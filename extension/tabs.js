// What the service worker remembers per tab, in memory only (never in storage): the save offer waiting for the
// user (it holds the submitted password until saved, dismissed or expired), the login filled last and the site
// it was filled on (for the one-time code that usually follows), the logins each frame was offered (the only
// ones it may ask to fill) and the last time the content script refused to act. The toolbar badge says "1"
// while an offer waits and "!" after a refusal.

const api = globalThis.browser ?? globalThis.chrome;

/** How long an unanswered offer keeps the password it holds. */
const OFFER_LIFETIME_MS = 10 * 60 * 1000;
/** How long after a fill the tab offers that login's one-time code. */
const CODE_WINDOW_MS = 5 * 60 * 1000;
/** How long the logins a frame's menu was offered stay the ones that frame may ask for. */
const OFFERED_LIFETIME_MS = 10 * 60 * 1000;

const memory = new Map();

function tab(tabId) {
  let entry = memory.get(tabId);
  if (!entry) {
    entry = { offer: null, lastFill: null, refusal: null, frames: new Map() };
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

/** The login just filled and the registrable site of the frame it was filled in. */
export function recordFill(tabId, { item, title, hasCode, site }) {
  tab(tabId).lastFill = { item, title, hasCode: Boolean(hasCode), site, at: Date.now() };
}

/** The login filled last in the tab, if within the code window and filled on `site` (a frame of another site gets none). */
export function lastFill(tabId, site) {
  const fill = memory.get(tabId)?.lastFill;
  return fill && fill.site === site && Date.now() - fill.at <= CODE_WINDOW_MS ? fill : null;
}

// MARK: what each frame was offered (frames by the browser's frameId, each with the origin it had then)

/** The ids of the candidates just answered to a frame: it may ask to fill these, and no others. */
export function rememberOffered(tabId, frameId, origin, ids) {
  tab(tabId).frames.set(frameId, { origin, ids: new Set(ids), at: Date.now() });
}

/** Whether the frame, still at the same origin, was recently offered the login `id`. */
export function wasOffered(tabId, frameId, origin, id) {
  const frame = memory.get(tabId)?.frames.get(frameId);
  return Boolean(frame && frame.origin === origin && Date.now() - frame.at <= OFFERED_LIFETIME_MS && frame.ids.has(id));
}

/** The tab navigated: its frames are new documents, offered nothing yet. */
export function forgetOffered(tabId) {
  memory.get(tabId)?.frames.clear();
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
