// Passbox's passkey bridge in the page's own world (a MAIN-world content script of the top frame, run at
// document_start). It wraps navigator.credentials.create and .get for public-key credentials: it asks Passbox
// (through the extension's isolated script and worker) first, and hands the call to the browser untouched
// whenever Passbox has nothing to offer or the user picks "Use another device or security key". It decides
// nothing and holds nothing: the relying party is checked by the agent against the tab's address, and every
// signature waits for a click in Passbox's own window. Being in the page's world, the page can see and replace
// it as it can the browser's own functions; it gains nothing by that it could not ask for itself.
(() => {
  "use strict";
  const credentials = globalThis.navigator && navigator.credentials;
  if (!credentials || typeof PublicKeyCredential !== "function" || window !== window.top) return;
  const browserGet = credentials.get.bind(credentials);
  const browserCreate = credentials.create.bind(credentials);
  const waiting = new Map();
  let counter = 0;

  function toBytes(source) {
    if (source instanceof ArrayBuffer) return new Uint8Array(source);
    if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
    throw new TypeError("Passbox: a credential option is not a BufferSource");
  }

  function encode(source) {
    const bytes = toBytes(source);
    let binary = "";
    for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function decode(text) {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }

  window.addEventListener("message", (event) => {
    const data = event.data;
    if (event.source !== window || !data || data.passboxWebAuthn !== "reply" || !waiting.has(data.id)) return;
    const resolve = waiting.get(data.id);
    waiting.delete(data.id);
    resolve(data);
  });

  function ask(kind, request) {
    return new Promise((resolve) => {
      counter += 1;
      const id = `${counter}-${Math.random().toString(36).slice(2)}`;
      waiting.set(id, resolve);
      window.postMessage({ passboxWebAuthn: "ask", id, kind, request }, location.origin);
    });
  }

  function refused(answer) {
    return new DOMException(answer.message || "The operation either timed out or was not allowed.", answer.error || "NotAllowedError");
  }

  /** A PublicKeyCredential as the page expects one: own values over the browser's prototypes. */
  function credential(id, response, responseType, json, extensions) {
    Object.setPrototypeOf(response, responseType.prototype);
    const made = {
      id, rawId: decode(id), type: "public-key", authenticatorAttachment: "platform", response,
      getClientExtensionResults: () => extensions,
      toJSON: () => ({ id, rawId: id, type: "public-key", authenticatorAttachment: "platform", response: json, clientExtensionResults: extensions }),
    };
    return Object.setPrototypeOf(made, PublicKeyCredential.prototype);
  }

  async function get(options) {
    const key = options && options.publicKey;
    if (!key || options.mediation === "conditional" || (options.signal && options.signal.aborted)) return browserGet(options);
    let request;
    try {
      request = { rpId: typeof key.rpId === "string" ? key.rpId : null, challenge: encode(key.challenge), allow: (key.allowCredentials || []).map((c) => encode(c.id)) };
    } catch {
      return browserGet(options);
    }
    const answer = await ask("get", request);
    if (answer.use === "browser") return browserGet(options);
    if (answer.use !== "passbox") throw refused(answer);
    const c = answer.credential;
    const response = {
      clientDataJSON: decode(c.clientDataJSON), authenticatorData: decode(c.authenticatorData), signature: decode(c.signature),
      userHandle: decode(c.userHandle),
    };
    const json = { clientDataJSON: c.clientDataJSON, authenticatorData: c.authenticatorData, signature: c.signature, userHandle: c.userHandle };
    return credential(c.id, response, AuthenticatorAssertionResponse, json, {});
  }

  async function create(options) {
    const key = options && options.publicKey;
    if (!key || (options.signal && options.signal.aborted)) return browserCreate(options);
    let request;
    try {
      const selection = key.authenticatorSelection || {};
      request = {
        rpId: key.rp && typeof key.rp.id === "string" ? key.rp.id : null,
        user: { id: encode(key.user.id), name: String(key.user.name ?? ""), displayName: String(key.user.displayName ?? "") },
        challenge: encode(key.challenge),
        algorithms: (key.pubKeyCredParams || []).filter((p) => p.type === "public-key").map((p) => Number(p.alg)),
        exclude: (key.excludeCredentials || []).map((c) => encode(c.id)),
        attachment: typeof selection.authenticatorAttachment === "string" ? selection.authenticatorAttachment : null,
      };
    } catch {
      return browserCreate(options);
    }
    const answer = await ask("create", request);
    if (answer.use === "browser") return browserCreate(options);
    if (answer.use !== "passbox") throw refused(answer);
    const c = answer.credential;
    const transports = ["hybrid", "internal"];
    const response = {
      clientDataJSON: decode(c.clientDataJSON), attestationObject: decode(c.attestationObject),
      getTransports: () => transports.slice(), getAuthenticatorData: () => decode(c.authenticatorData),
      getPublicKey: () => decode(c.publicKey), getPublicKeyAlgorithm: () => c.algorithm,
    };
    const json = {
      clientDataJSON: c.clientDataJSON, attestationObject: c.attestationObject, authenticatorData: c.authenticatorData, transports,
      publicKey: c.publicKey, publicKeyAlgorithm: c.algorithm,
    };
    const extensions = key.extensions && key.extensions.credProps ? { credProps: { rk: true } } : {};
    return credential(c.id, response, AuthenticatorAttestationResponse, json, extensions);
  }

  const wrappedGet = { get(options) { return get(options); } }.get;
  const wrappedCreate = { create(options) { return create(options); } }.create;
  Object.defineProperty(credentials, "get", { value: wrappedGet, configurable: true, writable: true });
  Object.defineProperty(credentials, "create", { value: wrappedCreate, configurable: true, writable: true });
})();
