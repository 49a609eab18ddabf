"""A WebAuthn relying party for the extension's passkey flow, written for the test with PyPI's `webauthn`
(py_webauthn, fetched by scripts/fetch-webauthn.sh into .build/web-tools/py): it serves on every test site's
name (ext_sites.py), so a page at https://login.bank.example/passkey?rp=bank.example asks for the relying party
bank.example. The server, not the page, verifies every registration and sign-in: the attestation, the
signature over the authenticator data and client data, the challenge, the origin (https:// and the Host), the
relying party's hash and the signature counter.

Pages and calls (all of one run's state under its `run` parameter, so browsers side by side do not meet):
  GET  /passkey?run=R&rp=RP&user=NAME  Register and Sign-in buttons; #result says what the server said
  POST /passkey/options  {run, rp, kind: register|login, user}  -> the options as py_webauthn writes them
  POST /passkey/verify   {run, rp, kind, credential}            -> {ok, user?, counter?, error?}
"""
import json, os, sys, threading

_tools = os.environ.get("PASSBOX_WEBAUTHN_PY")
if _tools and _tools not in sys.path:
    sys.path.insert(0, _tools)

try:
    import webauthn
    from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
    from webauthn.helpers.structs import PublicKeyCredentialDescriptor, UserVerificationRequirement, AuthenticatorSelectionCriteria, ResidentKeyRequirement
    from webauthn.helpers.cose import COSEAlgorithmIdentifier
    AVAILABLE = True
except ImportError as e:  # reported by the flow that needs it
    AVAILABLE = False
    IMPORT_ERROR = str(e)

_lock = threading.Lock()
# (run, rp) -> {"challenge": bytes, "users": {name: handle}, "credentials": {id: {"key", "count", "user", "handle"}}}
_state = {}


def _slot(run, rp):
    return _state.setdefault((run, rp), {"challenge": None, "credentials": {}, "users": {}})


PAGE = """<h2>Passkeys for <span id="rp">%(rp)s</span></h2>
<button id="register" type="button">Register</button> <button id="signin" type="button">Sign in</button>
<p id="result"></p>
<script>
const RUN = %(run)s, RP = %(rp_json)s, USER = %(user)s;
const b64 = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const unb64 = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)).buffer;
const result = document.getElementById('result');
async function post(path, body) {
  const r = await fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
  return r.json();
}
function show(text) { result.textContent = text; result.dataset.done = String(Date.now()); }
document.getElementById('register').addEventListener('click', async () => {
  result.textContent = '';
  try {
    const o = await post('/passkey/options', {run: RUN, rp: RP, kind: 'register', user: USER});
    o.challenge = unb64(o.challenge);
    o.user.id = unb64(o.user.id);
    o.excludeCredentials = (o.excludeCredentials || []).map((c) => ({...c, id: unb64(c.id)}));
    const c = await navigator.credentials.create({publicKey: o});
    const json = {id: c.id, rawId: b64(c.rawId), type: c.type, authenticatorAttachment: c.authenticatorAttachment,
      clientExtensionResults: c.getClientExtensionResults(),
      response: {clientDataJSON: b64(c.response.clientDataJSON), attestationObject: b64(c.response.attestationObject),
                 transports: c.response.getTransports()}};
    const ok = c instanceof PublicKeyCredential && c.response instanceof AuthenticatorAttestationResponse && c.response.getPublicKeyAlgorithm() === -7;
    const r = await post('/passkey/verify', {run: RUN, rp: RP, kind: 'register', user: USER, credential: json});
    show(r.ok ? `registered ${r.user} ${ok ? 'typed' : 'untyped'}` : `refused: ${r.error}`);
  } catch (e) { show(`error: ${e.name}`); }
});
document.getElementById('signin').addEventListener('click', async () => {
  result.textContent = '';
  try {
    const o = await post('/passkey/options', {run: RUN, rp: RP, kind: 'login', user: USER});
    o.challenge = unb64(o.challenge);
    o.allowCredentials = (o.allowCredentials || []).map((c) => ({...c, id: unb64(c.id)}));
    const c = await navigator.credentials.get({publicKey: o});
    const json = {id: c.id, rawId: b64(c.rawId), type: c.type, authenticatorAttachment: c.authenticatorAttachment,
      clientExtensionResults: c.getClientExtensionResults(),
      response: {clientDataJSON: b64(c.response.clientDataJSON), authenticatorData: b64(c.response.authenticatorData),
                 signature: b64(c.response.signature), userHandle: c.response.userHandle ? b64(c.response.userHandle) : null}};
    const r = await post('/passkey/verify', {run: RUN, rp: RP, kind: 'login', user: USER, credential: json});
    show(r.ok ? `signed in ${r.user} counter ${r.counter}` : `refused: ${r.error}`);
  } catch (e) { show(`error: ${e.name}`); }
});
</script>"""


