#!/usr/bin/python3
"""Makes onepassword.1pux once (checked in): a ZIP written by Python's zipfile holding export.attributes,
export.data in the layout 1Password documents for 1PUX, and one file under files/; with --documents it makes
onepassword-documents.1pux instead: the same and a Document item with its file, and a file no item names."""
import sys
import json, zipfile

data = {"accounts": [{"attrs": {"accountName": "Jane", "name": "Jane Doe", "email": "jane@example.org", "uuid": "ACC1", "domain": "my.1password.com"},
  "vaults": [
    {"attrs": {"uuid": "V1", "desc": "", "avatar": "", "name": "Private", "type": "P"}, "items": [
      {"uuid": "i1", "favIndex": 1, "createdAt": 1600000000, "updatedAt": 1700000000, "state": "active", "categoryUuid": "001",
       "details": {"loginFields": [
           {"value": "octocat", "id": "", "name": "username", "fieldType": "T", "designation": "username"},
           {"value": "Op-Current-3", "id": "", "name": "password", "fieldType": "P", "designation": "password"},
           {"value": "on", "id": "", "name": "remember", "fieldType": "C"}],
         "notesPlain": "login notes",
         "sections": [{"title": "Security", "name": "s1", "fields": [
           {"title": "one-time password", "id": "TOTP_1", "value": {"totp": "otpauth://totp/GitHub:octocat?secret=JBSWY3DPEHPK3PXP&issuer=GitHub"}, "guarded": False, "multiline": False},
           {"title": "recovery key", "id": "rk", "value": {"concealed": "rk-123-456"}},
           {"title": "backup file", "id": "bf", "value": {"file": {"fileName": "codes.txt", "documentId": "d1", "decryptedSize": 10}}}]}],
         "passwordHistory": [{"value": "Op-Old-1", "time": 1650000000}, {"value": "Op-Old-2", "time": 1680000000}]},
       "overview": {"subtitle": "octocat", "urls": [{"label": "", "url": "https://github.com/login"}, {"label": "gist", "url": "https://gist.github.com"}],
                    "title": "GitHub", "url": "https://github.com/login", "tags": ["code"]}},
      {"uuid": "i2", "favIndex": 0, "createdAt": 1600000000, "updatedAt": 1600000000, "state": "active", "categoryUuid": "002",
       "details": {"sections": [{"title": "", "fields": [
           {"title": "cardholder name", "id": "cardholder", "value": {"string": "Jane Doe"}},
           {"title": "number", "id": "ccnum", "value": {"creditCardNumber": "4111111111111111"}},
           {"title": "verification number", "id": "cvv", "value": {"concealed": "123"}},
           {"title": "expiry date", "id": "expiry", "value": {"monthYear": 202904}}]}]},
       "overview": {"title": "Visa", "tags": []}},
      {"uuid": "i3", "favIndex": 0, "createdAt": 1600000000, "updatedAt": 1600000000, "state": "archived", "categoryUuid": "003",
       "details": {"notesPlain": "an old note"}, "overview": {"title": "Archived note"}},
      {"uuid": "i4", "favIndex": 0, "createdAt": 1600000000, "updatedAt": 1600000000, "state": "active", "categoryUuid": "115",
       "details": {"sections": [{"title": "", "fields": [{"title": "recovery phrase", "id": "rp", "value": {"concealed": "legal winner thank year wave sausage worth useful legal winner thank yellow"}}]}]},
       "overview": {"title": "Wallet"}}]},
    {"attrs": {"uuid": "V2", "name": "Shared", "type": "E"}, "items": [
      {"uuid": "i5", "favIndex": 0, "createdAt": 1600000000, "updatedAt": 1600000000, "state": "active", "categoryUuid": "109",
       "details": {"sections": [{"title": "", "fields": [
           {"title": "network name", "id": "network_name", "value": {"string": "HomeNet"}},
           {"title": "wireless network password", "id": "wireless_password", "value": {"concealed": "wifi-pass-1"}}]}]},
       "overview": {"title": "Home Wi-Fi"}}]}]}]}
documents = "--documents" in sys.argv[1:]
if documents:
    data["accounts"][0]["vaults"][0]["items"].append(
      {"uuid": "i6", "favIndex": 0, "createdAt": 1600000000, "updatedAt": 1600000000, "state": "active", "categoryUuid": "006",
       "details": {"documentAttributes": {"fileName": "passport.pdf", "documentId": "d2", "decryptedSize": 27}, "notesPlain": "scanned 2024"},
       "overview": {"title": "Passport scan"}})
with zipfile.ZipFile("onepassword-documents.1pux" if documents else "onepassword.1pux", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("export.attributes", json.dumps({"version": 3, "description": "1Password Unencrypted Export", "createdAt": 1700000000}))
    z.writestr("export.data", json.dumps(data))
    z.writestr("files/d1__codes.txt", "1111\n2222\n")
    if documents:
        z.writestr("files/d2__passport.pdf", "%PDF-1.4\n% a passport scan\n")
        z.writestr("files/d9__stray.txt", "no item names this file\n")
