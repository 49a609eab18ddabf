#!/usr/bin/python3
"""Makes bitwarden-passkey.json once (the file is checked in): Bitwarden's unencrypted JSON export layout with one
login holding three passkeys as Bitwarden writes them (login.fido2Credentials): one Bitwarden made (its
credential id a GUID), one imported into Bitwarden (id "b64." and base64url, counter 5), both ES256 with P-256
keys made by openssl, and one that is not an ES256 key (keyAlgorithm "RSA"), which Passbox cannot sign with.

usage: make-bitwarden-passkey.py OUT.json
"""
import base64, json, subprocess, sys


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def p256_pkcs8():
    pem = subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], check=True, capture_output=True).stdout
    return subprocess.run(["openssl", "pkcs8", "-topk8", "-nocrypt", "-outform", "DER"], input=pem, check=True, capture_output=True).stdout


def credential(cid, key, counter, algorithm="ECDSA"):
    return {"credentialId": cid, "keyType": "public-key", "keyAlgorithm": algorithm, "keyCurve": "P-256", "keyValue": b64url(key),
            "rpId": "bank.example", "userHandle": b64url(b"user-4711"), "userName": "ada", "counter": str(counter), "rpName": "Bank",
            "userDisplayName": "Ada Lovelace", "discoverable": "true", "creationDate": "2025-03-04T05:06:07.000Z"}


export = {"encrypted": False, "folders": [], "items": [{
    "id": "3f0c1d2e-0000-4000-8000-000000000001", "organizationId": None, "folderId": None, "type": 1, "reprompt": 0, "name": "Bank",
    "notes": None, "favorite": False, "collectionIds": None, "creationDate": "2025-03-04T05:06:07.000Z", "revisionDate": "2025-03-04T05:06:07.000Z",
    "login": {"uris": [{"match": None, "uri": "https://bank.example"}], "username": "ada", "password": "Bank-pass-1", "totp": None,
              "fido2Credentials": [
                  credential("8d7a0b1c-2e3f-4a5b-9c6d-7e8f90a1b2c3", p256_pkcs8(), 0),
                  credential("b64." + b64url(b"imported-credential-id"), p256_pkcs8(), 5),
                  credential("b64." + b64url(b"rsa-credential"), b"not a key", 0, algorithm="RSA")]}}]}
with open(sys.argv[1], "w") as f:
    json.dump(export, f, indent=2)
    f.write("\n")
