// Passbox's service worker (Firefox: its background script): the only part that talks to the agent. The
// content scripts and the popup ask it by message; it answers each from the browser's own word for who asked
// (sender.url, sender.tab), never from an address a page or a content script reports. A login's secret leaves
// it only as the answer to the content script of the frame that asked (and only a login that frame's menu was
// offered: a frame's renderer may be the page's to command), or, for the popup's Fill, to the tab's top frame
// after it checked the tab still shows the page the list was for. The agent learns a page's origin, never its
// path or query. Nothing of the vault is stored.

import { Agent } from "./agent.js";
import { base64url } from "./crypto.js";
import { AgentError, Secret, factIsTrue } from "./protocol.js";
import {
  clearOffer, clearRefusal, forgetOffered, forgetTab, getOffer, getRefusal, lastFill, recordFill, rememberOffered, setOffer, setRefusal,
  updateBadge, wasOffered,
} from "./tabs.js";

const api = globalThis.browser ?? globalThis.chrome;
const agent = new Agent();

/** Failures that leave a save offer waiting: the popup asks again once the vault is reachable and open. */
const KEEP_PENDING = new Set(["locked", "notPaired", "agentUnavailable", "handshakeFailed"]);
/** The longest username or password a page may hand in (the host takes 4 MiB; no login needs more). */
const MAX_FIELD = 4096;

// MARK: small helpers

/** The URL if it is a web page's (http or https), else null. */
function webURL(text) {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:" ? url : null;
  } catch {
    return null;
  }
}

/** What the agent is told of a page: its origin alone (the path, query and fragment are the page's own business). */
function agentURL(url) {
  return `${url.origin}/`;
}

/**
 * A host's registrable site, roughly: its last two labels (an IP address whole). It only tells this tab's
 * frames apart (which may have the tab's one-time code, make its save offer, or need proof that they are seen);
 * the agent matches logins with the real public suffix list and refuses other sites anyway.
 */
function siteOf(hostname) {
  const host = hostname.replace(/\.$/, "");
  if (host.startsWith("[") || /^[\d.]+$/.test(host)) return host;
  return host.split(".").slice(-2).join(".");
}

/** Whether the tab's page (the top frame) is of the same site as the frame at `url`. */
function sameSiteAsTop(sender, url) {
  if (sender.frameId === 0) return true;
  const top = webURL(sender.tab.url ?? "");
  return Boolean(top) && siteOf(top.hostname) === siteOf(url.hostname);
}

/**
 * Whether a subframe sits in a page of another site (the tab's, or, by the frame's own word, any frame around
 * it): such a page can cover or fade the frame where the frame cannot see it. The ancestors come from the
 * content script; a frame that lied would only lift its own guard.
 */
function crossSiteFrame(sender, url, ancestors) {
  if (sender.frameId === 0) return false;
  const around = [sender.tab.url ?? "", ...(Array.isArray(ancestors) ? ancestors.slice(0, 32) : [])];
  return around.some((a) => {
    const outer = typeof a === "string" ? webURL(a) : null;
    return !outer || siteOf(outer.hostname) !== siteOf(url.hostname);
  });
}

/** A failure as it may travel to a content script or the popup: code and facts, never a secret. */
function errorView(error) {
  if (error instanceof AgentError) return { code: error.code, facts: error.facts };
  return { code: "internal", facts: { reason: String((error && error.message) || error) } };
}

function text(value, limit = MAX_FIELD) {
  return typeof value === "string" && value.length <= limit ? value : null;
}

function candidateView(c) {
  return { id: c.id, title: c.title, username: c.username ?? "", website: c.website ?? "", match: c.match, shared: typeof c.shared === "string" ? c.shared : "" };
}

function offerView(offer) {
  return offer && { action: offer.action, username: offer.username, host: offer.host, title: offer.title ?? "" };
}

/** Which browser this is and a name for it, for the pairing the user confirms ("Chromium on Linux"). */
async function identity() {
  const firefox = typeof api.runtime.getBrowserInfo === "function";
  const brands = (!firefox && globalThis.navigator?.userAgentData?.brands) || [];
  const browser = firefox ? "firefox" : brands.some((b) => b.brand === "Google Chrome") ? "chrome" : "chromium";
  const label = { chromium: "Chromium", chrome: "Chrome", firefox: "Firefox" }[browser];
  let os = "";
  try {
    os = (await api.runtime.getPlatformInfo()).os;
  } catch {
    // Unknown system: the name is the browser's alone.
  }
  const system = { linux: "Linux", mac: "macOS", win: "Windows", cros: "ChromeOS", openbsd: "OpenBSD", android: "Android" }[os] || os;
  const name = system ? api.i18n.getMessage("pair_deviceName", [label, system]) || `${label} on ${system}` : label;
  return { browser, name };
}