def page(host, query):
    rp = query.get("rp", [host])[0]
    run = query.get("run", ["-"])[0]
    user = query.get("user", ["ada"])[0]
    return PAGE % {"rp": rp.replace("<", ""), "rp_json": json.dumps(rp), "run": json.dumps(run), "user": json.dumps(user)}


def answer(host, path, body):
    """The JSON answer of a POST to /passkey/options or /passkey/verify."""
    if not AVAILABLE:
        return {"ok": False, "error": "py_webauthn is missing: " + IMPORT_ERROR}
    try:
        request = json.loads(body or b"{}")
        run, rp, kind, user = request["run"], request["rp"], request["kind"], request.get("user", "ada")
        origin = f"https://{host}"
        with _lock:
            slot = _slot(run, rp)
            if path == "/passkey/options":
                if kind == "register":
                    handle = slot["users"].setdefault(user, os.urandom(16))
                    options = webauthn.generate_registration_options(
                        rp_id=rp, rp_name="Test RP", user_id=handle, user_name=user, user_display_name=user.title(),
                        exclude_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(i)) for i, c in slot["credentials"].items() if c["user"] == user],
                        authenticator_selection=AuthenticatorSelectionCriteria(resident_key=ResidentKeyRequirement.PREFERRED),
                        supported_pub_key_algs=[COSEAlgorithmIdentifier.ECDSA_SHA_256, COSEAlgorithmIdentifier.RSASSA_PKCS1_v1_5_SHA_256])
                else:
                    options = webauthn.generate_authentication_options(
                        rp_id=rp, allow_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(i)) for i, c in slot["credentials"].items() if c["user"] == user],
                        user_verification=UserVerificationRequirement.PREFERRED)
                slot["challenge"] = options.challenge
                return json.loads(webauthn.options_to_json(options))
            challenge, slot["challenge"] = slot["challenge"], None
            if challenge is None:
                return {"ok": False, "error": "no challenge"}
            credential = request["credential"]
            if kind == "register":
                verified = webauthn.verify_registration_response(
                    credential=credential, expected_challenge=challenge, expected_origin=origin, expected_rp_id=rp)
                slot["credentials"][bytes_to_base64url(verified.credential_id)] = {
                    "key": verified.credential_public_key, "count": verified.sign_count, "user": user, "handle": slot["users"][user]}
                return {"ok": True, "user": user}
            stored = slot["credentials"].get(credential["id"])
            if stored is None:
                return {"ok": False, "error": "unknown credential"}
            handle = credential["response"].get("userHandle")
            if handle is not None and base64url_to_bytes(handle) != stored["handle"]:
                return {"ok": False, "error": "user handle"}
            verified = webauthn.verify_authentication_response(
                credential=credential, expected_challenge=challenge, expected_rp_id=rp, expected_origin=origin,
                credential_public_key=stored["key"], credential_current_sign_count=stored["count"])
            stored["count"] = verified.new_sign_count
            return {"ok": True, "user": stored["user"], "counter": verified.new_sign_count}
    except Exception as e:  # noqa: BLE001 - the page shows why the server refused
        return {"ok": False, "error": f"{type(e).__name__}: {e}"}


def made_elsewhere(run, rp, user):
    """A passkey made outside this browser, as another device's authenticator would have made it: a P-256 key
    (PyPI's cryptography, which py_webauthn brings), enrolled here as registered for USER (its COSE public key, as
    a registration stores it). Returns what a CXF file carries of it: credential id, user handle, PKCS#8 key."""
    import cbor2
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    key = ec.generate_private_key(ec.SECP256R1())
    point = key.public_key().public_numbers()
    cose = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: point.x.to_bytes(32, "big"), -3: point.y.to_bytes(32, "big")})
    credential_id, handle = os.urandom(16), os.urandom(16)
    with _lock:
        slot = _slot(run, rp)
        slot["users"][user] = handle
        slot["credentials"][bytes_to_base64url(credential_id)] = {"key": cose, "count": 0, "user": user, "handle": handle}
    pkcs8 = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return credential_id, handle, pkcs8
