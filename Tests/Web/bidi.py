"""A minimal WebDriver BiDi client for Firefox (Debian's firefox-esr), with no geckodriver.

Standard library plus python3-websocket (websocket-client) only. Firefox is started headless with a profile
directory of its own, prefs written to user.js before it starts and an environment of its own (HOME), and is
driven over its built-in WebDriver BiDi endpoint (--remote-debugging-port). All waits poll a condition up to a
deadline; none relies on a fixed sleep.

    with Firefox(home=home, prefs={...}, accept_insecure_certs=True, system_access=True) as ff:
        ff.subscribe_logs()                                    # web pages' console -> ff.log_entries
        ff.install_extension("/path/to/unpacked")              # temporary, like about:debugging
        tab = ff.new_tab("http://bank.example/")
        title = ff.evaluate(tab, "document.title")
        ff.click_element(tab, "#username")                     # a trusted click (input.performActions)
        ff.press(tab, "ArrowDown", "Enter")
        popup = ff.new_tab("moz-extension://<uuid>/popup.html") # needs system_access
        errors = [e for e in ff.log_entries if e["level"] == "error"] + ff.error_lines()

The moz-extension:// UUID of an add-on is fixed by the pref extensions.webextensions.uuids, a JSON object
{"<add-on id>": "<uuid>"}, in prefs. Native messaging hosts are looked up in $HOME/.mozilla/native-messaging-hosts.
"""
import json, os, shutil, signal, subprocess, tempfile, threading, time

import websocket

__all__ = ["BiDiError", "Firefox", "KEYS", "wait_until"]

# WebDriver key codes (https://w3c.github.io/webdriver/#keyboard-actions) for the names press() accepts.
KEYS = {
    "Backspace": "\ue003", "Tab": "\ue004", "Enter": "\ue007", "Shift": "\ue008", "Control": "\ue009", "Alt": "\ue00a",
    "Escape": "\ue00c", "Space": " ", "PageUp": "\ue00e", "PageDown": "\ue00f", "End": "\ue010", "Home": "\ue011",
    "ArrowLeft": "\ue012", "ArrowUp": "\ue013", "ArrowRight": "\ue014", "ArrowDown": "\ue015", "Delete": "\ue017",
    "Meta": "\ue03d",
}

# Quiet, deterministic profile: no first-run pages, no update or telemetry traffic, console output on stdout.
# (The remote agent adds its own "recommended" prefs on top, remote.prefs.recommended.)
DEFAULT_PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "browser.aboutwelcome.enabled": False,
    "browser.tabs.warnOnClose": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.enabled": False,
    "toolkit.telemetry.server": "",
    "app.update.disabledForTesting": True,
    "app.normandy.enabled": False,
    "app.shield.optoutstudies.enabled": False,
    "browser.discovery.enabled": False,
    "extensions.getAddons.cache.enabled": False,
    "extensions.update.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "browser.safebrowsing.update.enabled": False,
    "browser.region.network.url": "",
    "dom.push.connection.enabled": False,
    # console.* of every page, the add-ons' pages and background included, goes to Firefox's stdout as well
    # (BiDi's log.entryAdded leaves add-on pages out: Firefox bug 1755014); see error_lines().
    "devtools.console.stdout.content": True,
    "devtools.console.stdout.chrome": False,
}


class BiDiError(Exception):
    """An error answer from the browser, or a broken connection."""


def wait_until(condition, timeout=10.0, interval=0.05, what="condition"):
    """Calls condition() until it returns a truthy value and returns that value; raises TimeoutError at the deadline.

    Exceptions raised by condition() count as "not yet" and the last one is reported at the deadline.
    """
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = condition()
            if last:
                return last
        except Exception as e:  # noqa: BLE001 - reported at the deadline
            last = e
        if time.monotonic() >= deadline:
            raise TimeoutError(f"{what}: not met in {timeout:g} s (last: {last!r})")
        time.sleep(interval)


def _user_js_value(value):
    return json.dumps(value)  # booleans, numbers and strings are written as JavaScript literals


def to_local_value(value):
    """A Python value as a BiDi LocalValue (an argument of script.callFunction)."""
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool):
        return {"type": "boolean", "value": value}
    if isinstance(value, (int, float)):
        if value != value:
            return {"type": "number", "value": "NaN"}
        if value in (float("inf"), float("-inf")):
            return {"type": "number", "value": "Infinity" if value > 0 else "-Infinity"}
        return {"type": "number", "value": value}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    if isinstance(value, (list, tuple)):
        return {"type": "array", "value": [to_local_value(v) for v in value]}
    if isinstance(value, dict):
        if "sharedId" in value or "handle" in value:  # a remote reference (a node from an earlier result) passes as is
            return value
        return {"type": "object", "value": [[str(k), to_local_value(v)] for k, v in value.items()]}
    raise TypeError(f"cannot pass {type(value).__name__} to the browser")


