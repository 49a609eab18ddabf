#!/usr/bin/python3
"""Makes Sources/PassboxService/Data/passkey-directory.json from a checkout of the Passkeys Directory
(github.com/2factorauth/passkeys, CC BY 4.0; its entries/?/DOMAIN.json files): the sites that accept passkeys, in
the 2FA Directory's API shape, [[name, {"domain", "additional-domains"?, "passwordless"?, "mfa"?,
"documentation"?}], ...], sorted by name. Entries that accept passkeys neither for signing in ("passwordless")
nor as a second step ("mfa") are left out.

usage: make-passkey-directory.py ENTRIES-DIR OUT.json
"""
import glob, json, os, sys

sites = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*", "*.json"))):
    with open(path) as f:
        (name, info), = json.load(f).items()
    if not info.get("passwordless") and not info.get("mfa"):
        continue
    entry = {"domain": os.path.basename(path)[:-len(".json")]}
    for key in ("additional-domains", "passwordless", "mfa", "documentation"):
        if info.get(key):
            entry[key] = info[key]
    sites.append([name, entry])
sites.sort(key=lambda s: (s[0].lower(), s[1]["domain"]))
with open(sys.argv[2], "w") as f:
    json.dump(sites, f, separators=(",", ":"), ensure_ascii=False)
    f.write("\n")
print(f"{len(sites)} sites")
