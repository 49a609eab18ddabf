// The extension's device key and the pairing arithmetic (docs/PROTOCOL.md, "Pairing and the handshake").
// The private key is a non-extractable WebCrypto CryptoKey kept in IndexedDB: script can use it to sign but
// never read its bytes, and a copy of the profile's files holds no usable key. Keys travel as base64url.

const encoder = new TextEncoder();
const PAIRING_LABEL = "passbox browser pairing v1";
const SESSION_LABEL = "passbox browser session v1";
const DATABASE = "passbox";
const STORE = "keys";
const DEVICE = "device";

/** base64url without padding. */
export function base64url(bytes) {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let binary = "";
  for (const byte of view) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The bytes of a base64url text (padding optional). */
export function fromBase64url(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*={0,2}$/.test(text)) throw new Error("not base64url");
  const plain = text.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(plain + "=".repeat((4 - (plain.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** A label's UTF-8, a zero byte, then the parts: what both signatures and the pairing digest cover. */
function labelled(label, ...parts) {
  const head = encoder.encode(label);
  const out = new Uint8Array(head.length + 1 + parts.reduce((n, p) => n + p.length, 0));
  out.set(head, 0);
  let at = head.length + 1;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * The six digits both sides show: SHA-256 of the label, a zero byte, the public key (32 bytes) and the agent's
 * nonce (32 bytes); its first four bytes big-endian, modulo 1,000,000, zero padded, shown "123 456".
 */
export async function pairingCode(publicKey, agentNonce) {
  if (publicKey.length !== 32 || agentNonce.length !== 32) throw new Error("pairing inputs must be 32 bytes each");
  const digest = new DataView(await crypto.subtle.digest("SHA-256", labelled(PAIRING_LABEL, publicKey, agentNonce)));
  const digits = String(digest.getUint32(0, false) % 1_000_000).padStart(6, "0");
  return `${digits.slice(0, 3)} ${digits.slice(3)}`;
}

/** The handshake's signature: Ed25519 over the session label, a zero byte and the agent's challenge. */
export async function signChallenge(privateKey, challenge) {
  return new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, privateKey, labelled(SESSION_LABEL, challenge)));
}

// MARK: the key store

function openDatabase() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function transact(db, mode, work) {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const request = work(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

/** Thrown when this browser's WebCrypto has no Ed25519 (Chromium before 137, Firefox before 129). */
export class CryptoUnsupported extends Error {}

async function loadOrMake() {
  const db = await openDatabase();
  try {
    let pair = await transact(db, "readonly", (store) => store.get(DEVICE));
    if (!pair || !(pair.privateKey instanceof CryptoKey) || !(pair.publicKey instanceof CryptoKey)) {
      try {
        // extractable false: the private key's bytes can never be exported (the public key always can).
        pair = await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
      } catch (error) {
        throw new CryptoUnsupported(String(error && error.message));
      }
      await transact(db, "readwrite", (store) => store.put({ privateKey: pair.privateKey, publicKey: pair.publicKey }, DEVICE));
    }
    const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
    return { privateKey: pair.privateKey, publicKeyBytes: raw, publicKey: base64url(raw) };
  } finally {
    db.close();
  }
}

let loading = null;

/** The device key: {privateKey (CryptoKey), publicKeyBytes (32), publicKey (base64url)}; made on first use. */
export function deviceKey() {
  // One promise for concurrent callers, so two first requests cannot make two keys.
  loading ??= loadOrMake().catch((error) => {
    loading = null;
    throw error;
  });
  return loading;
}
