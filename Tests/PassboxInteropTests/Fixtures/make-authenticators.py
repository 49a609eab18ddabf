#!/usr/bin/python3
"""Makes the Aegis and 2FAS fixtures once (the files are checked in): each app's documented export layout,
encrypted with Python's hashlib (scrypt, PBKDF2) and PyCryptodome's AES-GCM, an implementation apart from
Passbox's. Password of the encrypted ones: "authenticator fixture".
"""
import base64, hashlib, json, os
from Cryptodome.Cipher import AES

password = b"authenticator fixture"
entries = [
    {"type": "totp", "uuid": "01e1f1a0-0000-4000-8000-000000000001", "name": "octocat", "issuer": "GitHub", "note": "work account",
     "favorite": True, "icon": None, "info": {"secret": "JBSWY3DPEHPK3PXP", "algo": "SHA1", "digits": 6, "period": 30}, "groups": ["g-work"]},
    {"type": "hotp", "uuid": "01e1f1a0-0000-4000-8000-000000000002", "name": "jane", "issuer": "Bank", "note": "",
     "favorite": False, "icon": None, "info": {"secret": "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "algo": "SHA256", "digits": 8, "counter": 7}, "groups": []},
    {"type": "steam", "uuid": "01e1f1a0-0000-4000-8000-000000000003", "name": "gamer", "issuer": "Steam", "note": "",
     "favorite": False, "icon": None, "info": {"secret": "JBSWY3DPEHPK3PXP", "algo": "SHA1", "digits": 5, "period": 30}, "groups": []},
]
db = {"version": 3, "entries": entries, "groups": [{"uuid": "g-work", "name": "Work"}]}
plain = {"version": 1, "header": {"slots": None, "params": None}, "db": db}
json.dump(plain, open("aegis-plain.json", "w"), indent=2)

master = os.urandom(32)
salt = os.urandom(32)
n, r, p = 1 << 15, 8, 1
derived = hashlib.scrypt(password, salt=salt, n=n, r=r, p=p, dklen=32, maxmem=64 << 20)
c = AES.new(derived, AES.MODE_GCM, nonce=os.urandom(12))
slot_key, slot_tag = c.encrypt_and_digest(master)
c2 = AES.new(master, AES.MODE_GCM, nonce=os.urandom(12))
sealed_db, db_tag = c2.encrypt_and_digest(json.dumps(db).encode())
encrypted = {"version": 1, "header": {
    "slots": [{"type": 1, "uuid": "5b8f1a0e-0000-4000-8000-00000000000a", "key": slot_key.hex(),
               "key_params": {"nonce": c.nonce.hex(), "tag": slot_tag.hex()}, "n": n, "r": r, "p": p, "salt": salt.hex(), "repaired": True}],
    "params": {"nonce": c2.nonce.hex(), "tag": db_tag.hex()}}, "db": base64.b64encode(sealed_db).decode()}
json.dump(encrypted, open("aegis-encrypted.json", "w"), indent=2)

services = [
    {"name": "GitHub", "secret": "JBSWY3DPEHPK3PXP", "updatedAt": 1700000000000, "otp": {"label": "GitHub:octocat", "account": "octocat", "issuer": "GitHub",
     "digits": 6, "period": 30, "algorithm": "SHA1", "tokenType": "TOTP", "source": "Link"}, "order": {"position": 0}, "groupId": "grp-1"},
    {"name": "Mail", "secret": "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "updatedAt": 1700000000000, "otp": {"account": "me@example.org", "issuer": "Mail",
     "digits": 8, "period": 60, "algorithm": "SHA512", "tokenType": "TOTP", "source": "Manual"}, "order": {"position": 1}},
]
twofas = {"services": services, "groups": [{"id": "grp-1", "name": "Work", "isExpanded": True}], "schemaVersion": 4, "appVersionCode": 5000000, "appOrigin": "android"}
json.dump(twofas, open("2fas-plain.2fas", "w"), indent=2)
salt2 = os.urandom(256)
key2 = hashlib.pbkdf2_hmac("sha256", password, salt2, 10000, 32)
c3 = AES.new(key2, AES.MODE_GCM, nonce=os.urandom(12))
ct, tag = c3.encrypt_and_digest(json.dumps(services).encode())
twofas_enc = {"services": [], "groups": twofas["groups"], "schemaVersion": 4, "appVersionCode": 5000000, "appOrigin": "android",
              "servicesEncrypted": ":".join(base64.b64encode(x).decode() for x in (ct + tag, salt2, c3.nonce))}
json.dump(twofas_enc, open("2fas-encrypted.2fas", "w"), indent=2)
