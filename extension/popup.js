// Passbox's popup (the toolbar button). It shows what the service worker says about the tab: the agent is
// unreachable, not paired (pair by a code), locked (unlock), or unlocked (the site's logins, a waiting save
// offer, search over the vault). It never receives a login's password: Fill asks the worker, which sends the
// values to the tab's top frame. Only a one-time code comes here, to be copied.
// popup.html?tab=N acts on tab N (tests open the popup as a tab; only an extension page can open that URL).

const api = globalThis.browser ?? globalThis.chrome;
const $ = (id) => document.getElementById(id);
const t = (key, substitutions) => api.i18n.getMessage(key, substitutions) || key;

const params = new URLSearchParams(location.search);
/** Opened as a tab (popup.html?tab=N): stays open after a fill and uses tab N. */
const asTab = params.has("tab");
const WEB_ORIGINS = ["http://*/*", "https://*/*"];
const SECTIONS = ["unavailable", "problem", "pair", "unlock", "main"];

let tabId = null;
/** The worker's last word on the tab (state, url, candidates, offer, ...). */
let view = null;
let pairTimer = 0;
let searchTimer = 0;

// MARK: wording

/** Text with `command` spans as <code> (built with textContent, never HTML). */
function setText(node, text) {
  node.replaceChildren(...String(text).split("`").map((part, i) => {
    if (i % 2 === 0) return document.createTextNode(part);
    const code = document.createElement("code");
    code.textContent = part;
    return code;
  }));
}

function localize() {
  // The language of the catalog the browser chose: getUILanguage() can differ from it (headless Chromium with
  // --lang=de shows the German messages but says en-US), and lang must describe the text shown.
  document.documentElement.lang = api.i18n.getMessage("locale") || "en";
  for (const node of document.querySelectorAll("[data-i18n]")) setText(node, t(node.dataset.i18n));
  for (const node of document.querySelectorAll("[data-i18n-placeholder]")) node.placeholder = t(node.dataset.i18nPlaceholder);
  for (const node of document.querySelectorAll("[data-i18n-label]")) node.setAttribute("aria-label", t(node.dataset.i18nLabel));
}

function otherSiteText(facts) {
  return t("error_otherSite", [facts.saved || t("noWebsite"), facts.requested || view?.host || ""]);
}

/** An agent's failure worded as the product words it (PassboxWording's error.CODE, adapted to the browser). */
function errorText(error) {
  const code = error?.code || "internal";
  const f = error?.facts || {};
  switch (code) {
    case "mustWait": return t(Number(f.minutes) === 1 ? "error_mustWait_one" : "error_mustWait_other", [String(f.minutes ?? "")]);
    case "otherSite": return otherSiteText(f);
    case "quickUnlockRefused": return t(String(f.triesLeft) === "0" ? "error_quickUnlockRefused_last" : "error_quickUnlockRefused");
    case "handshakeFailed": return t("error_handshakeFailed", [String(f.reason ?? "")]);
    case "quickUnlockUnavailable": return t("error_quickUnlockUnavailable", [String(f.reason ?? "")]);
    case "unsupported": return t("error_unsupported", [String(f.agent ?? ""), String(f.operation ?? "")]);
    case "versionMismatch": return t("error_versionMismatch", [String(f.client ?? ""), String(f.agent ?? "")]);
    case "itemProtected": case "notALogin": return t(`error_${code}`, [String(f.title ?? "")]);
    case "badRequest": case "internal": case "keyStoreFailed": return t(`error_${code}`, [String(f.reason ?? "")]);
    default: return api.i18n.getMessage(`error_${code}`) || t("error_other", [code]);
  }
}

// MARK: talking to the worker

async function send(message) {
  try {
    return (await api.runtime.sendMessage(message)) || { ok: false, error: { code: "internal", facts: { reason: "no answer" } } };
  } catch (error) {
    return { ok: false, error: { code: "internal", facts: { reason: String(error?.message || error) } } };
  }
}

async function resolveTab() {
  if (asTab) {
    const id = Number(params.get("tab"));
    return Number.isInteger(id) ? id : null;
  }
  const [tab] = await api.tabs.query({ active: true, currentWindow: true });
  return tab?.id ?? null;
}

function say(text) {
  $("message").textContent = text;
}

// MARK: states

