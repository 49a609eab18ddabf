// The way to the agent: one native messaging port to `passbox browser-host`, which answers every message once
// and in order, so the pending requests are a FIFO. Each new port (each start of the host) begins with the
// handshake: the host lets nothing but pairing and the handshake through until this browser proved, with a
// signature, that it holds a key the user paired.

import { AgentError, HOST_NAME, encodeMessage, readAnswer } from "./protocol.js";
import { CryptoUnsupported, base64url, deviceKey, fromBase64url, pairingCode, signChallenge } from "./crypto.js";

const api = globalThis.browser ?? globalThis.chrome;

/** The operations the host serves before the handshake. */
const BEFORE_HANDSHAKE = new Set(["hello", "browser-pair-begin", "browser-challenge", "browser-prove"]);
/** An answer later than this means the host hangs: the port is dropped (a late answer would shift the FIFO). */
const ANSWER_TIMEOUT_MS = 120_000;

/** One port and the requests waiting for its answers. */
class Connection {
  constructor() {
    this.closed = false;
    this.reason = "";
    this.waiting = [];
    /** The handshake's promise on this port (null: not proven yet, or the last try failed). */
    this.session = null;
    this.port = api.runtime.connectNative(HOST_NAME);
    this.port.onMessage.addListener((message) => this.answer(message));
    this.port.onDisconnect.addListener((port) => {
      // Chromium says why in lastError (reading it also keeps it from being reported as unchecked),
      // Firefox in port.error: "host not found", "host exited", ...
      const reason = (port && port.error && port.error.message) || (api.runtime.lastError && api.runtime.lastError.message) || "disconnected";
      this.close(reason);
    });
  }

  /** Sends one operation; resolves with its reply {kind, body}, rejects with AgentError. */
  send(op, body, expectedKind) {
    return new Promise((resolve, reject) => {
      if (this.closed) {
        reject(new AgentError("agentUnavailable", { reason: this.reason }));
        return;
      }
      const entry = { resolve, reject, expectedKind, timer: 0 };
      entry.timer = setTimeout(() => this.close("no answer"), ANSWER_TIMEOUT_MS);
      this.waiting.push(entry);
      const message = encodeMessage(op, body);
      try {
        this.port.postMessage(message);
      } catch (error) {
        this.close(String(error && error.message));
      } finally {
        // The browser copied the message; drop our references to any password in it.
        message.secrets.length = 0;
      }
    });
  }

  answer(message) {
    const entry = this.waiting.shift();
    if (!entry) return;
    clearTimeout(entry.timer);
    try {
      entry.resolve(readAnswer(message, entry.expectedKind));
    } catch (error) {
      entry.reject(error);
    }
  }

  close(reason) {
    if (this.closed) return;
    this.closed = true;
    // Kept for requests sent after the port closed (the browser may close it before the first message).
    this.reason = reason;
    try {
      this.port.disconnect();
    } catch {
      // Already gone.
    }
    for (const entry of this.waiting.splice(0)) {
      clearTimeout(entry.timer);
      entry.reject(new AgentError("agentUnavailable", { reason }));
    }
  }
}

export class Agent {
  constructor() {
    this.connection = null;
  }

  /** The current port, or a new one (reconnected lazily: a request after a disconnect starts the host again). */
  connect() {
    if (!this.connection || this.connection.closed) this.connection = new Connection();
    return this.connection;
  }

  /** Drops the port (the next request starts the host again and proves the key anew). */
  disconnect() {
    if (this.connection) this.connection.close("closed by the extension");
    this.connection = null;
  }

  /** browser-challenge, sign, browser-prove on `connection`; resolves with {pairing, name}. */
  async handshake(connection) {
    let key;
    try {
      key = await deviceKey();
    } catch (error) {
      if (error instanceof CryptoUnsupported) throw new AgentError("cryptoUnsupported", { reason: error.message });
      throw new AgentError("keyStoreFailed", { reason: String(error && error.message) });
    }
    const { body: issued } = await connection.send("browser-challenge", undefined, "browserChallenge");
    const signature = await signChallenge(key.privateKey, fromBase64url(issued.challenge));
    const { body } = await connection.send(
      "browser-prove",
      { publicKey: key.publicKey, challenge: issued.challenge, signature: base64url(signature) },
      "browserSession",
    );
    return { pairing: body.pairing, name: body.name };
  }

  /** The handshake of `connection`, once; a failed one is tried again by the next request. */
  ensureSession(connection) {
    connection.session ??= this.handshake(connection).catch((error) => {
      connection.session = null;
      throw error;
    });
    return connection.session;
  }

  /** Proves the key on the current port (again, if `fresh`): the pairing's poll. Resolves {pairing, name}. */
  prove(fresh = false) {
    const connection = this.connect();
    if (fresh) connection.session = null;
    return this.ensureSession(connection);
  }

  /**
   * One operation: resolves with {kind, body}, rejects with AgentError (the agent's failure codes, and
   * `agentUnavailable` when the host cannot be reached or went away, `cryptoUnsupported` without Ed25519).
   */
  async call(op, body, expectedKind) {
    const connection = this.connect();
    if (BEFORE_HANDSHAKE.has(op)) return connection.send(op, body, expectedKind);
    await this.ensureSession(connection);
    try {
      return await connection.send(op, body, expectedKind);
    } catch (error) {
      // The agent restarted (its sessions went with it) and the host dropped ours: prove the key again, once.
      // A removed pairing fails that handshake with notPaired, which is then the answer.
      if (!(error instanceof AgentError) || error.code !== "notPaired" || connection.closed) throw error;
      connection.session = null;
      await this.ensureSession(connection);
      return connection.send(op, body, expectedKind);
    }
  }

  /** browser-pair-begin; resolves {pairing, code ("123 456"), expiresAt (ms)}. */
  async pairBegin(browser, name) {
    let key;
    try {
      key = await deviceKey();
    } catch (error) {
      if (error instanceof CryptoUnsupported) throw new AgentError("cryptoUnsupported", { reason: error.message });
      throw error;
    }
    const { body } = await this.call("browser-pair-begin", { publicKey: key.publicKey, browser, name: name.slice(0, 100) }, "browserPairing");
    const code = await pairingCode(key.publicKeyBytes, fromBase64url(body.agentNonce));
    return { pairing: body.pairing, code, expiresAt: Date.now() + Number(body.expiresInSeconds || 600) * 1000 };
  }
}
