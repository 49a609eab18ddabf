"""The sites the extension's tests visit, served on 127.0.0.1 under real-looking names.

One HTTP and one HTTPS server (a self-signed certificate for every name, made with openssl); Chromium reaches
them through --host-resolver-rules (a name's ports 80 and 443 mapped to these), Firefox through its proxy
preferences (plain http as absolute URIs, https as CONNECT tunnels to the HTTPS server). A request for any
other name is refused, so a page that reached out elsewhere would fail the test.

Pages (the same on every name):
  /login       a login form (username, password, Sign in) that posts to /welcome
  /register    a new-account form (username, two new-password fields) that posts to /welcome
  /otp         a one-time-code field
  /frame?src=  a login form and an iframe of another site's /login
  /fadedframe?src=  the same, the iframe made almost transparent (opacity 0.05) by the page around it
  /overlay     a login form; once Passbox's button is there, a transparent layer with pointer-events: none
               is put over the whole page after it (a clickjacking attempt)
  /faint       a login form on a page whose root is made almost transparent once Passbox's button is there
  /scripted    a login form whose script sends synthetic key presses and clicks to the fields and the button
  /label       a login form whose username label floats over the field (see-through, pointer-events: none),
               as many sites draw theirs: not an overlay
  /popover     a login form; once Passbox's button is there, a page popover (top layer, pointer-events: none)
               is opened over the button: a fake button drawn where the user clicks the real one
  /latepopover a login form; once the test dispatches `cover-now` on the window (after the menu showed its
               rows: a timer from the pointer's press raced the menu's loading on a busy machine), a page
               popover is opened over the menu's rows
  /shift       a login form between spacers, scrolled 60 px down; once the test dispatches `shift-on-move` on the
               window, the pointer's next move scrolls the form 40 px down the viewport (the menu moves with it,
               under the cursor) and then 1 px further every 50 ms, at most 15 times, until a click: the menu is
               moved again and again while the click is on its way. At the click (the window's capture phase, which
               runs before Passbox's own listener), body's data-verdict says whether it came within 395 ms of the
               move the menu was last drawn for ("early"; at that move's time or later Passbox armed the menu
               anew), later ("late"), before the menu was drawn moved ("unmoved") or on anything but Passbox's
               host ("missed"), and data-after its milliseconds after that move
  /fakesubmit  a login form; once Passbox's button is there, the page fills in mallory and dispatches a
               synthetic submit event and Enter key of its own (no real submission)
  /welcome     where the forms go (POST): "Welcome"
  /passkey     (https) a WebAuthn relying party's Register and Sign-in page, served by ext_passkeys.py
  /favicon.ico nothing (204), so that a browser's request for it logs no error
"""
import html, http.server, json, os, select, socket, socketserver, ssl, subprocess, threading, urllib.parse

import ext_passkeys

NAMES = ["bank.example", "login.bank.example", "evil.example", "bank.example.evil.example", "shop.example"]

STYLE = "body{font:16px sans-serif;margin:0;padding:24px} input{display:block;width:260px;margin:8px 0 16px;padding:6px;font-size:16px} iframe{width:420px;height:360px;border:1px solid #888}"

LOGIN_FORM = """<form id="login" method="post" action="/welcome">
<label for="username">Username</label><input id="username" name="username" type="text" autocomplete="username">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password">
<button id="signin" type="submit">Sign in</button></form>"""

REGISTER_FORM = """<form id="register" method="post" action="/welcome">
<label for="username">Username</label><input id="username" name="username" type="text" autocomplete="username">
<label for="new1">New password</label><input id="new1" name="new1" type="password" autocomplete="new-password">
<label for="new2">Repeat it</label><input id="new2" name="new2" type="password" autocomplete="new-password">
<button id="create" type="submit">Create account</button></form>"""

# The label lies over the field's middle, where Passbox looks for what covers the field.
LABEL_FORM = """<form id="login" method="post" action="/welcome">
<div style="position:relative"><input id="username" name="username" type="text" autocomplete="username" placeholder=" ">
<label for="username" style="position:absolute;left:10px;top:16px;width:250px;pointer-events:none;color:#555;background:transparent">Your username or email address</label></div>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password">
<button id="signin" type="submit">Sign in</button></form>"""

OTP_FORM = """<form id="otp" method="post" action="/welcome">
<label for="code">Code from your authenticator</label><input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="6">
<button id="verify" type="submit">Verify</button></form>"""

# Waits for Passbox's button (the host element it appends to the root), then acts.
WHEN_BUTTON = """<script>
function whenButton(act) {
  const found = () => document.querySelector('[data-passbox-button]');
  if (found()) { act(found()); return; }
  new MutationObserver((_, o) => { if (found()) { o.disconnect(); act(found()); } }).observe(document.documentElement, {childList: true});
}
</script>"""