// MARK: pairing (kept in memory and in session storage, so a restarted worker still shows the code)

let pairing = null;

async function currentPairing() {
  if (!pairing && api.storage?.session) {
    try {
      pairing = (await api.storage.session.get("pairing")).pairing ?? null;
    } catch {
      pairing = null;
    }
  }
  if (pairing && pairing.expiresAt <= Date.now()) await forgetPairing();
  return pairing && { code: pairing.code, expiresAt: pairing.expiresAt };
}

async function forgetPairing() {
  pairing = null;
  try {
    await api.storage?.session?.remove("pairing");
  } catch {
    // Nothing kept.
  }
}

// MARK: save offers

async function askOffer(tabId, offer) {
  try {
    const { body } = await agent.call("browser-offer", { url: offer.url, username: offer.username, password: new Secret(offer.password) }, "browserOffer");
    if (getOffer(tabId) !== offer) return;
    if (body.action === "save" || body.action === "update") {
      Object.assign(offer, { action: body.action, item: body.item ?? null, title: body.title ?? null });
      updateBadge(tabId);
    } else {
      clearOffer(tabId, offer);
    }
  } catch (error) {
    if (!(error instanceof AgentError) || !KEEP_PENDING.has(error.code)) clearOffer(tabId, offer);
  }
}

/** A login the page at `url` (a URL) submitted (or a password generated for it): kept for the tab and asked about. */
async function considerOffer(tabId, url, username, password) {
  const earlier = getOffer(tabId);
  const address = agentURL(url);
  // The same submission seen twice (the click on the button, then the form's submit event).
  if (earlier && earlier.url === address && earlier.username === username && earlier.password === password) return;
  const offer = setOffer(tabId, { url: address, host: url.hostname, username, password, action: "pending", item: null, title: null });
  await askOffer(tabId, offer);
}

// MARK: the content script's requests (sender.url is the frame's address, sender.tab its tab)