function show(state, section) {
  $("status").dataset.state = state;
  setText($("status"), state === "connecting" ? t("popup_connecting") : t(`state_${state}`));
  for (const id of SECTIONS) $(id).hidden = id !== section;
  $("lock-button").hidden = state !== "unlocked";
}

async function refresh() {
  const answer = await send({ type: "state", tab: tabId });
  if (!answer.ok) return showProblem(answer.error);
  view = answer;
  $("site").textContent = answer.host || "";
  switch (answer.state) {
    case "unavailable": return showUnavailable(answer);
    case "notPaired": return showPair(answer);
    case "locked": return showLocked(answer);
    case "unlocked": return showMain(answer);
    default: return showProblem(answer.error);
  }
}

function showUnavailable(answer) {
  show("unavailable", "unavailable");
  const facts = answer.error?.facts || {};
  $("unavailable-detail").textContent = facts.socket ? t("unavailable_agent", [facts.socket]) : facts.reason ? t("unavailable_host", [facts.reason]) : "";
}

function showProblem(error) {
  show("problem", "problem");
  $("problem-text").textContent = errorText(error);
}

// MARK: pairing

function showPair(answer) {
  show("notPaired", "pair");
  const pairing = answer.pairing;
  if (pairing && pairing.expiresAt > Date.now()) return showCode(pairing);
  $("pair-start").hidden = false;
  $("pair-progress").hidden = true;
}

function showCode(pairing) {
  $("pair-start").hidden = true;
  $("pair-progress").hidden = false;
  $("pair-code").textContent = pairing.code;
  $("pair-error").textContent = "";
  pollPairing(pairing);
}

/** Tries the handshake every second until the user confirmed the code, or the pairing expired. */
function pollPairing(pairing) {
  clearTimeout(pairTimer);
  const tick = async () => {
    if (Date.now() >= pairing.expiresAt) {
      $("pair-progress").hidden = true;
      $("pair-start").hidden = false;
      $("pair-expired").hidden = false;
      return;
    }
    const answer = await send({ type: "pair-poll" });
    if (answer.ok) return refresh();
    const code = answer.error?.code;
    if (code !== "notPaired" && code !== "agentUnavailable") $("pair-error").textContent = errorText(answer.error);
    pairTimer = setTimeout(tick, 1000);
  };
  pairTimer = setTimeout(tick, 1000);
}

async function beginPairing() {
  const button = $("pair-button");
  button.disabled = true;
  $("pair-expired").hidden = true;
  $("pair-error").textContent = "";
  const answer = await send({ type: "pair-begin" });
  button.disabled = false;
  if (!answer.ok) {
    $("pair-error").textContent = errorText(answer.error);
    return;
  }
  showCode(answer.pairing);
}

// MARK: locked

function showLocked(answer) {
  show("locked", "unlock");
  setText($("unlock-label"), t(answer.account ? "unlock_labelMaster" : "unlock_label"));
  const quick = answer.quickUnlock?.offered;
  $("quick-unlock-form").hidden = !quick;
  if (quick) setText($("quick-label"), t("quick_label", [answer.quickUnlock.user || ""]));
  $("offer-locked").hidden = !answer.offer;
  if (answer.offer) $("offer-locked").textContent = t("offer_locked", [answer.offer.host]);
  $("unlock-password").focus();
}

async function unlock(event, type, inputId, errorId, buttonId) {
  event.preventDefault();
  const input = $(inputId);
  let password = input.value;
  // The field is cleared at once: the password lives only as long as the request.
  input.value = "";
  if (!password) return;
  $(buttonId).disabled = true;
  setText($(errorId), t("unlocking"));
  const answer = await send({ type, password });
  password = "";
  $(buttonId).disabled = false;
  if (answer.ok) {
    $(errorId).textContent = "";
    return refresh();
  }
  $(errorId).textContent = errorText(answer.error);
  input.focus();
}

// MARK: unlocked

function showMain(answer) {
  show("unlocked", "main");
  $("refusal").hidden = !answer.refusal;
  showOffer(answer.offer);
  const empty = $("candidates-empty");
  $("candidates").replaceChildren(...answer.candidates.map((c) => itemRow({ id: c.id, title: c.title, sub: [c.shared, c.username, matchText(c.match)].filter(Boolean).join(" · "), login: true })));
  empty.hidden = answer.candidates.length > 0;
  if (!answer.web) setText(empty, t("site_none"));
  else if (answer.candidatesError) empty.textContent = errorText(answer.candidatesError);
  else setText(empty, t("candidates_none"));
  if ($("search").value.trim()) runSearch();
}

