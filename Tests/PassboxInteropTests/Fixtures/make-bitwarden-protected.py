#!/usr/bin/python3
"""Makes bitwarden-protected-pbkdf2.json and bitwarden-protected-argon2.json once, from bitwarden.json, in the
layout of Bitwarden's password-protected JSON export as its clients' source writes it (Bitwarden's own CLI
cannot be installed here: npm is not reachable). The key: PBKDF2-SHA256(password, salt as UTF-8 text) or
Argon2id(password, SHA-256(salt)), stretched by HKDF-Expand-SHA256 into "enc" and "mac" keys; every value an
EncString of type 2: AES-256-CBC with PKCS#7, HMAC-SHA256 over IV || ciphertext.
Run: /usr/bin/python3 make-bitwarden-protected.py (python3-cryptography, python3-argon2)."""
import base64, hashlib, hmac, json, os

from argon2.low_level import Type, hash_secret_raw
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

PASSWORD = b"fixture-password"


def expand(key, info):
    return hmac.new(key, info + b"\x01", hashlib.sha256).digest()


def enc_string(plain, enc, mac):
    iv = os.urandom(16)
    padder = padding.PKCS7(128).padder()
    data = padder.update(plain) + padder.finalize()
    encryptor = Cipher(algorithms.AES(enc), modes.CBC(iv)).encryptor()
    ct = encryptor.update(data) + encryptor.finalize()
    tag = hmac.new(mac, iv + ct, hashlib.sha256).digest()
    return "2." + "|".join(base64.b64encode(x).decode() for x in (iv, ct, tag))


def make(name, kdf):
    salt = base64.b64encode(os.urandom(16)).decode()
    if kdf == 0:
        key = hashlib.pbkdf2_hmac("sha256", PASSWORD, salt.encode(), 100000, 32)
        params = {"kdfType": 0, "kdfIterations": 100000}
    else:
        key = hash_secret_raw(PASSWORD, hashlib.sha256(salt.encode()).digest(), time_cost=3, memory_cost=64 * 1024, parallelism=4, hash_len=32, type=Type.ID)
        params = {"kdfType": 1, "kdfIterations": 3, "kdfMemory": 64, "kdfParallelism": 4}
    enc, mac = expand(key, b"enc"), expand(key, b"mac")
    with open("bitwarden.json", "rb") as f:
        plain = f.read()
    out = {"encrypted": True, "passwordProtected": True, "salt": salt, **params,
           "encKeyValidation_DO_NOT_EDIT": enc_string(os.urandom(16).hex().encode(), enc, mac), "data": enc_string(plain, enc, mac)}
    with open(name, "w") as f:
        json.dump(out, f, indent=2)


make("bitwarden-protected-pbkdf2.json", 0)
make("bitwarden-protected-argon2.json", 1)