const fromContent = {
  /**
   * The candidates for the frame's site (never a secret), or for a one-time-code field the tab's last fill if
   * it was on this frame's site. The ids answered are the only ones this frame may then ask to fill.
   */
  async candidates(message, sender) {
    const url = webURL(sender.url);
    if (!url) throw new AgentError("notAnAddress", { address: "" });
    const crossSite = crossSiteFrame(sender, url, message.ancestors);
    if (message.kind === "code") {
      const fill = lastFill(sender.tab.id, siteOf(url.hostname));
      return { ok: true, crossSiteFrame: crossSite, code: fill && fill.hasCode ? { title: fill.title } : null };
    }
    let body;
    try {
      ({ body } = await agent.call("browser-candidates", { url: agentURL(url) }, "fill"));
    } catch (error) {
      // Where the frame sits matters to its menu even then: Generate is offered to the page's own site only.
      return { ok: false, error: errorView(error), crossSiteFrame: crossSite };
    }
    const candidates = body.candidates.map(candidateView);
    rememberOffered(sender.tab.id, sender.frameId, url.origin, candidates.map((c) => c.id));
    return { ok: true, host: body.host, insecure: url.protocol === "http:", crossSiteFrame: crossSite, candidates };
  },

  /**
   * One login's values (or the last-filled login's one-time code) for the frame that asked, after its click.
   * A content script never confirms another site: its list holds only logins of its frame's site, and a login
   * of another site is the popup's to fill, where the page cannot answer for the user.
   */
  async fill(message, sender) {
    const url = webURL(sender.url);
    if (!url) throw new AgentError("notAnAddress", { address: "" });
    const tabId = sender.tab.id;
    const site = siteOf(url.hostname);
    if (message.code === true) {
      // Only the code of the login filled last in this tab, to a frame of the site it was filled on; the agent
      // still checks that it fits.
      const fill = lastFill(tabId, site);
      if (!fill) throw new AgentError("noRecentFill");
      const { body } = await agent.call("browser-fill", { url: agentURL(url), item: fill.item, confirmOtherSite: false, code: true }, "browserFill");
      return { ok: true, code: body.code ?? "" };
    }
    if (typeof message.item !== "string" || !message.item) throw new AgentError("badRequest", { reason: "no item" });
    // Only a login this frame (same tab, frame and origin) was just offered: not one a page's script names.
    if (!wasOffered(tabId, sender.frameId, url.origin, message.item)) throw new AgentError("notOffered");
    // The page is not encrypted: the content script asked the user first; this is the second line.
    if (url.protocol === "http:" && message.insecureConfirmed !== true) throw new AgentError("insecurePage", { host: url.hostname });
    const { body } = await agent.call("browser-fill", { url: agentURL(url), item: message.item, confirmOtherSite: false, code: false }, "browserFill");
    recordFill(tabId, { item: body.itemID, title: body.title, hasCode: body.hasCode, site });
    return { ok: true, title: body.title, username: body.username ?? "", password: body.password ?? "" };
  },

  /**
   * A generated password for the frame's new-password fields; it also waits as the tab's save offer. Only for
   * the page's own site: a frame of another site must not replace the tab's offer.
   */
  async generate(message, sender) {
    const url = webURL(sender.url);
    if (!url) throw new AgentError("notAnAddress", { address: "" });
    if (!sameSiteAsTop(sender, url)) throw new AgentError("crossSiteFrame");
    const { body } = await agent.call("browser-generate", undefined, "generated");
    void considerOffer(sender.tab.id, url, "", body.password);
    return { ok: true, password: body.password };
  },

  /**
   * A form with a password was submitted: ask whether it is new or changed, and keep it for the popup. The
   * tab has one offer: only its page's own site may make it, not a frame of another site.
   */
  async submitted(message, sender) {
    const url = webURL(sender.url);
    const username = text(message.username);
    const password = text(message.password);
    if (!url || username === null || !password || !sameSiteAsTop(sender, url)) return { ok: false };
    void considerOffer(sender.tab.id, url, username, password);
    return { ok: true };
  },

  /** The content script would not act: its button or menu was hidden or covered. */
  async refused(message, sender) {
    const reason = ["hidden", "covered"].includes(message.reason) ? message.reason : "hidden";
    setRefusal(sender.tab.id, reason);
    return { ok: true };
  },
};

// MARK: the popup's requests (an extension page: it names the tab, whose address the worker reads itself)

async function tabURL(tabId) {
  if (!Number.isInteger(tabId)) throw new AgentError("badRequest", { reason: "no tab" });
  const tab = await api.tabs.get(tabId);
  return tab.url ?? "";
}

/** The tab must still show the page the popup's list was for. */
async function sameTabPage(message) {
  const url = await tabURL(message.tab);
  if (url !== message.url) throw new AgentError("pageChanged");
  const web = webURL(url);
  if (!web) throw new AgentError("notAnAddress", { address: "" });
  return web;
}

function failureState(error) {
  const view = errorView(error);
  switch (view.code) {
    case "agentUnavailable":
      return { state: "unavailable", error: view };
    case "notPaired":
      return { state: "notPaired", pending: factIsTrue(view.facts.pending) };
    default:
      return { state: "problem", error: view };
  }
}