def from_remote_value(remote):
    """A BiDi RemoteValue as a Python value: primitives, arrays, objects, maps and sets by value; nodes and other
    references as the RemoteValue dict itself (it can be passed back as an argument)."""
    kind = remote.get("type")
    if kind in ("undefined", "null"):
        return None
    if kind in ("string", "boolean"):
        return remote["value"]
    if kind == "number":
        v = remote["value"]
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf"), "-0": -0.0}.get(v, v) if isinstance(v, str) else v
    if kind == "bigint":
        return int(remote["value"])
    if kind in ("array", "set") and "value" in remote:
        return [from_remote_value(v) for v in remote["value"]]
    if kind in ("object", "map") and "value" in remote:
        return {(k if isinstance(k, str) else json.dumps(from_remote_value(k))): from_remote_value(v) for k, v in remote["value"]}
    if kind == "date":
        return remote["value"]
    return remote


class Firefox:
    """One headless Firefox and one BiDi session on it. Use as a context manager, or call close()."""

    def __init__(self, binary="firefox-esr", profile=None, prefs=None, env=None, home=None, accept_insecure_certs=False,
                 system_access=False, viewport=(1280, 800), startup_timeout=60.0, command_timeout=30.0, extra_args=()):
        """Starts Firefox and opens a session.

        profile: a directory to use (created if missing; a temporary one, removed by close(), if None).
        prefs: written to <profile>/user.js over DEFAULT_PREFS before the start.
        home: HOME of the Firefox process (a temporary one, removed by close(), if None); env: more variables.
        viewport: (width, height) set on every tab that new_tab() opens, and on the first one.
        system_access: start with --remote-allow-system-access, needed to navigate a tab to a moz-extension:// page
            and for evaluate_chrome() (the add-on helpers below use it).
        """
        self.command_timeout = command_timeout
        self._temporary = []
        self._ws = self.process = self._output = None
        self.profile = profile or self._tempdir("bidi-profile-")
        os.makedirs(self.profile, exist_ok=True)
        self.home = home or self._tempdir("bidi-home-")
        os.makedirs(self.home, exist_ok=True)
        self.viewport = viewport
        all_prefs = dict(DEFAULT_PREFS, **(prefs or {}))
        with open(os.path.join(self.profile, "user.js"), "w") as f:
            for name, value in all_prefs.items():
                f.write(f"user_pref({json.dumps(name)}, {_user_js_value(value)});\n")
        port_file = os.path.join(self.profile, "WebDriverBiDiServer.json")
        if os.path.exists(port_file):
            os.remove(port_file)
        self.output_path = os.path.join(self._tempdir("bidi-output-"), "firefox.log")
        self._output = open(self.output_path, "wb")
        # MOZ_REMOTE_SETTINGS_DEVTOOLS: a release build ignores services.settings.server (which the remote agent
        # points at a dummy) without it, and fetches Remote Settings from Mozilla's server.
        process_env = dict(os.environ, HOME=self.home, MOZ_CRASHREPORTER_DISABLE="1", MOZ_NO_REMOTE="1",
                           MOZ_REMOTE_SETTINGS_DEVTOOLS="1")
        process_env.pop("DISPLAY", None)
        process_env.update(env or {})
        self._lock = threading.Condition()
        self._next_id = 0
        self._replies = {}
        self.events = []          # every event received, in order: {"method": ..., "params": ...}
        self.log_entries = []     # params of every log.entryAdded, once subscribe_logs() is called
        self.started = time.monotonic()
        try:
            self.process = subprocess.Popen(
                [binary, "--headless", "--no-remote", "--remote-debugging-port=0", "--profile", self.profile,
                 *(["--remote-allow-system-access"] if system_access else []), *extra_args, "about:blank"],
                env=process_env, stdin=subprocess.DEVNULL, stdout=self._output, stderr=subprocess.STDOUT, start_new_session=True)
            # Firefox writes the port it listens on (port 0: any free one) to <profile>/WebDriverBiDiServer.json.
            deadline = time.monotonic() + startup_timeout
            while True:
                self._raise_if_ended()
                try:
                    with open(port_file) as f:
                        ws_port = json.load(f)["ws_port"]
                    break
                except (OSError, ValueError, KeyError):
                    pass
                if time.monotonic() >= deadline:
                    raise BiDiError(f"Firefox opened no BiDi port in {startup_timeout:g} s: {self.output()[-2000:]}")
                time.sleep(0.05)
            # Firefox refuses a handshake with an Origin header it was not told to allow (--remote-allow-origins).
            self._ws = websocket.create_connection(f"ws://127.0.0.1:{ws_port}/session", timeout=startup_timeout, suppress_origin=True)
            self._ws.settimeout(None)
            threading.Thread(target=self._read, name="bidi-reader", daemon=True).start()
            capabilities = {"acceptInsecureCerts": bool(accept_insecure_certs), "unhandledPromptBehavior": {"default": "ignore"}}
            self.session = self.send("session.new", {"capabilities": {"alwaysMatch": capabilities}}, timeout=startup_timeout)
            self.startup_seconds = time.monotonic() - self.started
            if viewport:
                for context in self.top_contexts():
                    self.set_viewport(context, *viewport)
        except BaseException:
            self.close()
            raise

    # ---- plumbing -------------------------------------------------------------------------------------------

    def _tempdir(self, prefix):
        path = tempfile.mkdtemp(prefix=prefix)
        self._temporary.append(path)
        return path

    def _raise_if_ended(self):
        if self.process.poll() is not None:
            raise BiDiError(f"Firefox ended (exit {self.process.returncode}): {self.output()[-2000:]}")

    def output(self):
        """What Firefox printed so far (stdout and stderr; console.* too, with devtools.console.stdout.content)."""
        try:
            with open(self.output_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def error_lines(self, start=0):
        """Error reports in Firefox's output from character offset `start` (len(self.output()) marks a point):
        'console.error: ...' lines (any page's, add-on pages' included; no URL given) and
        'JavaScript error: URL, line N: ...' lines (uncaught errors, with the script's URL)."""
        return [line for line in self.output()[start:].splitlines()
                if line.startswith("console.error: ") or line.startswith("JavaScript error: ")]

    def _read(self):
        while True:
            try:
                message = json.loads(self._ws.recv())
            except Exception:  # noqa: BLE001 - the connection closed
                with self._lock:
                    self._replies[None] = "closed"
                    self._lock.notify_all()
                return
            with self._lock:
                if message.get("id") is not None:
                    self._replies[message["id"]] = message
                elif message.get("type") == "event":
                    self.events.append(message)
                    if message["method"] == "log.entryAdded":
                        self.log_entries.append(message["params"])
                self._lock.notify_all()

    def send(self, method, params=None, timeout=None):
        """Sends one command and returns its result; raises BiDiError on an error answer."""
        with self._lock:
            self._next_id += 1
            ident = self._next_id
        self._ws.send(json.dumps({"id": ident, "method": method, "params": params or {}}))
        with self._lock:
            done = self._lock.wait_for(lambda: ident in self._replies or None in self._replies, timeout or self.command_timeout)
            if not done:
                raise BiDiError(f"{method}: no answer in {timeout or self.command_timeout:g} s")
            if ident not in self._replies:
                raise BiDiError(f"{method}: the connection closed")
            reply = self._replies.pop(ident)
        if reply.get("type") == "error" or "error" in reply:
            raise BiDiError(f"{method}: {reply.get('error')}: {reply.get('message')}")
        return reply["result"]

    def subscribe(self, *events, contexts=None):
        """session.subscribe to event names ("log.entryAdded", "browsingContext.load", ...), for all contexts by default."""
        params = {"events": list(events)}
        if contexts:
            params["contexts"] = list(contexts)
        return self.send("session.subscribe", params)

    def subscribe_logs(self):
        """Collects console messages and uncaught errors of all tabs into self.log_entries (log.entryAdded)."""
        return self.subscribe("log.entryAdded")

    def wait_event(self, method, predicate=lambda params: True, timeout=10.0, since=0):
        """Waits for an event (already received from index `since` on, or to come) and returns its params."""
        def find():
            with self._lock:
                for event in self.events[since:]:
                    if event["method"] == method and predicate(event["params"]):
                        return event["params"]
            return None
        return wait_until(find, timeout, 0.02, f"event {method}")

    # ---- extensions -----------------------------------------------------------------------------------------

    def install_extension(self, path, permanent=False):
        """Installs an unpacked extension directory (temporary unless permanent) and returns its add-on id."""
        params = {"extensionData": {"type": "path", "path": os.path.abspath(path)}}
        if permanent:
            params["moz:permanent"] = True
        return self.send("webExtension.install", params)["extension"]

    def uninstall_extension(self, extension_id):
        return self.send("webExtension.uninstall", {"extension": extension_id})

    def extension_background_state(self, addon_id):
        """"starting", "running", "suspending" or "stopped" (system_access): the add-on's background page."""
        return self.evaluate_chrome(f"WebExtensionPolicy.getByID({json.dumps(addon_id)})?.extension?.backgroundState ?? null")

    def terminate_extension_background(self, addon_id):
        """Stops the add-on's event page now, as an idle timeout would (system_access); the next event starts it."""
        self.evaluate_chrome(f"WebExtensionPolicy.getByID({json.dumps(addon_id)}).extension"
                             ".terminateBackground({ignoreDevToolsAttached: true}).then(() => true)")
        return wait_until(lambda: self.extension_background_state(addon_id) == "stopped", 10, 0.05, "the background stopped")

    # ---- tabs and navigation --------------------------------------------------------------------------------

    def top_contexts(self):
        """The ids of the open tabs (top-level browsing contexts)."""
        return [c["context"] for c in self.send("browsingContext.getTree", {"maxDepth": 0})["contexts"]]

    def new_tab(self, url=None, background=False):
        """Opens a tab (and navigates it to url, if given); returns its context id."""
        context = self.send("browsingContext.create", {"type": "tab", "background": background})["context"]
        if self.viewport:
            self.set_viewport(context, *self.viewport)
        if url:
            self.navigate(context, url)
        return context

    def close_tab(self, context):
        return self.send("browsingContext.close", {"context": context})

    def activate(self, context):
        return self.send("browsingContext.activate", {"context": context})

    def set_viewport(self, context, width, height):
        return self.send("browsingContext.setViewport", {"context": context, "viewport": {"width": width, "height": height}})

    def navigate(self, context, url, wait="complete", timeout=None):
        """Loads url in the tab and waits for it ("none", "interactive" or "complete"); returns the final URL."""
        return self.send("browsingContext.navigate", {"context": context, "url": url, "wait": wait}, timeout)["url"]

    def reload(self, context, wait="complete"):
        return self.send("browsingContext.reload", {"context": context, "wait": wait})

    def url(self, context):
        tree = self.send("browsingContext.getTree", {"root": context, "maxDepth": 0})["contexts"]
        return tree[0]["url"] if tree else None

    def screenshot(self, context, path):
        import base64
        data = self.send("browsingContext.captureScreenshot", {"context": context})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return path

    # ---- script ---------------------------------------------------------------------------------------------

    def _script_result(self, result):
        if result.get("type") == "exception":
            details = result["exceptionDetails"]
            raise BiDiError(f"script threw: {details.get('text')}")
        return from_remote_value(result["result"])

    def evaluate(self, context, expression, await_promise=True, sandbox=None, user_activation=False):
        """Evaluates a JavaScript expression in the tab's page (or in a named sandbox) and returns its value.

        A promise is awaited (await_promise); the value comes back as Python (see from_remote_value).
        """
        target = {"context": context}
        if sandbox:
            target["sandbox"] = sandbox
        return self._script_result(self.send("script.evaluate", {
            "expression": expression, "target": target, "awaitPromise": await_promise, "resultOwnership": "none",
            "userActivation": user_activation}))

    def call(self, context, function, *args, await_promise=True, sandbox=None):
        """Calls a JavaScript function declaration ("(a, b) => a + b") with Python arguments; returns its value."""
        target = {"context": context}
        if sandbox:
            target["sandbox"] = sandbox
        return self._script_result(self.send("script.callFunction", {
            "functionDeclaration": function, "arguments": [to_local_value(a) for a in args], "target": target,
            "awaitPromise": await_promise, "resultOwnership": "none"}))

    def evaluate_chrome(self, expression, await_promise=True):
        """Evaluates in the browser's own (privileged) main window: needs system_access."""
        contexts = self.send("browsingContext.getTree", {"maxDepth": 0, "moz:scope": "chrome"})["contexts"]
        if not contexts:
            raise BiDiError("no chrome window")
        return self.evaluate(contexts[0]["context"], expression, await_promise=await_promise)

    def wait_js(self, context, expression, timeout=10.0, interval=0.05):
        """Polls an expression in the tab until it is truthy; returns its value."""
        return wait_until(lambda: self.evaluate(context, expression), timeout, interval, f"`{expression}` in {context}")

    def rect(self, context, selector):
        """The viewport rectangle (x, y, width, height) of the first element matching a CSS selector, scrolled into view."""
        r = self.call(context, """(selector) => {
            const e = document.querySelector(selector);
            if (!e) return null;
            e.scrollIntoView({block: "center", inline: "center"});
            const r = e.getBoundingClientRect();
            return [r.x, r.y, r.width, r.height];
        }""", selector)
        if r is None:
            raise BiDiError(f"no element matches {selector!r}")
        return tuple(r)

    # ---- input (trusted events) -----------------------------------------------------------------------------

    def perform(self, context, actions):
        """input.performActions with raw action sources, then input.releaseActions."""
        self.send("input.performActions", {"context": context, "actions": actions})
        self.send("input.releaseActions", {"context": context})

    def click(self, context, x, y, button=0, count=1, pause=0):
        """A trusted mouse click at viewport coordinates (CSS pixels, rounded to integers), `pause` seconds after
        the pointer got there (in the same command)."""
        steps = [{"type": "pointerMove", "x": int(round(x)), "y": int(round(y)), "origin": "viewport", "duration": 0}]
        if pause:
            steps.append({"type": "pause", "duration": int(pause * 1000)})
        for _ in range(count):
            steps += [{"type": "pointerDown", "button": button}, {"type": "pointerUp", "button": button}]
        self.perform(context, [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": steps}])

    def click_node(self, context, shared_id, button=0):
        """A trusted mouse click at the centre of a node, which the browser finds when it performs the click (a
        page that moves the node between a measurement and the click cannot make it land elsewhere)."""
        steps = [{"type": "pointerMove", "x": 0, "y": 0, "origin": {"type": "element", "element": {"sharedId": shared_id}}, "duration": 0},
                 {"type": "pointerDown", "button": button}, {"type": "pointerUp", "button": button}]
        self.perform(context, [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": steps}])

    def click_element(self, context, selector, dx=0, dy=0, button=0):
        """A trusted click at the centre of the element matching selector, plus (dx, dy); returns the point."""
        x, y, width, height = self.rect(context, selector)
        point = (int(x + width / 2 + dx), int(y + height / 2 + dy))
        self.click(context, *point, button=button)
        return point

    def press(self, context, *keys):
        """Presses and releases keys in order: names from KEYS ("ArrowDown", "Enter", ...) or single characters."""
        steps = []
        for key in keys:
            value = KEYS.get(key, key)
            if len(value) != 1:
                raise ValueError(f"unknown key {key!r}")
            steps += [{"type": "keyDown", "value": value}, {"type": "keyUp", "value": value}]
        self.perform(context, [{"type": "key", "id": "keyboard", "actions": steps}])

    def key_chord(self, context, *keys):
        """Holds keys down in order, then releases them in reverse: key_chord(tab, "Control", "Shift", "l")."""
        values = [KEYS.get(k, k) for k in keys]
        steps = [{"type": "keyDown", "value": v} for v in values] + [{"type": "keyUp", "value": v} for v in reversed(values)]
        self.perform(context, [{"type": "key", "id": "keyboard", "actions": steps}])

    def type_text(self, context, text):
        """Types text into whatever has the focus, one trusted key press per character."""
        self.press(context, *list(text))

    # ---- the end --------------------------------------------------------------------------------------------

    def close(self, timeout=10.0):
        """Closes the browser (browser.close, then SIGTERM and SIGKILL to its process group) and removes temp dirs."""
        if self._ws is not None:
            try:
                self.send("browser.close", timeout=5)
            except Exception:  # noqa: BLE001 - it may already be gone, or the connection closes first
                pass
            try:
                self._ws.close()
            except Exception:  # noqa: BLE001
                pass
            self._ws = None
        if self.process is not None:
            for sig, wait in ((None, timeout), (signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
                if sig is not None:
                    try:
                        os.killpg(self.process.pid, sig)
                    except ProcessLookupError:
                        pass
                try:
                    self.process.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
            # Children (content processes) may outlive the parent: end what is left of the group, and wait (up to
            # a deadline) until it is gone.
            group = self.process.pid
            deadline = time.monotonic() + 5.0
            while time.monotonic() < deadline:
                try:
                    os.killpg(group, signal.SIGKILL)
                except ProcessLookupError:
                    break
                time.sleep(0.05)
            self.process = None
        if self._output is not None:
            self._output.close()
            self._output = None
        for path in self._temporary:
            shutil.rmtree(path, ignore_errors=True)
        self._temporary = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
