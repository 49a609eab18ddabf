#!/usr/bin/env python3
"""Writes the icon rules at the end of Sources/PassboxWeb/UI/app/style.css: one `.i-NAME` rule per SVG in
Sources/PassboxWeb/UI/icons, the file itself as a data: URL, so a page load makes no request per icon.
Run it after adding or changing an icon; WebUIFileTests checks that the rules match the files."""
import os, re, urllib.parse

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "PassboxWeb", "UI")
marker = "/* Icons (scripts/embed-icons.py): Lucide's SVG files as data: URLs. */"


def data_url(svg):
    compact = re.sub(r"\s+", " ", svg.strip()).replace("> <", "><").replace('"', "'")
    return "data:image/svg+xml," + urllib.parse.quote(compact, safe=" =:/;,'-.")


css_path = os.path.join(root, "app", "style.css")
css = open(css_path).read()
css = css.split(marker)[0].rstrip() + "\n"
# Rules written before this script existed (url(/icons/…)) go too.
css = "\n".join(line for line in css.split("\n") if not line.startswith(".i-")) + "\n"
rules = []
for name in sorted(f[:-4] for f in os.listdir(os.path.join(root, "icons")) if f.endswith(".svg")):
    url = data_url(open(os.path.join(root, "icons", name + ".svg")).read())
    # Unprefixed only: Chromium 120+, Firefox 53+ and Safari 15.4+ read it (the prefixed copy doubled the file).
    rules.append(f'.i-{name} {{ mask-image: url("{url}"); }}')
open(css_path, "w").write(css + marker + "\n" + "\n".join(rules) + "\n")
print(f"{len(rules)} icon rules written")