const fromPopup = {
  async state(message) {
    const url = await tabURL(message.tab).catch(() => "");
    const web = webURL(url);
    const view = {
      ok: true, state: "unlocked", tab: message.tab, url, web: Boolean(web), host: web ? web.hostname : "",
      insecure: web?.protocol === "http:", candidates: [], offer: null, refusal: getRefusal(message.tab),
    };
    let status;
    try {
      ({ body: status } = await agent.call("status", undefined, "status"));
    } catch (error) {
      const failed = { ...view, ...failureState(error) };
      if (failed.state === "notPaired") failed.pairing = await currentPairing();
      return failed;
    }
    await forgetPairing();
    if (!status.unlocked) {
      const quick = status.quickUnlock || {};
      return { ...view, state: "locked", account: Boolean(status.account), quickUnlock: { offered: Boolean(quick.offered), user: quick.user ?? "" }, offer: offerView(getOffer(message.tab)) };
    }
    const offer = getOffer(message.tab);
    if (offer && offer.action === "pending") await askOffer(message.tab, offer);
    view.offer = offerView(getOffer(message.tab));
    if (web) {
      try {
        const { body } = await agent.call("browser-candidates", { url: agentURL(web) }, "fill");
        view.host = body.host || view.host;
        view.candidates = body.candidates.map(candidateView);
      } catch (error) {
        view.candidatesError = errorView(error);
      }
    }
    return view;
  },

  async "pair-begin"() {
    const { browser, name } = await identity();
    pairing = await agent.pairBegin(browser, name);
    try {
      await api.storage?.session?.set({ pairing });
    } catch {
      // Memory alone then.
    }
    return { ok: true, pairing: { code: pairing.code, expiresAt: pairing.expiresAt } };
  },

  /** One try of the handshake: paired once the user confirmed the code where the vault is. */
  async "pair-poll"() {
    await agent.prove(true);
    await forgetPairing();
    return { ok: true, paired: true };
  },

  async unlock(message) {
    const password = text(message.password);
    if (!password) throw new AgentError("badRequest", { reason: "no password" });
    await agent.call("unlock", { password: new Secret(password, { normalize: true }) }, "done");
    return { ok: true };
  },

  async "quick-unlock"(message) {
    const password = text(message.password);
    if (!password) throw new AgentError("badRequest", { reason: "no password" });
    await agent.call("quick-unlock", { loginPassword: new Secret(password, { normalize: true }) }, "done");
    return { ok: true };
  },

  async lock() {
    await agent.call("lock", { forget: false }, "done");
    return { ok: true };
  },

  async search(message) {
    const query = text(message.query) ?? "";
    const { body } = await agent.call("browser-search", { query: query.slice(0, 200) }, "items");
    const items = (body.items || []).map((i) => ({
      id: i.id, title: i.title, category: i.category, categoryName: i.categoryName, summary: i.summary ?? "", website: (i.websites || [])[0] ?? "", locked: Boolean(i.locked),
    }));
    return { ok: true, items, total: body.total ?? items.length };
  },

  /** The popup's Fill: the values go to the tab's top frame only, and only if it still shows the same page. */
  async "fill-tab"(message) {
    const web = await sameTabPage(message);
    if (web.protocol === "http:" && message.insecureConfirmed !== true) throw new AgentError("insecurePage", { host: web.hostname });
    const { body } = await agent.call("browser-fill", { url: agentURL(web), item: String(message.item), confirmOtherSite: message.confirmOtherSite === true, code: false }, "browserFill");
    let values = { type: "fill-values", url: message.url, username: body.username ?? "", password: body.password ?? "" };
    let answer;
    try {
      answer = await api.tabs.sendMessage(message.tab, values, { frameId: 0 });
    } catch {
      throw new AgentError("noContentScript");
    } finally {
      values.password = "";
      values = null;
    }
    if (!answer || answer.filled !== true) throw new AgentError(answer?.reason === "pageChanged" ? "pageChanged" : "noLoginField");
    recordFill(message.tab, { item: body.itemID, title: body.title, hasCode: body.hasCode, site: siteOf(web.hostname) });
    return { ok: true, title: body.title };
  },

  /** The popup copies the code itself (navigator.clipboard); it is an extension page, not the web page. */
  async "copy-code"(message) {
    const web = await sameTabPage(message);
    const { body } = await agent.call("browser-fill", { url: agentURL(web), item: String(message.item), confirmOtherSite: message.confirmOtherSite === true, code: true }, "browserFill");
    return { ok: true, code: body.code ?? "", title: body.title };
  },

  async "save-offer"(message) {
    let offer = getOffer(message.tab);
    if (!offer) throw new AgentError("noOffer");
    const username = text(message.username);
    if (username !== null && username !== offer.username) {
      // Another username than the page's: whether it is new or an update is the agent's to say again.
      offer.username = username;
      offer.action = "pending";
    }
    if (offer.action === "pending") await askOffer(message.tab, offer);
    offer = getOffer(message.tab);
    if (!offer) throw new AgentError("noOffer");
    if (offer.action === "pending") throw new AgentError("locked");
    const title = text(message.title)?.trim() || undefined;
    const { body } = await agent.call("browser-save", {
      url: offer.url, username: offer.username, password: new Secret(offer.password),
      item: offer.action === "update" ? offer.item ?? undefined : undefined, title: offer.action === "update" ? undefined : title,
    }, "saved");
    clearOffer(message.tab, offer);
    return { ok: true, title: body.title };
  },

  async "dismiss-offer"(message) {
    clearOffer(message.tab);
    return { ok: true };
  },

  async "dismiss-refusal"(message) {
    clearRefusal(message.tab);
    return { ok: true };
  },
};

