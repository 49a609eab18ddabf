#!/usr/bin/python3
"""Makes the pykeepass fixtures (run once by make-fixtures.sh; the files are checked in).

usage: make-pykeepass.py OUT.kdbx PASSWORD [--keyfile F] [--chacha20-argon2id] [--entries N] [--cheap] [--history-attachments]
       [--passkey PEM]
"""
import argparse
import datetime
import os
from pykeepass import create_database

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("password")
p.add_argument("--keyfile")
p.add_argument("--chacha20-argon2id", action="store_true")
p.add_argument("--entries", type=int, default=0, help="N generated logins instead of the fixture's entries")
p.add_argument("--cheap", action="store_true", help="Argon2 at 1 MiB x 1 pass (for the mutation test)")
p.add_argument("--history-attachments", action="store_true", help="one entry whose earlier version has other attachments")
p.add_argument("--passkey", help="one login holding a passkey as KeePassXC keeps it (KPEX_PASSKEY_*), its P-256 key from this PEM file")
a = p.parse_args()

kp = create_database(a.out, password=a.password, keyfile=a.keyfile)
dyn = kp.kdbx.header.value.dynamic_header
kdf = dyn.kdf_parameters.data.dict
if a.chacha20_argon2id:
    dyn.cipher_id.data = "chacha20"
    dyn.encryption_iv.data = os.urandom(12)
    kdf["$UUID"].value = bytes.fromhex("9e298b1956db4773b23dfc3ec6f0a1e6")
kdf["I"].value = 1 if a.cheap else 2
# The header is kept as read (construct's RawCopy): without its raw bytes it is built again from the changed values.
del kp.kdbx.header["data"]
kdf["M"].value = (1 if a.cheap else 16) * 1024 * 1024
kdf["P"].value = 1 if a.cheap else 2

when = datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc)
if a.history_attachments:
    e = kp.add_entry(kp.root_group, "Lease", "jane", "lease-pass-1", notes="flat 3")
    first = kp.add_binary(b"%PDF-1.4 lease, first draft\n")
    photo = kp.add_binary(b"\xff\xd8\xff a photo of the flat")
    e.add_attachment(first, "lease.pdf")
    e.add_attachment(photo, "flat.jpg")
    e.save_history()
    e.delete_attachment(e.attachments[0])
    signed = kp.add_binary(b"%PDF-1.4 lease, signed\n")
    e.add_attachment(signed, "lease signed.pdf")
    e.password = "lease-pass-2"
elif a.passkey:
    # As KeePassXC 2.7 writes a passkey it made: the attributes, the key protected, the URL of the relying party.
    e = kp.add_entry(kp.root_group, "Passkey Bank", "ada", "", url="https://bank.example")
    for key, value, protected in [
            ("KPEX_PASSKEY_CREDENTIAL_ID", "AAECAwQFBgcICQoLDA0ODw", False),
            ("KPEX_PASSKEY_PRIVATE_KEY_PEM", open(a.passkey).read().strip(), True),
            ("KPEX_PASSKEY_RELYING_PARTY", "bank.example", False),
            ("KPEX_PASSKEY_USERNAME", "ada", False),
            ("KPEX_PASSKEY_USER_HANDLE", "dXNlci00NzEx", False)]:
        e.set_custom_property(key, value)
        if protected:
            e._element.xpath(f"String[Key='{key}']/Value")[0].set("Protected", "True")
    e.mtime = when
    e.ctime = when
elif a.entries:
    g = kp.add_group(kp.root_group, "Bulk")
    for i in range(a.entries):
        e = kp.add_entry(g, f"Site {i}", f"user{i}", f"pw-{i:06d}-Xq9!", url=f"https://site{i}.example.com/login", notes=f"entry {i}")
else:
    mail = kp.add_group(kp.root_group, "Mail")
    e = kp.add_entry(kp.root_group, "Bank", "jane", "first-Bank-pass", url="https://bank.example.com", notes="PIN in the safe", tags=["money", "family"])
    e.save_history()
    e.password = "second-Bank-pass"
    e.set_custom_property("PIN", "4321")
    e._element.xpath("String[Key='PIN']/Value")[0].set("Protected", "True")
    e.set_custom_property("Branch", "Main Street")
    e.otp = "otpauth://totp/Bank:jane?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Bank&period=60&digits=8&algorithm=SHA512"
    e.mtime = when
    e.ctime = when
    f = kp.add_entry(mail, "Mailbox", "jane@example.org", "mail-pass-Ö", url="mail.example.org")
    bid = kp.add_binary(b"\x89PNG not really\x00\x01", compressed=True, protected=True)
    f.add_attachment(bid, "scan.png")
    kp.add_entry(mail, "Empty", "", "")
kp.save()
