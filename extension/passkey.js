// Passbox's passkey window: the extension's own page, which the site can neither see, cover nor click. It
// shows which site asks (the origin the agent checked) and what for, and answers the worker with the user's
// choice: a passkey of the vault (sign in), "Save passkey in Passbox" (register), the browser's own flow
// ("Use another device or security key"), or Cancel. Buttons take clicks only after ARM_MS, so a double
// click on the page that opened it cannot choose.

const api = globalThis.browser ?? globalThis.chrome;
const t = (key, substitutions) => api.i18n.getMessage(key, substitutions) || key;
const ARM_MS = 400;
const request = new URLSearchParams(location.search).get("request") ?? "";
let armedAt = Infinity;

function send(message) {
  return api.runtime.sendMessage({ ...message, request });
}

function answer(message) {
  if (performance.now() < armedAt) return;
  armedAt = Infinity;
  send({ type: "passkeyAnswer", ...message }).finally(() => window.close());
}

function localize() {
  document.documentElement.lang = api.i18n.getMessage("locale") || "en";
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
}

function row(p) {
  const li = document.createElement("li");
  const button = document.createElement("button");
  button.type = "button";
  button.className = "button passkey-choice";
  button.dataset.credential = p.credential;
  button.dataset.item = p.item;
  const texts = document.createElement("span");
  texts.className = "texts";
  const title = document.createElement("span");
  title.className = "title";
  title.textContent = p.userName || p.displayName || p.title;
  const sub = document.createElement("span");
  sub.className = "sub";
  sub.textContent = p.title;
  texts.append(title, sub);
  const icon = document.createElement("span");
  icon.className = "icon i-key-round";
  icon.setAttribute("aria-hidden", "true");
  button.append(icon, texts);
  button.addEventListener("click", () => answer({ use: "passbox", item: p.item, credential: p.credential }));
  li.append(button);
  return li;
}

async function start() {
  localize();
  document.getElementById("passkey-cancel").addEventListener("click", () => answer({ use: "cancel" }));
  document.getElementById("passkey-other").addEventListener("click", () => answer({ use: "browser" }));
  document.getElementById("passkey-save").addEventListener("click", () => answer({ use: "passbox" }));
  let info;
  try {
    info = await send({ type: "passkeyPrompt" });
  } catch {
    info = null;
  }
  const app = document.getElementById("app");
  if (!info || !info.ok) {
    document.getElementById("passkey-gone").hidden = false;
    app.dataset.state = "gone";
    return;
  }
  document.getElementById("passkey-origin").textContent = info.origin;
  if (info.kind === "get") {
    document.getElementById("passkey-title").textContent = t("passkey_title_get", [info.rp]);
    const list = document.getElementById("passkeys");
    list.replaceChildren(...info.passkeys.map(row));
    list.hidden = false;
  } else {
    document.getElementById("passkey-title").textContent = t("passkey_title_create", [info.rp]);
    const who = info.userName || info.displayName;
    document.getElementById("passkey-account").textContent = who ? t("passkey_account", [who]) : "";
    document.getElementById("passkey-create").hidden = false;
  }
  document.title = document.getElementById("passkey-title").textContent;
  app.dataset.state = info.kind;
  armedAt = performance.now() + ARM_MS;
  setTimeout(() => { app.dataset.armed = "true"; }, ARM_MS);
}

start();