// MARK: passkeys (the page's WebAuthn calls, through webauthn-page.js and webauthn.js of the top frame)

/** Prompts waiting for the user in Passbox's own window: request id → {info, resolve, windowId}. */
const prompts = new Map();
const B64URL = /^[A-Za-z0-9_-]{1,1400}$/;

function utf8Base64url(text) {
  return base64url(new TextEncoder().encode(text));
}

/**
 * Asks in a window of the extension's own (the page can neither see, cover nor click it): the answer is
 * {use: "passbox", item, credential}, {use: "browser"} or {use: "cancel"} (the window closed).
 */
async function askInWindow(info) {
  const id = crypto.randomUUID();
  return new Promise((resolve) => {
    prompts.set(id, { info, resolve, windowId: null });
    api.windows.create({ url: api.runtime.getURL(`passkey.html?request=${id}`), type: "popup", width: 460, height: 560, focused: true }).then(
      (made) => {
        const waiting = prompts.get(id);
        if (waiting) waiting.windowId = made.id;
        else api.windows.remove(made.id).catch(() => {});
      },
      () => {
        prompts.delete(id);
        resolve({ use: "browser" });
      });
  });
}

function answerPrompt(id, answer) {
  const waiting = prompts.get(id);
  if (!waiting) return false;
  prompts.delete(id);
  waiting.resolve(answer);
  if (waiting.windowId !== null) api.windows.remove(waiting.windowId).catch(() => {});
  return true;
}

api.windows?.onRemoved?.addListener((windowId) => {
  for (const [id, waiting] of prompts) if (waiting.windowId === windowId) answerPrompt(id, { use: "cancel" });
});

/** What a page's request may hold: base64url ids and a challenge, short names, a few numbers. */
function passkeyRequest(kind, r) {
  if (!r || typeof r !== "object") return null;
  const rpId = r.rpId === null || r.rpId === undefined ? null : text(r.rpId, 253);
  const challenge = text(r.challenge, 1400);
  if ((r.rpId && rpId === null) || !challenge || !B64URL.test(challenge)) return null;
  if (kind === "get") {
    const allow = Array.isArray(r.allow) ? r.allow.slice(0, 64).filter((c) => typeof c === "string" && B64URL.test(c)) : [];
    return { rpId, challenge, allow };
  }
  const user = r.user || {};
  const algorithms = Array.isArray(r.algorithms) ? r.algorithms.slice(0, 16).filter(Number.isInteger) : [];
  const exclude = Array.isArray(r.exclude) ? r.exclude.slice(0, 64).filter((c) => typeof c === "string" && B64URL.test(c)) : [];
  const handle = text(user.id, 100);
  if (!handle || !B64URL.test(handle)) return null;
  return {
    rpId, challenge, algorithms, exclude, attachment: text(r.attachment, 40),
    user: { id: handle, name: text(user.name, 256) ?? "", displayName: text(user.displayName, 256) ?? "" },
  };
}

const refusedAnswer = { use: "refused", error: "NotAllowedError" };

async function passkeyGet(url, r) {
  let found;
  try {
    found = (await agent.call("browser-passkeys", { url: agentURL(url), rp: r.rpId ?? undefined, allow: r.allow }, "passkeys")).body;
  } catch {
    return { use: "browser" }; // Locked, not paired, no agent, or a relying party this page may not claim: the browser's.
  }
  if (!found.passkeys.length) return { use: "browser" };
  const choice = await askInWindow({
    kind: "get", rp: found.rp, origin: found.origin,
    passkeys: found.passkeys.map((p) => ({ item: p.item, title: p.title, credential: p.credential, userName: p.userName, displayName: p.displayName })),
  });
  if (choice.use !== "passbox") return choice.use === "browser" ? { use: "browser" } : refusedAnswer;
  const clientData = JSON.stringify({ type: "webauthn.get", challenge: r.challenge, origin: found.origin, crossOrigin: false });
  try {
    const { body } = await agent.call("browser-passkey-sign",
      { url: agentURL(url), rp: found.rp, item: choice.item, credential: choice.credential, clientData: utf8Base64url(clientData) }, "passkeySigned");
    return {
      use: "passbox",
      credential: { id: body.credential, clientDataJSON: utf8Base64url(clientData), authenticatorData: body.authenticatorData, signature: body.signature, userHandle: body.userHandle },
    };
  } catch {
    return refusedAnswer;
  }
}

