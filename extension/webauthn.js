// Passbox's passkey relay in the extension's isolated world of the top frame (document_start): it carries the
// requests of webauthn-page.js (the page's world) to the worker and the answers back, over window messages of
// this window only. The worker answers from the browser's word for the tab (sender.url), never from this script.
(() => {
  "use strict";
  const api = globalThis.browser ?? globalThis.chrome;
  if (!api || !api.runtime || !api.runtime.id || window !== window.top) return;

  window.addEventListener("message", async (event) => {
    const data = event.data;
    if (event.source !== window || !data || data.passboxWebAuthn !== "ask" || typeof data.id !== "string") return;
    let answer;
    try {
      answer = await api.runtime.sendMessage({ type: "webauthn", kind: data.kind, request: data.request });
    } catch {
      answer = null;
    }
    if (!answer || typeof answer.use !== "string") answer = { use: "browser" };
    window.postMessage({ passboxWebAuthn: "reply", id: data.id, ...answer }, location.origin);
  });
})();
