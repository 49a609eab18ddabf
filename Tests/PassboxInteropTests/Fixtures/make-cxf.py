#!/usr/bin/python3
"""Makes cxf.json once (the file is checked in): a CXF 1.0 document (the FIDO Alliance's Credential Exchange
Format, its JSON as the published draft and Bitwarden's credential-exchange types lay it out), one account with a
collection "Work" and a sub-collection "Servers". Its items: a login with basic-auth, a passkey (a P-256 key
made by openssl, PKCS#8), a TOTP, a note, two URLs, a tag and favourite; a card; a Wi-Fi network; an API key;
custom fields (one concealed); an SSH key (Ed25519, PKCS#8); and, for what Passbox passes over, a passkey whose
key is no key, a TOTP with an unknown algorithm and an "address" credential.

usage: make-cxf.py OUT.json
"""
import base64, json, subprocess, sys


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def pkcs8(*genpkey):
    pem = subprocess.run(["openssl", "genpkey", *genpkey], check=True, capture_output=True).stdout
    return subprocess.run(["openssl", "pkcs8", "-topk8", "-nocrypt", "-outform", "DER"], input=pem, check=True, capture_output=True).stdout


def field(kind, value, label=None):
    f = {"fieldType": kind, "value": value}
    if label:
        f["label"] = label
    return f


bank = {"id": b64url(b"item-bank"), "creationAt": 1700000000, "modifiedAt": 1700000500, "title": "Bank", "favorite": True, "tags": ["money"],
        "scope": {"urls": ["https://bank.example/login", "https://m.bank.example"], "androidApps": []},
        "credentials": [
            {"type": "basic-auth", "username": field("string", "ada"), "password": field("concealed-string", "Cxf-Bank-1")},
            {"type": "passkey", "credentialId": b64url(b"cxf-credential-1"), "rpId": "bank.example", "username": "ada", "userDisplayName": "Ada Lovelace",
             "userHandle": b64url(b"user-4711"), "key": b64url(pkcs8("-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"))},
            {"type": "passkey", "credentialId": b64url(b"cxf-broken"), "rpId": "bank.example", "username": "ada", "userDisplayName": "",
             "userHandle": b64url(b"user-4711"), "key": b64url(b"not a key")},
            {"type": "totp", "secret": "JBSWY3DPEHPK3PXP", "period": 30, "digits": 6, "algorithm": "sha1", "issuer": "Bank", "username": "ada"},
            {"type": "totp", "secret": "JBSWY3DPEHPK3PXP", "period": 30, "digits": 6, "algorithm": "md5"},
            {"type": "note", "content": field("string", "branch 12")}]}
card = {"id": b64url(b"item-card"), "title": "Visa", "credentials": [
    {"type": "credit-card", "number": field("concealed-string", "4111 1111 1111 1111"), "fullName": field("string", "A. Person"),
     "cardType": field("string", "Visa"), "verificationNumber": field("concealed-string", "123"), "expiryDate": field("year-month", "2029-04")}]}
wifi = {"id": b64url(b"item-wifi"), "title": "Home", "credentials": [
    {"type": "wifi", "ssid": field("string", "home-net"), "passphrase": field("concealed-string", "wifi-pass"),
     "networkSecurityType": field("wifi-network-security-type", "wpa3-personal")}]}
api = {"id": b64url(b"item-api"), "title": "Deploy token", "credentials": [
    {"type": "api-key", "key": field("concealed-string", "tok-123"), "username": field("string", "ci"), "keyType": field("string", "bearer"),
     "url": field("string", "https://api.example")}]}
custom = {"id": b64url(b"item-custom"), "title": "Locker", "credentials": [
    {"type": "custom-fields", "fields": [field("concealed-string", "4-8-15", "Combination"), field("string", "Gym", "Where")]},
    {"type": "address", "streetAddress": field("string", "1 Main Street")}]}
ssh = {"id": b64url(b"item-ssh"), "title": "Server key", "credentials": [
    {"type": "ssh-key", "keyType": "ssh-ed25519", "privateKey": b64url(pkcs8("-algorithm", "ED25519")), "keyComment": "me@laptop"}]}

document = {"version": {"major": 1, "minor": 0}, "exporterRpId": "exporter.example", "exporterDisplayName": "Example Exporter", "timestamp": 1700001000,
            "accounts": [{"id": b64url(b"account-1"), "username": "ada", "email": "ada@example.org", "collections": [
                {"id": b64url(b"col-work"), "title": "Work", "items": [{"item": bank["id"]}],
                 "subCollections": [{"id": b64url(b"col-servers"), "title": "Servers", "items": [{"item": ssh["id"]}]}]}],
                "items": [bank, card, wifi, api, custom, ssh]}]}
with open(sys.argv[1], "w") as f:
    json.dump(document, f, indent=2)
    f.write("\n")