async function passkeyCreate(url, r) {
  // A site that wants a security key, or an algorithm Passbox does not make, goes to the browser at once.
  if (!r.algorithms.includes(-7) || r.attachment === "cross-platform") return { use: "browser" };
  let checked;
  try {
    checked = (await agent.call("browser-passkeys", { url: agentURL(url), rp: r.rpId ?? undefined, allow: [] }, "passkeys")).body;
  } catch {
    return { use: "browser" };
  }
  const choice = await askInWindow({ kind: "create", rp: checked.rp, origin: checked.origin, userName: r.user.name, displayName: r.user.displayName });
  if (choice.use !== "passbox") return choice.use === "browser" ? { use: "browser" } : refusedAnswer;
  const clientData = JSON.stringify({ type: "webauthn.create", challenge: r.challenge, origin: checked.origin, crossOrigin: false });
  try {
    const { body } = await agent.call("browser-passkey-create", {
      url: agentURL(url), rp: checked.rp, userHandle: r.user.id, userName: r.user.name, displayName: r.user.displayName, algorithms: r.algorithms,
      exclude: r.exclude,
    }, "passkeyCreated");
    return {
      use: "passbox",
      credential: {
        id: body.credential, clientDataJSON: utf8Base64url(clientData), attestationObject: body.attestationObject, authenticatorData: body.authenticatorData,
        publicKey: body.publicKey, algorithm: body.algorithm,
      },
    };
  } catch (error) {
    // WebAuthn's answer to a credential the site excludes is InvalidStateError.
    if (error instanceof AgentError && error.code === "passkeyExists") return { use: "refused", error: "InvalidStateError" };
    return refusedAnswer;
  }
}

fromContent.webauthn = async (message, sender) => {
  const url = webURL(sender.url);
  // Only a top frame's page (a frame's WebAuthn calls stay the browser's).
  if (!url || sender.frameId !== 0 || (message.kind !== "get" && message.kind !== "create")) return { use: "browser" };
  const r = passkeyRequest(message.kind, message.request);
  if (!r) return { use: "browser" };
  return message.kind === "get" ? passkeyGet(url, r) : passkeyCreate(url, r);
};

/** The prompt window: what it asks (never a key), and the user's answer. */
fromPopup.passkeyPrompt = async (message) => {
  const waiting = typeof message.request === "string" ? prompts.get(message.request) : null;
  if (!waiting) return { ok: false, error: { code: "passkeyPromptGone", facts: {} } };
  return { ok: true, ...waiting.info };
};

fromPopup.passkeyAnswer = async (message) => {
  const waiting = typeof message.request === "string" ? prompts.get(message.request) : null;
  if (!waiting) return { ok: false };
  let answer = { use: "cancel" };
  if (message.use === "browser") answer = { use: "browser" };
  if (message.use === "passbox") {
    if (waiting.info.kind === "create") answer = { use: "passbox" };
    else {
      const chosen = waiting.info.passkeys.find((p) => p.credential === message.credential && p.item === message.item);
      if (chosen) answer = { use: "passbox", item: chosen.item, credential: chosen.credential };
    }
  }
  return { ok: answerPrompt(message.request, answer) };
};

// MARK: wiring

function isExtensionPage(sender) {
  return sender.id === api.runtime.id && typeof sender.url === "string" && sender.url.startsWith(api.runtime.getURL(""));
}

function isContentScript(sender) {
  return sender.id === api.runtime.id && Boolean(sender.tab) && Number.isInteger(sender.tab.id) && webURL(sender.url) !== null;
}

api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (!message || typeof message.type !== "string") return false;
  const table = isExtensionPage(sender) ? fromPopup : isContentScript(sender) ? fromContent : null;
  const handler = table && Object.hasOwn(table, message.type) ? table[message.type] : null;
  if (!handler) return false;
  handler(message, sender).then(sendResponse, (error) => sendResponse({ ok: false, error: errorView(error) }));
  return true; // The answer comes asynchronously.
});

api.tabs.onRemoved.addListener((tabId) => forgetTab(tabId));

api.tabs.onUpdated.addListener((tabId, change) => {
  // A refusal is about the page it happened on, and so are the logins its frames were offered; the offer
  // outlives the navigation its submit caused.
  if (change.url) {
    clearRefusal(tabId);
    forgetOffered(tabId);
  }
  // Chromium may reset a tab's badge when it navigates: set it again.
  if (change.status === "complete" || change.url) updateBadge(tabId);
});