# A page popover (in the top layer, above Passbox's button) that lets clicks through to what lies below.
POPOVER_JS = """<script>
function cover(left, top, width, height, text) {
  const layer = document.createElement('div');
  layer.id = 'cover';
  layer.popover = 'manual';
  layer.style.cssText = `position:fixed;inset:auto;margin:0;padding:0;border:0;left:${left}px;top:${top}px;width:${width}px;height:${height}px;pointer-events:none;background:#2f52d6;color:#fff`;
  layer.textContent = text;
  document.body.append(layer);
  layer.showPopover();
  document.body.dataset.ready = '1';
}
</script>"""

SCRIPTS = {
    "/overlay": WHEN_BUTTON + """<script>whenButton(() => {
  const layer = document.createElement('div');
  layer.id = 'layer';
  layer.style.cssText = 'position:fixed;inset:0;z-index:2147483647;pointer-events:none;background:rgba(255,255,255,0.97)';
  layer.textContent = 'Click anywhere to win a prize';
  document.documentElement.append(layer);
  document.body.dataset.ready = '1';
});</script>""",
    "/faint": WHEN_BUTTON + """<script>whenButton(() => { document.documentElement.style.opacity = '0.05'; document.body.dataset.ready = '1'; });</script>""",
    "/popover": WHEN_BUTTON + POPOVER_JS + """<script>whenButton((button) => {
  const r = button.getBoundingClientRect();
  cover(r.left - 4, r.top - 4, r.width + 8, r.height + 8, '');
});</script>""",
    "/latepopover": WHEN_BUTTON + POPOVER_JS + """<script>whenButton(() => {
  window.addEventListener('cover-now', () => {
    const f = document.getElementById('username').getBoundingClientRect();
    cover(f.left, f.bottom, 420, 160, 'Click here to continue');
  }, {once: true});
});</script>""",
    "/shift": WHEN_BUTTON + """<script>
scrollTo(0, 60);
whenButton((button) => {
  const mark = document.body.dataset;
  addEventListener('shift-on-move', () => {
    const base = button.getBoundingClientRect().y;
    const moves = [];
    let timer = 0;
    const move = () => {
      scrollTo(0, 20 - moves.length);
      moves.push(performance.now());
      if (moves.length > 15) clearInterval(timer);
    };
    addEventListener('pointermove', () => {
      move();
      timer = setInterval(move, 50);
      mark.ready = '1';
    }, {once: true, capture: true});
    addEventListener('click', (event) => {
      clearInterval(timer);
      const now = performance.now();
      const drawn = Math.round(button.getBoundingClientRect().y - base) - 40;
      if (!(event.target instanceof Element && event.target.hasAttribute('data-passbox-button'))) mark.verdict = 'missed';
      else if (drawn < 0 || drawn >= moves.length) mark.verdict = 'unmoved';
      else {
        mark.after = String(Math.round(now - moves[drawn]));
        mark.verdict = now - moves[drawn] < 395 ? 'early' : 'late';
      }
    }, {once: true, capture: true});
  }, {once: true});
});</script>""",
    "/fakesubmit": WHEN_BUTTON + """<script>whenButton(() => {
  const form = document.getElementById('login');
  form.addEventListener('submit', (event) => event.preventDefault());
  document.getElementById('username').value = 'mallory';
  const password = document.getElementById('password');
  password.value = 'Mallory-Secret-1';
  form.dispatchEvent(new SubmitEvent('submit', {bubbles: true, cancelable: true}));
  password.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', code: 'Enter', bubbles: true, cancelable: true}));
  document.body.dataset.ready = '1';
});</script>""",
    "/scripted": WHEN_BUTTON + """<script>whenButton((button) => {
  const user = document.getElementById('username');
  user.focus();
  for (const key of ['ArrowDown', 'Enter', 'ArrowDown', 'Enter']) {
    user.dispatchEvent(new KeyboardEvent('keydown', {key, code: key, bubbles: true, cancelable: true}));
  }
  const r = button.getBoundingClientRect();
  for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click']) {
    button.dispatchEvent(new MouseEvent(type, {bubbles: true, composed: true, clientX: r.x + r.width / 2, clientY: r.y + r.height / 2}));
  }
  button.click();
  document.body.dataset.ready = '1';
});</script>""",
}