function matchText(match) {
  return match === "exact-host" ? t("match_exactHost") : match === "same-domain" ? t("match_sameDomain") : "";
}

function showOffer(offer) {
  const form = $("offer");
  form.hidden = !offer;
  if (!offer) return;
  const update = offer.action === "update";
  $("offer-text").textContent = update ? t("offer_update_title", [offer.title]) : t("offer_save_title");
  $("offer-site").textContent = t("offer_site", [offer.host]);
  $("offer-username").value = offer.username;
  $("offer-title-row").hidden = update;
  $("offer-title").placeholder = offer.host;
  $("offer-save").textContent = t(update ? "offer_update" : "offer_save");
  $("offer-error").textContent = "";
}

async function saveOffer(event) {
  event.preventDefault();
  $("offer-save").disabled = true;
  const answer = await send({ type: "save-offer", tab: tabId, username: $("offer-username").value, title: $("offer-title").value });
  $("offer-save").disabled = false;
  if (!answer.ok) {
    $("offer-error").textContent = errorText(answer.error);
    return;
  }
  say(t("saved", [answer.title]));
  await refresh();
}

/** One login (or search result) as li[data-id]: title, subline, Fill and Copy one-time code. */
function itemRow(item) {
  const li = document.createElement("li");
  li.dataset.id = item.id;
  const head = document.createElement("div");
  head.className = "item-head";
  const texts = document.createElement("div");
  texts.className = "texts";
  const title = document.createElement("span");
  title.className = "title";
  title.textContent = item.title;
  const sub = document.createElement("span");
  sub.className = "sub";
  sub.textContent = item.sub || "";
  texts.append(title, sub);
  head.append(texts);
  if (item.login) {
    const actions = document.createElement("div");
    actions.className = "actions";
    actions.append(
      actionButton("fill", t("fill"), () => fillItem(li, item, {})),
      actionButton("copy-code", "", () => copyCode(li, item, false), "i-copy", t("copy_code")),
    );
    head.append(actions);
  }
  const confirmBox = document.createElement("div");
  confirmBox.className = "confirm";
  const error = document.createElement("p");
  error.className = "row-error";
  li.append(head, confirmBox, error);
  return li;
}

function actionButton(action, label, onClick, iconClass, accessibleName) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = iconClass && !label ? "button icon-only" : "button";
  button.dataset.action = action;
  if (iconClass) {
    const icon = document.createElement("span");
    icon.className = `icon ${iconClass}`;
    icon.setAttribute("aria-hidden", "true");
    button.append(icon);
  }
  if (label) button.append(label);
  if (accessibleName) {
    button.setAttribute("aria-label", accessibleName);
    button.title = accessibleName;
  }
  button.addEventListener("click", onClick);
  return button;
}

function rowMessage(li, text) {
  li.querySelector(".row-error").textContent = text;
}

/** Asks before going on (another site, an unencrypted page): a warning, "... anyway" and Cancel. */
function askConfirm(li, text, action, label, onConfirm) {
  const box = li.querySelector(".confirm");
  const warning = document.createElement("p");
  warning.className = "warning";
  warning.textContent = text;
  const go = actionButton(action, label, () => {
    box.replaceChildren();
    onConfirm();
  });
  go.classList.add("warn");
  const cancel = actionButton("cancel", t("cancel"), () => box.replaceChildren());
  const row = document.createElement("div");
  row.className = "row";
  row.append(go, cancel);
  box.replaceChildren(warning, row);
  go.focus();
}

function setBusy(li, busy) {
  for (const button of li.querySelectorAll("button")) button.disabled = busy;
}

/** Failures after which the popup's picture of the agent is stale: draw it again. */
function stale(error) {
  return ["locked", "notPaired", "agentUnavailable", "handshakeFailed"].includes(error?.code);
}

