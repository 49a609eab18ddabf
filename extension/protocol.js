// The wire contract with `passbox browser-host` (docs/PROTOCOL.md, "The browser extension"): each message is
// {"version", "request": {"op", "body"}, "secrets"}; a password in the body is written {"secret": N} and its
// text travels in `secrets`, which the host moves into the socket frame's secret part (never into JSON).
// Pure functions only: this module has no browser state, so it can be checked on its own.

/** The protocol generation this extension speaks (the agent serves any from 13 on). */
export const PROTOCOL_VERSION = 14;
/** The oldest generation whose answers this extension reads. */
export const OLDEST_VERSION = 13;
/** The native messaging host `passbox browser install` registers. */
export const HOST_NAME = "dev.passbox.host";

/** A password on its way to the agent: named by number in the body, its text in the message's `secrets`. */
export class Secret {
  /**
   * @param {string} text
   * @param {{normalize?: boolean}} options normalize: NFC, as for the vault and login passwords (the agent
   *   derives keys from exactly these bytes and every client normalises). A site's password is sent as typed.
   */
  constructor(text, { normalize = false } = {}) {
    this.text = normalize ? String(text).normalize("NFC") : String(text);
  }
}

/** A failure answer of the agent (or of the way to it): a code of the product's error table and its facts. */
export class AgentError extends Error {
  constructor(code, facts = {}) {
    super(code);
    this.code = code;
    this.facts = facts;
  }
}

/** The message for one operation. `body` undefined: an operation whose request body is "—". */
export function encodeMessage(op, body) {
  const secrets = [];
  const walk = (value) => {
    if (value instanceof Secret) {
      secrets.push(value.text);
      return { secret: secrets.length - 1 };
    }
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === "object") {
      const out = {};
      for (const [key, inner] of Object.entries(value)) if (inner !== undefined) out[key] = walk(inner);
      return out;
    }
    return value;
  };
  const request = body === undefined ? { op } : { op, body: walk(body) };
  return { version: PROTOCOL_VERSION, request, secrets };
}

/** The reply ({kind, body}) of one answer; a failure (or an answer that is not one) throws AgentError. */
export function readAnswer(message, expectedKind) {
  if (!message || typeof message !== "object" || typeof message.version !== "number") {
    throw new AgentError("badAnswer", { reason: "not an answer" });
  }
  if (message.version < OLDEST_VERSION) {
    throw new AgentError("versionMismatch", { client: String(PROTOCOL_VERSION), agent: String(message.version) });
  }
  const reply = message.reply;
  if (!reply || typeof reply.kind !== "string") throw new AgentError("badAnswer", { reason: "no reply" });
  if (reply.kind === "failure") {
    const body = reply.body || {};
    throw new AgentError(typeof body.code === "string" ? body.code : "unknown", body.facts && typeof body.facts === "object" ? body.facts : {});
  }
  if (expectedKind && reply.kind !== expectedKind) throw new AgentError("badAnswer", { reason: `${reply.kind} instead of ${expectedKind}` });
  return { kind: reply.kind, body: reply.body || {} };
}

/** A fact that travels as a string ("true") or, from a newer agent, as a boolean. */
export function factIsTrue(value) {
  return value === true || value === "true";
}