def page(scheme, host, path, query):
    title = f"{host}{path}"
    if path in ("/login", "/overlay", "/faint", "/scripted", "/popover", "/latepopover", "/fakesubmit"):
        body = LOGIN_FORM + SCRIPTS.get(path, "")
    elif path == "/shift":
        body = '<div style="height:100px"></div>' + LOGIN_FORM + '<div style="height:2000px"></div>' + SCRIPTS[path]
    elif path == "/label":
        body = LABEL_FORM
    elif path == "/register":
        body = REGISTER_FORM
    elif path == "/otp":
        body = OTP_FORM
    elif path in ("/frame", "/fadedframe"):
        src = query.get("src", [""])[0]
        if not src.startswith("https://") or urllib.parse.urlsplit(src).hostname not in NAMES:
            return None
        fade = ' style="opacity:0.05"' if path == "/fadedframe" else ""
        body = LOGIN_FORM + f'<iframe id="frame" src="{html.escape(src)}" title="embedded"{fade}></iframe>'
    elif path == "/passkey" and scheme == "https":
        body = ext_passkeys.page(host, query)
    elif path == "/welcome":
        body = '<h1 id="welcome">Welcome</h1>'
    else:
        return None
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title><style>{STYLE}</style></head>'
            f'<body><h1 id="where">{scheme}://{host}{path}</h1>{body}</body></html>').encode()


class Handler(http.server.BaseHTTPRequestHandler):
    def target(self):
        path, host = self.path, self.headers.get("Host", "")
        if path.startswith("http://"):  # through Firefox's proxy: an absolute URI
            parts = urllib.parse.urlsplit(path)
            host, path = parts.netloc, parts.path + ("?" + parts.query if parts.query else "")
        parts = urllib.parse.urlsplit(path)
        return host.split(":")[0], parts.path, urllib.parse.parse_qs(parts.query)

    def answer(self):
        host, path, query = self.target()
        self.server.seen.append((self.server.scheme, host, path))
        if host in NAMES and path == "/favicon.ico":
            # No icon, and no 404 in the console that the tests would have to tell from a real error.
            self.send_response(204)
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            return
        body = page(self.server.scheme, host, path, query) if host in NAMES else None
        if body is None:
            self.send_error(404 if host in NAMES else 403)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.answer()

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0") or "0")
        body = self.rfile.read(min(length, 1 << 16))
        host, path, _ = self.target()
        if host in NAMES and path.startswith("/passkey/") and self.server.scheme == "https":
            data = json.dumps(ext_passkeys.answer(host, path, body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)
            return
        self.answer()

    def do_CONNECT(self):
        """Firefox's proxy for https: a tunnel to the HTTPS server (port 443 only, known names only)."""
        host, _, port = self.path.rpartition(":")
        if host not in NAMES or port != "443":
            self.server.seen.append(("refused", host, port))
            self.send_error(403)
            return
        upstream = socket.create_connection(("127.0.0.1", self.server.tunnel_https))
        self.send_response(200, "Connection established")
        self.end_headers()
        sockets = [self.connection, upstream]
        try:
            while True:
                readable, _, _ = select.select(sockets, [], [], 30)
                if not readable:
                    return
                for s in readable:
                    data = s.recv(65536)
                    if not data:
                        return
                    (upstream if s is self.connection else self.connection).sendall(data)
        finally:
            upstream.close()
            self.close_connection = True

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


class Sites:
    """Both servers, started; stop() ends them."""

    def __init__(self, directory):
        cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                        "-subj", "/CN=bank.example", "-addext", "subjectAltName=" + ",".join("DNS:" + n for n in NAMES),
                        "-keyout", key, "-out", cert], check=True, capture_output=True)
        self.plain = Server(("127.0.0.1", 0), Handler)
        self.plain.scheme, self.plain.seen = "http", []
        self.secure = Server(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.secure.socket = context.wrap_socket(self.secure.socket, server_side=True)
        self.secure.scheme, self.secure.seen = "https", []
        self.plain.tunnel_https = self.secure.server_port
        for s in (self.plain, self.secure):
            threading.Thread(target=s.serve_forever, daemon=True).start()

    def resolver_rules(self):
        """Chromium's --host-resolver-rules: each name's 443 to the HTTPS server, its 80 to the HTTP one, nothing else."""
        rules = []
        for name in NAMES:
            rules += [f"MAP {name}:443 127.0.0.1:{self.secure.server_port}", f"MAP {name}:80 127.0.0.1:{self.plain.server_port}"]
        return ", ".join(rules + ["EXCLUDE 127.0.0.1", "MAP * ~NOTFOUND"])

    def firefox_prefs(self):
        port = self.plain.server_port
        return {"network.proxy.type": 1, "network.proxy.http": "127.0.0.1", "network.proxy.http_port": port,
                "network.proxy.ssl": "127.0.0.1", "network.proxy.ssl_port": port, "network.proxy.no_proxies_on": "",
                "network.proxy.allow_hijacking_localhost": False}

    def stop(self):
        for s in (self.plain, self.secure):
            s.shutdown()
            s.server_close()