async function fillItem(li, item, flags) {
  rowMessage(li, "");
  if (view.insecure && !flags.insecure) {
    return askConfirm(li, t("menu_insecure"), "fill-anyway", t("fill_anyway"), () => fillItem(li, item, { ...flags, insecure: true }));
  }
  setBusy(li, true);
  const answer = await send({ type: "fill-tab", tab: tabId, url: view.url, item: item.id, confirmOtherSite: Boolean(flags.otherSite), insecureConfirmed: Boolean(flags.insecure) });
  setBusy(li, false);
  if (answer.ok) {
    say(t("filled", [answer.title]));
    if (!asTab) window.close();
    return;
  }
  const code = answer.error?.code;
  if (code === "otherSite") return askConfirm(li, otherSiteText(answer.error.facts || {}), "fill-anyway", t("fill_anyway"), () => fillItem(li, item, { ...flags, otherSite: true }));
  if (code === "insecurePage") return askConfirm(li, t("menu_insecure"), "fill-anyway", t("fill_anyway"), () => fillItem(li, item, { ...flags, insecure: true }));
  if (stale(answer.error)) return refresh();
  rowMessage(li, errorText(answer.error));
}

async function copyCode(li, item, confirmOtherSite) {
  rowMessage(li, "");
  setBusy(li, true);
  const answer = await send({ type: "copy-code", tab: tabId, url: view.url, item: item.id, confirmOtherSite });
  setBusy(li, false);
  if (!answer.ok) {
    const code = answer.error?.code;
    if (code === "otherSite") return askConfirm(li, otherSiteText(answer.error.facts || {}), "copy-anyway", t("copy_anyway"), () => copyCode(li, item, true));
    if (stale(answer.error)) return refresh();
    return rowMessage(li, errorText(answer.error));
  }
  try {
    await navigator.clipboard.writeText(answer.code);
    // A popup cannot clear the clipboard later (it closes, and cannot tell whether the code is still there).
    say(t("copied_code"));
  } catch {
    rowMessage(li, t("copy_failed"));
  }
  answer.code = "";
}

async function runSearch() {
  const query = $("search").value.trim();
  const list = $("search-results");
  const empty = $("search-empty");
  if (!query) {
    list.replaceChildren();
    empty.hidden = true;
    return;
  }
  const answer = await send({ type: "search", query });
  if (query !== $("search").value.trim()) return;
  if (!answer.ok) {
    if (stale(answer.error)) return refresh();
    list.replaceChildren();
    empty.hidden = false;
    empty.textContent = errorText(answer.error);
    return;
  }
  list.replaceChildren(...answer.items.map((i) => itemRow({ id: i.id, title: i.title, sub: [i.summary, i.website].filter(Boolean).join(" · "), login: i.category === "login" && !i.locked })));
  empty.hidden = answer.items.length > 0;
  setText(empty, t("search_none"));
}

// MARK: site access (Firefox asks the user for host permissions of a Manifest V3 add-on)

async function checkAccess() {
  if (!api.permissions?.contains) return;
  try {
    $("grant").hidden = await api.permissions.contains({ origins: WEB_ORIGINS });
  } catch {
    $("grant").hidden = true;
  }
}

// MARK: start

function wire() {
  $("retry-button").addEventListener("click", () => refresh());
  $("problem-retry").addEventListener("click", () => refresh());
  $("pair-button").addEventListener("click", () => beginPairing());
  $("unlock-form").addEventListener("submit", (e) => unlock(e, "unlock", "unlock-password", "unlock-error", "unlock-button"));
  $("quick-unlock-form").addEventListener("submit", (e) => unlock(e, "quick-unlock", "quick-password", "quick-error", "quick-unlock-button"));
  $("lock-button").addEventListener("click", async () => {
    const answer = await send({ type: "lock" });
    if (!answer.ok) say(errorText(answer.error));
    await refresh();
  });
  $("offer").addEventListener("submit", saveOffer);
  $("offer-dismiss").addEventListener("click", async () => {
    await send({ type: "dismiss-offer", tab: tabId });
    $("offer").hidden = true;
  });
  $("refusal-dismiss").addEventListener("click", async () => {
    await send({ type: "dismiss-refusal", tab: tabId });
    $("refusal").hidden = true;
  });
  $("search").addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(runSearch, 200);
  });
  $("grant-button").addEventListener("click", () => {
    // Called straight from the click: the browser asks only during a user's gesture.
    api.permissions.request({ origins: WEB_ORIGINS }).then((granted) => {
      $("grant").hidden = granted;
    }, () => {});
  });
}

async function start() {
  if (asTab) document.documentElement.classList.add("as-tab");
  localize();
  wire();
  show("connecting", null);
  checkAccess();
  tabId = await resolveTab();
  await refresh();
}

start();
