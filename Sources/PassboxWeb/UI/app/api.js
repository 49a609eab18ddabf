// The agent's protocol over HTTP: the same request frames as its Unix socket (docs/PROTOCOL.md, "Web UI").
// A password travels as a Secret: named by number in the JSON, its bytes after a zero byte, never in JSON.

export const PROTOCOL_VERSION = 18;

export class Secret {
  constructor(text) { this.text = text.normalize('NFC'); }
}

export class SessionLost extends Error {}

// The session's page key arrives once in the address's fragment (never sent to a server): it moves into
// this tab's sessionStorage, which, unlike cookies, no other port of 127.0.0.1 shares, and leaves the address bar.
if (location.hash.startsWith('#k=')) {
  sessionStorage.setItem('passbox.key', location.hash.slice(3));
  history.replaceState(null, '', '/');
}
export class AgentGone extends Error {}

function encodeFrame(op, body) {
  const secrets = [];
  const walk = (value) => {
    if (value instanceof Secret) { secrets.push(new TextEncoder().encode(value.text)); return { secret: secrets.length - 1 }; }
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === 'object') {
      const out = {};
      for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = walk(v);
      return out;
    }
    return value;
  };
  const request = body === undefined ? { op } : { op, body: walk(body) };
  const json = new TextEncoder().encode(JSON.stringify({ version: PROTOCOL_VERSION, request }));
  if (secrets.length === 0) return json;
  const size = json.length + 1 + secrets.reduce((n, s) => n + 4 + s.length, 0);
  const frame = new Uint8Array(size);
  frame.set(json, 0);
  let at = json.length + 1;
  for (const s of secrets) {
    new DataView(frame.buffer).setUint32(at, s.length);
    frame.set(s, at + 4);
    at += 4 + s.length;
    s.fill(0);
  }
  return frame;
}

// Calls one operation; resolves with the reply ({kind, body}); a failure reply rejects with {code, facts}.
// When this page last asked the agent for something that may change the vault (anything but the reads below):
// a vault change since then may be the page's own, which the code that made it shows (main.js's poll follows
// only other clients' changes). A read missing here only makes the page miss another client's change made in
// the same moment (it shows at the next change or load); a change listed here, one list reload too many.
export const activity = { at: 0, changed: null };
const READS = new Set(['status', 'list', 'search', 'show', 'vault-list', 'check', 'settings', 'history', 'generate', 'strength', 'trash-list', 'sharing',
  'org-show', 'security-code', 'browser-pairings', 'breach-ranges', 'breach-prefixes', 'read-qr', 'backup-view', 'link-wait', 'kit-pdf']);

export async function call(op, body) {
  const changes = !READS.has(op);
  if (changes) activity.at = Date.now();
  const frame = encodeFrame(op, body);
  let response;
  try {
    response = await fetch('/api', { method: 'POST', headers: { 'Content-Type': 'application/x-passbox-frame', 'X-Passbox-Key': sessionStorage.getItem('passbox.key') || '' }, body: frame, credentials: 'same-origin', cache: 'no-store' });
  } catch (e) {
    throw new AgentGone();
  } finally {
    frame.fill(0);
  }
  if (response.status === 401) throw new SessionLost();
  if (!response.ok) throw new AgentGone();
  const answer = await response.json();
  const reply = answer.reply;
  if (changes) {
    activity.at = Date.now();
    if (activity.changed) activity.changed();
  }
  if (reply.kind === 'failure') throw Object.assign(new Error(reply.body.code), { code: reply.body.code, facts: reply.body.facts || {} });
  return reply;
}

// The API takes 4 MiB a request: about 3 MiB of a file once it is base64.
export const UPLOAD_LIMIT = 3 << 20;

// A chosen file's bytes as base64, for read-qr and backup-restore.
export async function fileBase64(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  bytes.fill(0);
  return btoa(binary);
}

