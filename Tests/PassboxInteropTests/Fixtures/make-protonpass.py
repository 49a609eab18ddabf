#!/usr/bin/python3
"""Makes protonpass.zip once: a Proton Pass export (unencrypted) as its app writes it, `Proton Pass/data.json`
in a ZIP, hand-written to the layout of Proton Pass's exports (the app cannot run here). Its data.json is
also kept bare as protonpass.json. Run: /usr/bin/python3 make-protonpass.py"""
import json, zipfile

data = {
    "version": "1.21.2",
    "userId": "user-1",
    "encrypted": False,
    "vaults": {
        "share-personal": {
            "name": "Personal", "description": "", "display": {"color": 0, "icon": 0},
            "items": [
                {"itemId": "i1", "shareId": "share-personal", "state": 1, "aliasEmail": None, "contentFormatVersion": 1,
                 "createTime": 1700000000, "modifyTime": 1700003600, "pinned": True,
                 "data": {"metadata": {"name": "Proton Mail", "note": "main account", "itemUuid": "u1"},
                          "extraFields": [{"fieldName": "Recovery PIN", "type": "hidden", "data": {"content": "4711"}},
                                          {"fieldName": "Plan", "type": "text", "data": {"content": "Plus"}}],
                          "type": "login",
                          "content": {"itemEmail": "me@proton.me", "itemUsername": "me", "password": "Pr0ton-Secret!",
                                      "urls": ["https://account.proton.me", "https://mail.proton.me"],
                                      "totpUri": "otpauth://totp/Proton:me?secret=JBSWY3DPEHPK3PXP&issuer=Proton", "passkeys": [{"keyId": "k"}]}}},
                {"itemId": "i2", "shareId": "share-personal", "state": 1, "aliasEmail": None, "contentFormatVersion": 1,
                 "createTime": 1700000000, "modifyTime": 1700000000, "pinned": False,
                 "data": {"metadata": {"name": "Visa", "note": "", "itemUuid": "u2"}, "extraFields": [], "type": "creditCard",
                          "content": {"cardholderName": "Max Muster", "cardType": 0, "number": "4111111111111111", "verificationCode": "123",
                                      "expirationDate": "2029-03", "pin": "0000"}}},
                {"itemId": "i3", "shareId": "share-personal", "state": 2, "aliasEmail": None, "contentFormatVersion": 1,
                 "createTime": 1700000000, "modifyTime": 1700000000, "pinned": False,
                 "data": {"metadata": {"name": "Old note", "note": "gone soon", "itemUuid": "u3"}, "extraFields": [], "type": "note", "content": {}}},
            ]},
        "share-work": {
            "name": "Work", "description": "", "display": {"color": 1, "icon": 2},
            "items": [
                {"itemId": "i4", "shareId": "share-work", "state": 1, "aliasEmail": "shop.x1@passmail.net", "contentFormatVersion": 1,
                 "createTime": 1700000000, "modifyTime": 1700000000, "pinned": False,
                 "data": {"metadata": {"name": "Shop alias", "note": "", "itemUuid": "u4"}, "extraFields": [], "type": "alias", "content": {}}},
                {"itemId": "i5", "shareId": "share-work", "state": 1, "aliasEmail": None, "contentFormatVersion": 1,
                 "createTime": 1700000000, "modifyTime": 1700000000, "pinned": False,
                 "data": {"metadata": {"name": "Office Wi-Fi", "note": "", "itemUuid": "u5"}, "extraFields": [], "type": "wifi",
                          "content": {"ssid": "office", "password": "wifi-pass-1", "security": "WPA2"}}},
                {"itemId": "i6", "shareId": "share-work", "state": 1, "aliasEmail": None, "contentFormatVersion": 1,
                 "createTime": 1700000000, "modifyTime": 1700000000, "pinned": False,
                 "data": {"metadata": {"name": "Future kind", "note": "", "itemUuid": "u6"}, "extraFields": [], "type": "hologram", "content": {}}},
            ]},
    },
}
text = json.dumps(data, indent=2)
with open("protonpass.json", "w") as f:
    f.write(text)
with zipfile.ZipFile("protonpass.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("Proton Pass/data.json", text)
