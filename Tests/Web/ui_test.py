#!/usr/bin/python3
"""The web UI in a real browser: Debian's chromium and chromium-driver, driven headless with selenium.

Runs against real agents (`passbox agent`) in throwaway data directories, in English and German:
onboarding, a login with a generated password, a search with a typo, copy (read back from the X clipboard
under Xvfb), edit and restore from history, delete and undo, a one-time code from a QR image (checked
against oathtool), Security Check and its https fix, lock and unlock, and the lock by the agent's timer.
It fails on any request to an address other than the agent's, on any console error, on a missing or wrong
check of the session cookie, Origin or Host, and on any axe-core violation rated serious or critical.
Screenshots of every screen in both themes and languages go to --artifacts (docs/ARCHITECTURE.md names it).

Usage: ui_test.py --passbox PATH --axe PATH/axe.min.js --artifacts DIR
"""
import argparse, base64, concurrent.futures, fcntl, functools, http.client, json, os, re, select, shutil, signal, subprocess, sys, tempfile, threading, time, traceback

from selenium import webdriver
from selenium.common.exceptions import ElementClickInterceptedException, ElementNotInteractableException, MoveTargetOutOfBoundsException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select, WebDriverWait

import orphans
from bidi_driver import CLICK_POINT_OR_OPTION_JS, SETTLED_CLICK_POINT_JS, SHOWN_TEXT_JS, FirefoxDriver, click_at
from passbox_server import Server

HERE = os.path.dirname(os.path.abspath(__file__))
QR_IMAGE = os.path.join(HERE, "..", "PassboxImagingTests", "Images", "totp.png")
QR_SECRET = "JBSWY3DPEHPK3PXP"
KDBX_FIXTURE = os.path.join(HERE, "..", "PassboxInteropTests", "Fixtures", "keepassxc-4.kdbx")
PASSWORD = "tulip ocean marble violin anchor"
NEW_MASTER = "quartz harbor lantern meadow copper"
# The agent's protocol version, as the page's own api.js sends it.
with open(os.path.join(HERE, "..", "..", "Sources", "PassboxWeb", "UI", "app", "api.js")) as _api:
    PROTOCOL_VERSION = int(re.search(r"PROTOCOL_VERSION = (\d+);", _api.read()).group(1))


class Failure(Exception):
    pass


# Passbox Marina on the rendered screen (DS-4, DS-5): text on a Solar Silk fill is Marina ink, and in the light
# theme no text is Solar (it would be Solar on white), but the avatar's initials on the Marina gradient.
DESIGN_CHECK = """
const probe = document.createElement('span');
document.body.append(probe);
const colour = (token) => { probe.style.color = `var(${token})`; return getComputedStyle(probe).color; };
const solar = colour('--accent'), ink = colour('--accent-contrast');
probe.remove();
const light = matchMedia('(prefers-color-scheme: light)').matches;
const theme = document.documentElement.dataset.theme;
const isLight = theme === 'light' || (theme === 'system' && light);
const faults = [];
const name = (el) => el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ').join('.') : '');
const ownText = (el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
// One computed style per element: text on a Solar fill (the fill's element or any inside it) must be Marina ink;
// Solar text is looked into further only where it occurs (rare), walking up to its fill.
for (const el of document.querySelectorAll('body *')) {
  const s = getComputedStyle(el);
  if (s.backgroundColor === solar && s.backgroundImage === 'none' && el.checkVisibility()) {
    for (const inner of [el, ...el.querySelectorAll('*')]) {
      if (ownText(inner) && getComputedStyle(inner).color !== ink) faults.push(`${name(inner)}: ${getComputedStyle(inner).color} on Solar`);
    }
  }
  if (isLight && s.color === solar && ownText(el) && el.checkVisibility()) {
    let n = el;
    while (n && getComputedStyle(n).backgroundImage === 'none' && getComputedStyle(n).backgroundColor === 'rgba(0, 0, 0, 0)') n = n.parentElement;
    if (!(n && getComputedStyle(n).backgroundImage.includes('gradient'))) faults.push(`${name(el)}: Solar text on a light page`);
  }
}
return faults;
"""

# Which browser the flows on each display use (run_language fills it in).
BROWSERS = {}


@functools.lru_cache(maxsize=None)
def axe_source(path):
    """axe-core's script, read once."""
    with open(path) as f:
        return f.read()


def check(condition, message):
    if not condition:
        raise Failure(message)


class Agent:
    """A `passbox agent` in a data directory of its own, with the web UI on 127.0.0.1."""

    def __init__(self, passbox, display, auto_lock=None, catalogue_seconds=None):
        self.passbox = passbox
        # The browser the flow's pages open in: the display names it (start_display), so a flow needs no argument.
        self.browser = BROWSERS.get(display, "chromium")
        self.data = tempfile.mkdtemp(prefix="passbox-web-")
        os.chmod(self.data, 0o700)
        self.env = dict(os.environ, DISPLAY=display, XDG_RUNTIME_DIR="", PASSBOX_LANG="en")
        args = [passbox, "--data", self.data, "agent", "--insecure-test-kdf"]
        if auto_lock:
            args += ["--test-auto-lock-seconds", str(auto_lock)]
        if catalogue_seconds:
            args += ["--test-catalogue-seconds", str(catalogue_seconds)]
        self.process = subprocess.Popen(args, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 60
        while not os.path.exists(os.path.join(self.data, "run", "agent.sock")):
            if self.process.poll() is not None:
                raise Failure(f"the agent ended at start: {self.process.stderr.read().decode(errors='replace')}")
            check(time.time() < deadline, "the agent made no socket in 60 s")
            time.sleep(0.02)

    def open_url(self):
        out = subprocess.run([self.passbox, "--data", self.data, "ui", "--print-url"], env=self.env, capture_output=True, text=True, timeout=30)
        check(out.returncode == 0, f"passbox ui failed: {out.stderr}")
        url = out.stdout.strip()
        check(re.fullmatch(r"http://127\.0\.0\.1:\d+/open/[0-9a-f]{64}", url), f"unexpected address {url!r}")
        return url

    def run_directory(self):
        return os.path.join(self.data, "run")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.data, ignore_errors=True)


def strings(origin, language):
    """The page's wording: what the first visit loads, and what it fetches once it is up."""
    host, port = origin.replace("http://", "").split(":")
    table = {}
    for name in (f"{language}.json", f"{language}.later.json"):
        c = http.client.HTTPConnection(host, int(port), timeout=10)
        c.request("GET", f"/strings/{name}", headers={"Host": f"{host}:{port}"})
        table.update(json.loads(c.getresponse().read()))
    return table


class ChromiumElement(WebElement):
    """Chromium's element with its two commonest commands answered as bidi_driver answers them in Firefox:
    chromedriver's own cost 63 and 31 ms of CPU each (its click locates the element in several steps and its
    text runs Selenium's visible-text atom), about 15 % of a flow's CPU at 250 clicks and 350 texts a run. Its
    text is the shown element's innerText (blanks folded), "" when not shown; its click scrolls the element to
    the middle, raises ElementClickInterceptedException when something else is on top of its centre, and is then
    a trusted pointer click at the element as the browser finds it (chromedriver's input, as before)."""

    @property
    def text(self):
        return self.parent.execute_script(f"return ({SHOWN_TEXT_JS})(arguments[0])", self)

    def click(self, settled=False):
        """A click (SETTLED: after the page's next two frames, in the same call as the point; see click_at)."""
        if settled:
            point = self.parent.execute_async_script(f"({SETTLED_CLICK_POINT_JS})(arguments[0]).then(arguments[arguments.length - 1])", self)
        else:
            point = self.parent.execute_script(f"return ({CLICK_POINT_OR_OPTION_JS})(arguments[0])", self)

        def press():
            actions = ActionBuilder(self.parent, duration=0)
            actions.pointer_action.move_to(self)
            actions.pointer_action.click()
            actions.perform()
        # An <option>: chromedriver selects it, as the specification's click does.
        click_at(point, super().click, press, lambda e: isinstance(e, (MoveTargetOutOfBoundsException, ElementNotInteractableException)))


class UI:
    def __init__(self, args, agent, language, theme="dark", via_opener=False):
        self.args = args
        self.agent = agent
        self.language = language
        self.browser = agent.browser
        url = agent.open_url()
        self.origin = url.split("/open/")[0]
        self.table = strings(self.origin, language)
        # Downloads (the Emergency Kit) land in a folder of this test's own.
        self.downloads = tempfile.mkdtemp(prefix="passbox-web-downloads-")
        if self.browser == "firefox":
            self.driver = FirefoxDriver(agent.env["DISPLAY"], language, self.downloads)
        else:
            options = Options()
            for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1360,900", "--disable-dev-shm-usage", f"--lang={language}",
                      "--no-first-run", "--no-default-browser-check", "--disable-background-networking", "--disable-component-update", "--disable-sync"]:
                options.add_argument(a)
            options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
            self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
            self.driver._web_element_cls = ChromiumElement
            self.driver.set_page_load_timeout(30)
            self.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": self.downloads})
        self.requests = []
        # As xdg-open does: the 0600 opener file, which forwards to the one-time address.
        opener = [f for f in os.listdir(agent.run_directory()) if f.startswith("open-")] if via_opener else []
        self.driver.get("file://" + os.path.join(agent.run_directory(), opener[0]) if opener else url)
        self.wait(lambda d: d.current_url == self.origin + "/", "the address bar without the token and the page key")
        self.opener = "file://" + os.path.join(agent.run_directory(), opener[0]) if opener else None
        self.setting("web-language", language)
        self.setting("web-theme", theme)
        self.driver.refresh()
        self.wait(lambda d: d.execute_script("return document.documentElement.lang") == language, "the page language")
        self.wait(lambda d: d.execute_script("return document.documentElement.dataset.theme") == theme, "the theme from the agent's settings")

    # Texts come from the same tables the page uses, so the German run finds German labels.
    def t(self, key, **facts):
        chosen = key
        if "count" in facts:
            variant = key + (".one" if int(facts["count"]) == 1 else ".other")
            if variant in self.table:
                chosen = variant
        text = self.table.get(chosen, key)
        return re.sub(r"\{([A-Za-z0-9]+)\}", lambda m: str(facts.get(m.group(1), m.group(0))), text)

    def wait(self, condition, what, timeout=10):
        try:
            # Polled every 50 ms, not Selenium's default 500 ms: most conditions hold within a frame or two, and the
            # default's half second, paid at several hundred waits, was half of the suite's time.
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,)).until(condition)
        except TimeoutException:
            self.shot("failure-" + re.sub(r"[^a-z0-9]+", "-", what.lower())[:40])
            raise Failure(f"timed out waiting for {what} ({self.language})")

    # Whether an element is shown: no ancestor with display none or opacity 0, visible, of some size.
    SHOWN = """
const shown = (e) => {
  for (let n = e; n && n.nodeType === 1; n = n.parentElement) {
    const s = getComputedStyle(n);
    if (s.display === 'none' || s.opacity === '0') return false;
  }
  const r = e.getBoundingClientRect();
  return getComputedStyle(e).visibility === 'visible' && r.width > 0 && r.height > 0;
};"""

    # The first element CSS names that is shown (no ancestor with display none or opacity 0, visible, of some
    # size), found in the page in one call: asking the driver whether each is displayed took 40 ms a find.
    FIND_SHOWN = SHOWN + """
for (const e of document.querySelectorAll(arguments[0])) if (shown(e)) return e;
return null;"""

    def shown(self, css):
        return self.driver.execute_script(self.FIND_SHOWN, css)

    def find(self, css, timeout=10):
        return self.wait(lambda d: self.shown(css), css, timeout)

    def find_xpath(self, xpath, timeout=10):
        return self.wait(lambda d: next((e for e in d.find_elements(By.XPATH, xpath) if e.is_displayed()), None), xpath, timeout)

    def press_until(self, find, done, what, timeout=10):
        """Clicks what FIND returns (None: not there) until DONE holds: a click whose press and release straddle a
        redraw of what it presses is lost (in Firefox more often than in Chromium, and more often on a busy
        machine), so it is given again until its effect shows. Each click is given two frames to show it, so
        this is for presses that may come twice (opening, going to), never for a toggle."""
        def went(d):
            if done(d):
                return True
            e = find()
            if e is not None:
                try:
                    e.click()
                except ElementClickInterceptedException:
                    return False
                self.settle()
            return done(d)
        self.wait(went, what, timeout)

    def nav_to(self, xpath, timeout=10):
        """Clicks the navigation's button XPATH names until it is the current one."""
        def shown():
            return next((e for e in self.driver.find_elements(By.XPATH, xpath) if e.is_displayed()), None)

        def current(d):
            e = shown()
            return e is not None and e.get_attribute("aria-current") == "true"
        self.press_until(shown, current, f"{xpath} the current view", timeout)

    # The first shown, enabled button whose text or accessible name is the one given: looked for in the page in
    # one call (asking the driver about each button, four questions each, took half a second a click).
    FIND_BUTTON = SHOWN + """
const text = arguments[0];
for (const b of document.querySelectorAll('button')) {
  if (!b.disabled && (b.innerText.trim() === text || b.getAttribute('aria-label') === text) && shown(b)) return b;
}
return null;"""

    def button(self, text, timeout=10):
        return self.wait(lambda d: d.execute_script(self.FIND_BUTTON, text), f"a button {text!r}", timeout)

    def settle(self):
        """Waits for the page's next two frames: a click sent in the same instant as the last typed key was lost
        now and then in Firefox (the editor's Save, right after its title), as no person's click is."""
        self.driver.execute_async_script("const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)));")

    def click_found(self, find, intercepted, what, timeout=10):
        """Clicks what FIND returns (None: not yet there), found again if the page replaced it between finding
        and clicking; INTERCEPTED(element) answers a click that would land on something over it (True: done)."""
        def clicked(d):
            e = find()
            if e is None:
                return False
            try:
                e.click(settled=True)  # a StaleElementReferenceException here is ignored by wait, which tries again
            except ElementClickInterceptedException:
                return intercepted(e)
            return True
        self.wait(clicked, what, timeout)

    def click(self, text):
        """Clicks the button named TEXT; under a toast, it is pressed as a keyboard user would."""
        def by_keyboard(e):
            self.driver.execute_script("arguments[0].focus(); arguments[0].click();", e)
            return True
        self.click_found(lambda: self.driver.execute_script(self.FIND_BUTTON, text), by_keyboard, f"a click on the button {text!r}")

    def press(self, css, timeout=10):
        """Clicks the shown element CSS names (the backup transfer redraws its controls with every code); under a
        toast (at the bottom of the window) it is brought to the middle and pressed at the next try."""
        def to_middle(e):
            self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", e)
            return False
        self.click_found(lambda: self.shown(css), to_middle, f"a click on {css}", timeout)

    def click_row(self, title):
        """Clicks the list's first row titled TITLE, brought to the middle of the list first (the picking bar
        floats over the list's bottom)."""
        def clicked(d):
            e = d.execute_script("for (const r of document.querySelectorAll('.itemrow')) if (r.querySelector('.title')?.textContent === arguments[0]) { r.scrollIntoView({block: 'center'}); return r; } return null;", title)
            if e is None:
                return False
            try:
                e.click()
            except ElementClickInterceptedException:
                return False
            return True
        self.wait(clicked, f"a click on the row {title!r}")

    def type_into(self, css, text, clear=True):
        """Types TEXT into the shown element CSS names; typed again into the new one when the page replaced it
        while the keys arrived (the editor redraws its fields when the category changes)."""
        def typed(d):
            e = self.shown(css)
            if e is None:
                return None
            if clear:
                e.clear()
            e.send_keys(text)  # a StaleElementReferenceException here is ignored by wait, which tries again
            return e if d.execute_script("return arguments[0].isConnected", e) else None
        return self.wait(typed, f"{text!r} typed into {css}")

    def text_appears(self, text, timeout=10):
        self.wait(lambda d: text in d.find_element(By.TAG_NAME, "body").text, f"the text {text!r}", timeout)

    def allow_notifications(self):
        """The browser's notification prompt for the page answered Allow, as its user would."""
        if self.browser == "firefox":
            self.driver.ff.send("permissions.setPermission", {"descriptor": {"name": "notifications"}, "state": "granted", "origin": self.origin})
        else:
            self.driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["notifications"], "origin": self.origin})

    def api(self, op, body):
        """One operation through the page's own session (cookie and page key); the reply's kind."""
        return self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch('/api', {method: 'POST', headers: {'Content-Type': 'application/x-passbox-frame', 'X-Passbox-Key': sessionStorage.getItem('passbox.key') || ''},"
            " body: JSON.stringify({version: arguments[2], request: {op: arguments[0], body: arguments[1]}})})"
            ".then(r => r.json()).then(j => done(j.reply.kind), e => done(String(e)));", op, body, PROTOCOL_VERSION)

    def setting(self, name, value):
        """Changes one of the agent's settings (as its Settings screen does)."""
        answer = self.api("change-setting", {"name": name, "value": value})
        check(answer == "settings", f"the setting {name}={value} was not taken: {answer}")

    def create_vault(self):
        """Onboarding: a new local vault with PASSWORD, then the vault's screens."""
        self.type_into("#new-password", PASSWORD)
        self.type_into("#confirm-password", PASSWORD)
        self.click(self.t("ui.onboard.create"))
        self.find("#search")

    def unlock(self, password):
        """Types the vault password on the lock page (after the first unlock the page offers quick unlock first)."""
        for master in (self.t("ui.lock.master"), self.t("ui.lock.useMaster")):
            if any(e.text.strip() == master for e in self.driver.find_elements(By.CSS_SELECTOR, "button")):
                self.click(master)
        self.type_into("#unlock-password", password)
        self.click(self.t("ui.lock.unlock"))

    def heading(self):
        return self.find("main h1").text

    def downloaded(self, suffix, what, timeout=30, whole=lambda path: True):
        """The path of the download whose name ends with SUFFIX once the browser has written all of it: no
        partial file beside it (Chromium's .crdownload, Firefox's .part), the same size at two looks in a row,
        and WHOLE(path) true (Firefox makes the file under its name before it writes it; CI read one empty)."""
        sizes = {}
        def ready(d):
            names = os.listdir(self.downloads)
            found = [n for n in names if n.endswith(suffix)]
            if not found or any(n.endswith((".crdownload", ".part")) for n in names):
                return None
            path = os.path.join(self.downloads, found[0])
            size, before = os.path.getsize(path), sizes.get(path)
            sizes[path] = size
            if size == 0 or size != before:
                return None
            try:
                return path if whole(path) else None
            except Exception:
                return None
        return self.wait(ready, what, timeout)

    def shot(self, name):
        os.makedirs(self.args.artifacts, exist_ok=True)
        theme = self.driver.execute_script("return document.documentElement.dataset.theme")
        suffix = "-firefox" if self.browser == "firefox" else ""
        self.driver.save_screenshot(os.path.join(self.args.artifacts, f"{name}-{self.language}-{theme}{suffix}.png"))

    def context_click(self, element):
        if self.browser == "firefox":
            element.context_click()
        else:
            ActionChains(self.driver).context_click(element).perform()

    def drag(self, element, dx, dy):
        if self.browser == "firefox":
            element.drag_by(dx, dy)
        else:
            ActionChains(self.driver).move_to_element(element).click_and_hold().move_by_offset(dx, dy).release().perform()

    def axe(self, screen):
        # axe-core goes into the page once per document (the page is one document until a reload), and collects
        # the nodes of its violations only (every rule still runs; passes and the rest keep one node each).
        if not self.driver.execute_script("return typeof window.axe?.run === 'function'"):
            self.driver.execute_script(axe_source(self.args.axe))
        result = self.driver.execute_async_script("const done = arguments[arguments.length - 1]; axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations)).catch(e => done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]));")
        bad = [v for v in result if v.get("impact") in ("serious", "critical")]
        check(not bad, f"axe on {screen} ({self.language}): " + "; ".join(f"{v['id']}: {v['help']} at {[n.get('target') for n in v.get('nodes', [])][:3]}" for v in bad))
        faults = self.driver.execute_script(DESIGN_CHECK)
        check(not faults, f"Passbox Marina on {screen} ({self.language}, {self.browser}): {faults[:5]}")

    def check_logs(self):
        errors = [e for e in self.driver.get_log("browser") if e.get("level") == "SEVERE"]
        check(not errors, f"console errors ({self.language}): {errors}")
        if self.browser == "firefox":
            self.requests += self.driver.request_urls()
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                self.requests.append(message["params"]["request"]["url"])
        foreign = [u for u in self.requests if not (u.startswith(self.origin + "/") or u.startswith("data:") or u.startswith("blob:") or u == self.opener)]
        check(not foreign, f"requests to other addresses ({self.language}): {foreign}")

    def quit(self):
        self.driver.quit()
        shutil.rmtree(self.downloads, ignore_errors=True)


def security_checks(ui):
    """The session cookie, Origin and Host checks, against the real agent, outside the browser."""
    host, port = ui.origin.replace("http://", "").split(":")
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in ui.driver.get_cookies())
    check(any(c.get("httpOnly") and c.get("sameSite") == "Strict" for c in ui.driver.get_cookies()), f"the session cookie is not HttpOnly and SameSite=Strict: {ui.driver.get_cookies()}")
    frame = json.dumps({"version": PROTOCOL_VERSION, "request": {"op": "status"}}).encode()

    def ask(method, path, headers, body=None):
        c = http.client.HTTPConnection(host, int(port), timeout=10)
        c.putrequest(method, path, skip_host=True)
        for k, v in headers.items():
            c.putheader(k, v)
        c.putheader("Content-Length", str(len(body or b"")))
        c.endheaders(body)
        r = c.getresponse()
        return r.status, dict((k.lower(), v) for k, v in r.getheaders()), r.read()

    key = ui.driver.execute_script("return sessionStorage.getItem('passbox.key')")
    check(key and re.fullmatch(r"[0-9a-f]{64}", key), f"the page key is not in sessionStorage: {key!r}")
    good = {"Host": f"{host}:{port}", "Origin": ui.origin, "Content-Type": "application/x-passbox-frame", "Cookie": cookie, "X-Passbox-Key": key}
    status, headers, body = ask("POST", "/api", good, frame)
    check(status == 200 and json.loads(body)["reply"]["kind"] == "status", f"a good API call was refused: {status} {body[:200]}")
    check("script-src 'self'" in headers.get("content-security-policy", "") and "unsafe" not in headers.get("content-security-policy", ""), f"no strict CSP: {headers}")
    check(headers.get("cache-control") == "no-store", f"no Cache-Control: no-store: {headers}")
    check(not any(k.startswith("access-control-") for k in headers), f"CORS headers on the API: {headers}")
    cases = [
        ("no cookie", {k: v for k, v in good.items() if k != "Cookie"}, 401),
        ("the cookie without the page key (what a server on another port is sent)", {k: v for k, v in good.items() if k != "X-Passbox-Key"}, 401),
        ("the cookie with a wrong page key", dict(good, **{"X-Passbox-Key": "0" * 64}), 401),
        ("a wrong cookie", dict(good, Cookie=f"passbox-{port}=" + "0" * 64), 401),
        ("a foreign Origin", dict(good, Origin="http://evil.example"), 403),
        ("another port's Origin", dict(good, Origin=f"http://127.0.0.1:{int(port) + 1}"), 403),
        ("no Origin", {k: v for k, v in good.items() if k != "Origin"}, 403),
        ("a form's content type", dict(good, **{"Content-Type": "text/plain"}), 403),
        ("a foreign Host (DNS rebinding)", dict(good, Host=f"evil.example:{port}"), 421),
        ("localhost as Host", dict(good, Host=f"localhost:{port}"), 421),
        ("a cross-site fetch", dict(good, **{"Sec-Fetch-Site": "cross-site"}), 403),
    ]
    for name, headers_, expected in cases:
        status, _, _ = ask("POST", "/api", headers_, frame)
        check(status == expected, f"the API answered {status} to a request with {name} (expected {expected})")
    status, _, _ = ask("GET", "/api", good)
    check(status == 405, f"GET /api answered {status}")
    # A page cannot mint sessions: web-open is refused through the API.
    status, _, body = ask("POST", "/api", good, json.dumps({"version": PROTOCOL_VERSION, "request": {"op": "web-open"}}).encode())
    check(json.loads(body)["reply"]["kind"] == "failure", f"web-open was answered through the API: {body[:200]}")
    # What the page may call is an allow-list: hello names it (no web-open) and the operations the agent lacks.
    hello = {"op": "hello", "body": {"version": PROTOCOL_VERSION, "operations": ["status", "teleport"]}}
    status, _, body = ask("POST", "/api", good, json.dumps({"version": PROTOCOL_VERSION, "request": hello}).encode())
    reply = json.loads(body)["reply"]
    check(reply["kind"] == "hello" and "web-open" not in reply["body"]["operations"] and "status" in reply["body"]["operations"]
          and reply["body"]["missing"] == ["teleport"], f"hello through the API: {body[:300]}")
    # A body naming a file of the agent's is refused to the page.
    named = {"op": "backup-make", "body": {"format": "file", "path": "/tmp/passbox-web-named.pbbackup"}}
    status, _, body = ask("POST", "/api", good, json.dumps({"version": PROTOCOL_VERSION, "request": named}).encode())
    reply = json.loads(body)["reply"]
    check(reply["kind"] == "failure" and reply["body"]["code"] == "badRequest", f"a path was taken through the API: {body[:200]}")
    # A token works once.
    url = ui.agent.open_url()
    path = url[len(ui.origin):]
    status, headers, _ = ask("GET", path, {"Host": f"{host}:{port}"})
    check(status == 303 and "set-cookie" in headers and re.fullmatch(r"/#k=[0-9a-f]{64}", headers.get("location", "")), f"a fresh token did not make a session: {status} {headers}")
    status, headers, _ = ask("GET", path, {"Host": f"{host}:{port}"})
    check(status == 303 and "set-cookie" not in headers, f"a spent token made a second session: {headers}")
    status, headers, _ = ask("GET", "/open/" + "ab" * 32, {"Host": f"{host}:{port}"})
    check("set-cookie" not in headers, "an unknown token made a session")


def picking_checks(ui):
    """Run last in main_flows (it leaves two favourites, which change the list's rows)."""
    t = ui.t
    ui.click(t("ui.nav.all"))
    # Several at once (LST-8, TRS-1): pick two, make them favourites, then trash both and take them back with one Undo.
    ui.press("#pick-start")
    for title in ("Example Bank", "Mail"):
        ui.click_row(title)
    ui.wait(lambda d: ui.find("#pick-count").text == t("ui.pick.count", count=2), "two picked")
    check(ui.find(".rows").get_attribute("aria-multiselectable") == "true", "the list is not multi-selectable while picking")
    ui.shot("picking")
    ui.axe("picking")
    ui.press("#pick-favorite")
    ui.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".itemrow .star")) == 4, "two favourites (each twice: in Favourites and in All)")
    ui.press("#pick-start")
    for title in ("Example Bank", "Mail"):
        ui.click_row(title)
    ui.wait(lambda d: ui.find("#pick-count").text == t("ui.pick.count", count=2), "two picked again")
    ui.press("#pick-trash")
    ui.wait(lambda d: [e.text for e in d.find_elements(By.CSS_SELECTOR, ".itemrow .title")] == ["GitHub"], "both in the trash")
    ui.click(t("ui.undo"))
    ui.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".itemrow .title")) == 5, "both back with one Undo")


def narrow_checks(ui):
    """LST-15: a phone-wide window shows one pane at a time under four tabs and a raised "+", and each tab keeps
    where it was: the Items tab its open item while Security Check is shown, Profile its screen."""
    t = ui.t
    panes = "return ['.shell > .nav', '.shell > .listpane', '.shell > .main', '#tabbar', '#pane-back'].map((s) => { const e = document.querySelector(s); return !!e && getComputedStyle(e).display !== 'none'; });"
    def showing(nav, listpane, main, back=False):
        return lambda d: d.execute_script(panes) == [nav, listpane, main, True, back]
    ui.driver.set_window_size(390, 844)
    ui.wait(lambda d: d.execute_script("return innerWidth") <= 700, "a narrow window")
    ui.wait(showing(False, True, False), "the list alone above the tabs")
    # The list scrolls in its own pane; the page itself does not (no second scrollbar beside the list's), and no
    # page is taller than its content: the shell starts at the top and nothing reaches below it.
    def page_fits(what):
        size = ui.driver.execute_script("const r = document.querySelector('.shell').getBoundingClientRect();"
                                        " return {top: r.top + scrollY, shell: Math.ceil(r.height), page: document.scrollingElement.scrollHeight, window: innerHeight}")
        check(size["top"] == 0 and size["page"] <= max(size["window"], size["shell"]), f"{what}: {size}")
    page_fits("the narrow list's page is taller than the window (a second scrollbar)")
    check(ui.find('#tabbar [data-tab="items"]').get_attribute("aria-current") == "page", "the Items tab is not the current one")
    ui.shot("narrow-list")
    ui.axe("narrow list")
    title = ui.wait(lambda d: (lambda r: r and r.find_element(By.CSS_SELECTOR, ".title").text)(ui.shown(".itemrow")), "the first row's title")
    ui.press_until(lambda: ui.shown(".itemrow"), showing(False, False, True, back=True), "the item alone, with Back")
    ui.wait(lambda d: ui.heading() == title, "the item's details")
    page_fits("the narrow item's page is taller than its content")
    ui.shot("narrow-item")
    ui.axe("narrow item")
    ui.press('#tabbar [data-tab="check"]')
    ui.wait(lambda d: ui.heading() == t("ui.check.title"), "Security Check from its tab")
    ui.wait(showing(False, False, True), "Security Check without Back")
    # The Items tab comes back to the item it showed; tapped again, to its list.
    ui.press('#tabbar [data-tab="items"]')
    ui.wait(lambda d: ui.heading() == title, "the Items tab's item kept")
    ui.press('#tabbar [data-tab="items"]')
    ui.wait(showing(False, True, False), "the list after a second tap on Items")
    ui.press('#tabbar [data-tab="profile"]')
    ui.wait(showing(True, False, False), "the navigation under Profile")
    ui.click(t("ui.nav.settings"))
    ui.wait(lambda d: ui.heading() == t("ui.settings.title"), "Settings from Profile")
    ui.press('#tabbar [data-tab="generator"]')
    ui.wait(lambda d: ui.heading() == t("ui.gen.title"), "the Generator from its tab")
    ui.press('#tabbar [data-tab="profile"]')
    ui.wait(lambda d: ui.heading() == t("ui.settings.title") and d.execute_script(panes)[4], "the Profile tab's Settings kept, with Back")
    ui.press("#pane-back")
    ui.wait(showing(True, False, False), "the navigation after Back")
    # A vault chosen there: its list, and its Edit and Delete on request, Back to the list.
    ui.find_xpath("//nav//button[span[normalize-space()='Trips']]").click()
    ui.wait(lambda d: showing(False, True, False)(d) and ui.find("#home-title").text == "Trips", "the vault's list from Profile")
    ui.press("#vault-open")
    ui.wait(lambda d: showing(False, False, True, back=True)(d) and ui.shown("#vault-edit") and ui.shown("#vault-delete"), "the vault's Edit and Delete")
    ui.press("#pane-back")
    ui.wait(showing(False, True, False), "the vault's list after Back")
    ui.press('#tabbar [data-tab="profile"]')
    ui.wait(showing(True, False, False), "the navigation under Profile again")
    ui.click(t("ui.nav.all"))
    ui.wait(lambda d: showing(False, True, False)(d) and ui.find("#home-title").text == t("ui.nav.all"), "All items again")
    ui.press("#tab-new")
    ui.find("#edit-title")
    ui.shot("narrow-editor")
    ui.click(t("ui.cancel"))
    ui.wait(showing(False, True, False), "the list after a cancelled new item")
    # The head (category cards, recently used) folds away once the rows are scrolled, so the rows get the
    # window, and comes back at the top. Twelve notes (from outside the page, which follows them) make the list
    # longer than the window.
    for n in range(12):
        check(ui.api("add", {"category": "secure-note", "changes": {"title": f"Note {n:02}", "fieldsFromCommandLine": [], "secretFields": [], "removeFields": []}}) == "saved", "a note was not made")
    scroller = "document.querySelector('.shell > .listpane .scroller')"
    ui.wait(lambda d: d.execute_script(f"return {scroller}.scrollHeight > innerHeight"), "the notes in the list", timeout=20)
    rows_height = f"return {scroller}.clientHeight"
    head_shown = "return getComputedStyle(document.querySelector('.shell > .listpane .catcards')).display !== 'none'"
    before = ui.driver.execute_script(rows_height)
    check(ui.driver.execute_script(head_shown), "the category cards at the list's top")
    ui.driver.execute_script(f"{scroller}.scrollTop = 40")
    ui.wait(lambda d: not d.execute_script(head_shown) and d.execute_script(rows_height) > before + 150, f"the head folded away and the rows taller than {before} px")
    ui.shot("narrow-list-scrolled")
    ui.driver.execute_script(f"{scroller}.scrollTop = 0")
    ui.wait(lambda d: d.execute_script(head_shown), "the head back at the top")
    ui.driver.set_window_size(1360, 900)
    ui.wait(lambda d: d.execute_script(panes) == [True, True, True, False, False], "the three panes of a wide window")
    page_fits("the wide window's page is taller than the window")


def vault_checks(ui):
    """VLT-1, VLT-2, VLT-5: a new vault with its icon and colour, edited, and remembered across a reload."""
    t = ui.t
    ui.press("#nav-vault-new")
    ui.type_into("#vault-name", "Travel")
    ui.press('label[for="vault-icon-globe"]')
    ui.press('label[for="vault-colour-orange"]')
    ui.shot("vault-new")
    ui.axe("vault-new")
    ui.click(t("ui.vault.create"))
    mark = lambda d, name: next((b.find_element(By.CSS_SELECTOR, ".vaultmark").get_attribute("class") for b in d.find_elements(By.CSS_SELECTOR, "nav .nav-item") if b.text.split("\n")[0].strip() == name), None)
    ui.wait(lambda d: (mark(d, "Travel") or "").split() == ["icon", "i-globe", "vaultmark", "v-orange"], "the new vault with its icon and colour")
    ui.wait(lambda d: ui.find("#home-title").text == "Travel", "the new vault shown")
    # A new item goes to the vault the list shows (EDT-4).
    ui.click(t("ui.nav.new"))
    check(Select(ui.find("#edit-vault")).first_selected_option.text == "Travel", "the editor's vault is not the one shown")
    ui.click(t("ui.cancel"))
    ui.press("#vault-edit")
    ui.type_into("#vault-name", "Trips")
    ui.press('label[for="vault-colour-green"]')
    ui.click(t("ui.save"))
    ui.wait(lambda d: "v-green" in (mark(d, "Trips") or ""), "the vault renamed and green")
    # The vault chosen last is shown again after a reload.
    ui.driver.refresh()
    ui.wait(lambda d: ui.find("#home-title").text == "Trips", "the vault remembered across a reload")
    ui.click(t("ui.nav.all"))
    ui.wait(lambda d: ui.find("#home-title").text == t("ui.nav.all"), "All items again")


def d_has(ui, css):
    return any(e.is_displayed() for e in ui.driver.find_elements(By.CSS_SELECTOR, css))


def oathtool_codes():
    now = int(time.time())
    codes = set()
    for offset in (-30, 0, 30):
        out = subprocess.run(["oathtool", "--totp", "-b", f"--now=@{now + offset}", QR_SECRET], capture_output=True, text=True)
        codes.add(out.stdout.strip())
    return codes


class RangeService:
    """A stand-in for the Pwned Passwords range service on 127.0.0.1: one password is breached (42 times), every
    other range answers padding only; it keeps the prefixes asked and whether each request asked for padding."""

    def __init__(self, breached):
        import hashlib, http.server
        digest = hashlib.sha1(breached.encode()).hexdigest().upper()
        service = self
        self.asked, self.padded = [], []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                time.sleep(0.02)  # a service a little slower than a loopback, so the page's progress shows a while
                prefix = self.path.rsplit("/", 1)[-1]
                service.asked.append(prefix)
                service.padded.append(self.headers.get("Add-Padding") == "true")
                lines = [f"{digest[5:]}:42"] if prefix == digest[:5] else []
                lines += [f"{i:035X}:0" for i in range(3)]
                body = "\r\n".join(lines).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/range/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def risky_titles(args, agent):
    """The titles of the logins passbox check finds at risk: breached, weak, reused or at an http address."""
    cli = subprocess.run([args.passbox, "--data", agent.data, "check", "--json"], env=agent.env, capture_output=True, text=True, timeout=60)
    check(cli.returncode == 0, f"passbox check --json failed: {cli.stderr}")
    kinds = {"breached-password", "breached-website", "weak", "reused", "unsecured-website"}
    return sorted({f["title"] for f in json.loads(cli.stdout)["findings"] if f["kind"] in kinds and not f["dismissed"]})


def risky_rows(ui):
    """The titles of the list's rows that carry the risk shield, read in one call (the list may redraw between
    finding a shield and reading its row's title)."""
    return sorted(ui.driver.execute_script(
        "return [...document.querySelectorAll('.itemrow .badge.risk')].map((b) => b.closest('.itemrow').querySelector('.title').innerText.trim());"))


def clipboard(display):
    out = subprocess.run(["timeout", "5", "xclip", "-selection", "clipboard", "-o"], env=dict(os.environ, DISPLAY=display), capture_output=True, text=True)
    return out.stdout


def main_flows(args, display, language):
    agent = Agent(args.passbox, display)
    ui = UI(args, agent, language, via_opener=True)
    try:
        t = ui.t
        # Onboarding: a new local vault. Caps Lock on while a password is typed is said beside the field.
        ui.find("#new-password")
        press = "arguments[0].dispatchEvent(new KeyboardEvent('keydown', {key: 'A', bubbles: true, modifierCapsLock: arguments[1]}))"
        ui.driver.execute_script(press, ui.find("#new-password"), True)
        ui.wait(lambda d: any(e.text == t("ui.capsLock") for e in d.find_elements(By.CSS_SELECTOR, ".capslock")), "the Caps Lock warning")
        ui.driver.execute_script(press, ui.find("#new-password"), False)
        ui.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, ".capslock"), "the Caps Lock warning gone")
        # GEN-4: a password made of words, suggested into the field and its repetition and shown there.
        ui.press("#new-password-suggest")
        ui.wait(lambda d: len(ui.find("#new-password").get_attribute("value").split("-")) >= 5 and ui.find("#new-password").get_attribute("type") == "text", "a passphrase of five words suggested")
        check(ui.find("#confirm-password").get_attribute("value") == ui.find("#new-password").get_attribute("value"), "the repetition is not the suggestion")
        ui.text_appears(t("ui.suggest.note"))
        ui.shot("onboarding")
        ui.axe("onboarding")
        ui.create_vault()
        # LST-11: the new vault's empty list says so and offers New item, which makes the first login.
        ui.wait(lambda d: ui.shown("#list-empty p") and ui.shown("#list-empty p").text == t("ui.list.empty"), "the empty vault's message")
        check(ui.find("#list-empty button").text.strip() == t("ui.nav.new"), "the empty vault's action")
        check(not d_has(ui, ".itemrow"), "no rows (no skeleton left) in an empty vault")
        ui.shot("list-empty")
        ui.axe("list-empty")
        # A login with a generated password, at an http address (for Security Check).
        ui.press("#list-empty button")
        ui.type_into("#edit-title", "GitHub")
        ui.type_into("#edit-field-username", "octo@example.com")
        ui.type_into("#edit-websites", "http://github.com")
        # The editor (EDT-1, EDT-6): a live tile from the title, and the https fix offered for an http address.
        ui.wait(lambda d: t("ui.edit.http", count=1) in ui.find("#edit-https").text, "the https fix offered")
        ui.wait(lambda d: ui.find("#edit-tile .avatar").text == "GI", "the editor's live tile")
        ui.click(t("ui.edit.generate"))
        ui.wait(lambda d: len(d.find_element(By.CSS_SELECTOR, ".genbox output").text) >= 16, "a generated password")
        ui.shot("editor")
        ui.axe("editor")
        ui.click(t("ui.gen.use"))
        ui.wait(lambda d: d.find_element(By.ID, "edit-field-password").get_attribute("value") != "", "the generated password in the form")
        generated = ui.find("#edit-field-password").get_attribute("value")
        # The generated password shows; the reveal toggle beside it hides it and shows it again, its name saying which.
        check(ui.find("#edit-field-password").get_attribute("type") == "text", "the generated password is not shown")
        check(ui.find('[data-reveal="password"]').get_attribute("aria-label") == t("ui.item.conceal", label=t("ui.field.password")), "the toggle's name")
        ui.press('[data-reveal="password"]')
        ui.wait(lambda d: d.find_element(By.ID, "edit-field-password").get_attribute("type") == "password", "the password hidden in the editor")
        ui.press('[data-reveal="password"]')
        ui.wait(lambda d: d.find_element(By.ID, "edit-field-password").get_attribute("type") == "text", "the password shown again")
        ui.click(t("ui.save"))
        ui.wait(lambda d: ui.heading() == "GitHub", "the saved item")
        for title, user in [("Example Bank", "alice"), ("Mail", "alice@example.com")]:
            ui.click(t("ui.nav.new"))
            ui.type_into("#edit-title", title)
            ui.type_into("#edit-field-username", user)
            # The same password for both: Security Check's reused passwords, as a group.
            ui.type_into("#edit-field-password", "correct horse battery staple")
            if title == "Mail":
                ui.type_into("#edit-websites", "https://mail.example.org")
            ui.click(t("ui.save"))
            ui.wait(lambda d: ui.heading() == title, f"the saved item {title}")
        # The list's head (LST-1…LST-3): the big title, "3 items · on this device", the category cards, a card's
        # filter with the chip that removes it.
        ui.wait(lambda d: ui.find("#home-count").text == f'{t("ui.list.count", count=3)} · {t("ui.home.local")}', "the count and sync state")
        ui.wait(lambda d: ui.find("#home-title").text == t("ui.nav.all"), "the list's big title")
        ui.wait(lambda d: ui.find('.catcard[data-category="login"] strong').text == "3", "the Logins card's count")
        ui.shot("home")
        ui.press('.catcard[data-category="login"]')
        ui.wait(lambda d: ui.find("#home-title").text == t("ui.category.login") and d.find_elements(By.ID, "filter-chip"), "the Logins filter and its chip")
        check(not d_has(ui, ".catcard"), "the category cards stayed under a filter")
        ui.press("#filter-chip")
        ui.wait(lambda d: ui.find("#home-title").text == t("ui.nav.all") and not d.find_elements(By.ID, "filter-chip"), "All items again")
        # LST-4: A–Z has a section a letter; newest first, the items made today under Today.
        sections = lambda d: [e.text.strip().upper() for e in d.find_elements(By.CSS_SELECTOR, ".sectionrow")]
        ui.wait(lambda d: sections(d) == ["E", "G", "M"], "the list's letter sections")
        Select(ui.find("#sort")).select_by_value("newest")
        ui.wait(lambda d: sections(d) == [t("ui.list.section.today").upper()], "the newest items under Today")
        Select(ui.find("#sort")).select_by_value("az")
        ui.wait(lambda d: sections(d) == ["E", "G", "M"], "the letter sections again")
        # A search that finds nothing says so; its action clears the search (LST-11). So does the empty
        # favourites filter, whose action shows every item.
        ui.type_into("#search", "no such thing")
        ui.wait(lambda d: ui.shown("#list-empty p") and ui.shown("#list-empty p").text == t("ui.list.none"), "the no-match message")
        ui.press("#list-empty button")
        ui.wait(lambda d: ui.find("#search").get_attribute("value") == "" and len(d.find_elements(By.CSS_SELECTOR, ".itemrow .title")) == 3, "the search cleared by the empty state's action")
        check(not ui.shown("#list-empty"), "the empty state gone with the items back")
        ui.press(f'[data-nav=\'{{"kind":"favorites"}}\']')
        ui.wait(lambda d: ui.shown("#list-empty p") and ui.shown("#list-empty p").text == t("ui.list.emptyFavorites"), "the empty favourites' message")
        ui.press("#list-empty button")
        ui.wait(lambda d: ui.find("#home-title").text == t("ui.nav.all") and len(d.find_elements(By.CSS_SELECTOR, ".itemrow .title")) == 3, "all items again from the empty favourites")
        # Search with a typo.
        ui.type_into("#search", "githbu")
        ui.wait(lambda d: [e.text for e in d.find_elements(By.CSS_SELECTOR, ".itemrow .title")] == ["GitHub"], "the search with a typo to find GitHub")
        ui.shot("search")
        ui.press(".itemrow")
        ui.wait(lambda d: ui.heading() == "GitHub", "GitHub's detail")
        ui.shot("item")
        ui.axe("item")
        # Reveal, then copy through the agent's clipboard (read back from the X server).
        ui.find(f'[aria-label="{t("ui.item.reveal", label=t("ui.field.password"))}"]').click()
        ui.text_appears(generated)
        ui.find('[data-copy="password"]').click()
        ui.text_appears(t("ui.item.copied", label=t("ui.field.password"), seconds=90))
        ui.wait(lambda d: clipboard(display) == generated, "the password on the clipboard")
        # Hiding the tab masks what was revealed.
        ui.driver.execute_script("Object.defineProperty(document, 'hidden', {value: true, configurable: true}); document.dispatchEvent(new Event('visibilitychange'));")
        ui.wait(lambda d: generated not in d.find_element(By.TAG_NAME, "body").text, "the revealed password masked again")
        ui.driver.execute_script("Object.defineProperty(document, 'hidden', {value: false, configurable: true}); document.dispatchEvent(new Event('visibilitychange'));")
        # A copy counts as a use: GitHub is among the items used last once the list comes back.
        ui.driver.execute_script("const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input'));")
        ui.press(f'[data-nav=\'{{"kind":"all"}}\']')
        ui.wait(lambda d: "GitHub" in [e.text for e in d.find_elements(By.CSS_SELECTOR, ".recenttile .name")], "GitHub among the items used last")
        ui.press(".recenttile")
        ui.wait(lambda d: ui.heading() == "GitHub", "GitHub opened from the items used last")
        # Its details (DET-2, DET-4, DET-5, DET-10): the category pill, the password's strength beside its label,
        # when it was last used, and a click on the username's row copies it.
        ui.wait(lambda d: ui.find("#category-pill").text == t("ui.category.login"), "the category pill")
        ui.wait(lambda d: ui.find(".field .strength").text.strip() in (t("strength.label.3"), t("strength.label.4")), "the generated password's strength")
        ui.wait(lambda d: ui.find('[data-date="ui.item.lastUsed"]').text.startswith(t("ui.item.lastUsed", date="", ago="").split(" ")[0]), "when it was last used")
        ui.press('[data-copy-row="username"]')
        ui.wait(lambda d: clipboard(display) == "octo@example.com", "the username copied by a click on its row")
        # Edit, then restore the earlier version from history.
        ui.click(t("ui.item.edit"))
        ui.type_into("#edit-field-username", "octocat@example.com")
        ui.type_into("#edit-field-password", "Changed-Pa55word-for-history")
        # Cancel with a change asks first (EDT-3); "Keep editing" stays, and Ctrl+S saves.
        ui.click(t("ui.cancel"))
        ui.find("dialog[open]")
        ui.click(t("ui.edit.keep"))
        ui.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]") and ui.find("#edit-field-username").get_attribute("value") == "octocat@example.com", "the editor kept")
        ui.find("#edit-field-username").send_keys(Keys.CONTROL, "s")
        ui.wait(lambda d: ui.heading() == "GitHub" and not d.find_elements(By.ID, "edit-field-username"), "the item saved by Ctrl+S")
        ui.text_appears("octocat@example.com")
        ui.click(t("ui.item.history"))
        ui.find(".version")
        # HIS-2: the password's change shows its values only when asked, the old struck through beside the new,
        # and the toggle hides them again.
        check(generated not in ui.find(".versions").text, "the history shows the old password unasked")
        ui.press("[data-concealed-change] + button")
        ui.wait(lambda d: ui.find("[data-concealed-change] .diff-old").text == generated and ui.find("[data-concealed-change] .diff-new").text == "Changed-Pa55word-for-history", "the password's change revealed")
        ui.shot("history-revealed")
        ui.press("[data-concealed-change] + button")
        ui.wait(lambda d: generated not in ui.find(".versions").text, "the password's change concealed again")
        ui.shot("history")
        ui.axe("history")
        ui.click(t("ui.history.restore"))
        ui.wait(lambda d: ui.heading() == "GitHub" and "octo@example.com" in d.find_element(By.CSS_SELECTOR, ".fields").text, "the restored username")
        # Delete, and undo within the ten seconds.
        ui.click(t("ui.item.delete"))
        ui.text_appears(t("ui.item.moved", title="GitHub"))
        ui.click(t("ui.undo"))
        ui.wait(lambda d: ui.heading() == "GitHub", "GitHub back from the trash")
        # A one-time code from a QR image, the same as oathtool's.
        ui.click(t("ui.item.addCode"))
        ui.find("#code-image").send_keys(os.path.abspath(QR_IMAGE))
        ui.find("dialog .button.primary").click()
        ui.text_appears(t("ui.item.codeAdded"))
        code = ui.find(".codevalue")
        ui.wait(lambda d: re.fullmatch(r"\d{6}", code.text.replace(" ", "")) is not None, "a six-digit code")
        check(code.text.replace(" ", "") in oathtool_codes(), f"the code {code.text} is not oathtool's")
        ui.find("svg.ring")
        ui.shot("item-code")
        # LST-5: the 2FA codes filter with its count: GitHub alone.
        codes = f"//nav//button[span[normalize-space()='{t('ui.nav.codes')}']]"
        ui.wait(lambda d: [e.text for e in d.find_elements(By.XPATH, codes + "/span[@class='count']")] == ["1"], "the 2FA codes filter with its count")
        ui.nav_to(codes)
        ui.wait(lambda d: [e.text for e in d.find_elements(By.CSS_SELECTOR, ".itemrow .title")] == ["GitHub"] and ui.find("#home-title").text == t("ui.nav.codes"), "GitHub alone under 2FA codes")
        ui.nav_to(f"//nav//button[span[normalize-space()='{t('ui.nav.all')}']]")
        # EDT-1: the editor sets a code up with the item too, here from the setup key a site shows (Mail).
        ui.click_row("Mail")
        ui.wait(lambda d: ui.heading() == "Mail", "Mail's detail")
        ui.click(t("ui.item.edit"))
        ui.press("#edit-two-factor summary")
        ui.type_into("#edit-code-text", QR_SECRET)
        ui.shot("editor-two-factor")
        # EDT-2: two custom fields, the second dragged by its handle above the first.
        for index, (label, value) in enumerate([("PIN", "1234"), ("Branch", "North")]):
            ui.click(t("ui.edit.addField"))
            ui.type_into(f"#custom-label-{index}", label)
            ui.type_into(f"#custom-value-{index}", value)
        # The toasts of the steps before close first (in German they reach over the handles).
        ui.driver.execute_script("for (const b of document.querySelectorAll('#toasts .toast button[aria-label]')) b.click();")
        ui.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "#toasts .toast"), "the toasts closed")
        grip = ui.find('[data-grip="1"]')
        ui.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", grip)
        dy = ui.driver.execute_script("const r = document.querySelectorAll('.customfield'); return r[0].getBoundingClientRect().top - r[1].getBoundingClientRect().top;")
        ui.drag(ui.find('[data-grip="1"]'), 0, int(dy) - 4)
        ui.wait(lambda d: d.find_element(By.ID, "custom-label-0").get_attribute("value") == "Branch", "Branch dragged above PIN")
        check(ui.find("#custom-value-1").get_attribute("value") == "1234", "PIN's value moved with it")
        ui.click(t("ui.save"))
        ui.wait(lambda d: ui.heading() == "Mail" and d.find_elements(By.CSS_SELECTOR, ".codevalue"), "Mail's code after the editor")
        ui.wait(lambda d: ui.find(".codevalue").text.replace(" ", "") in oathtool_codes(), "Mail's code is oathtool's")
        check(not d_has(ui, "#edit-two-factor"), "the editor left")
        labels = [e.text.split(" · ")[0] for e in ui.driver.find_elements(By.CSS_SELECTOR, ".field .label")]
        check("Branch" in labels and "PIN" in labels and labels.index("Branch") < labels.index("PIN"), f"the dragged order kept: {labels}")
        # Security Check finds the http address; its fix switches it to https.
        ui.click(t("ui.nav.check"))
        ui.text_appears(t("check.kind.unsecured-website.title"))
        # The page's score, tiles and the logins it says are not secure agree with passbox check (through the agent).
        cli = subprocess.run([args.passbox, "--data", agent.data, "check", "--json"], env=agent.env, capture_output=True, text=True, timeout=60)
        check(cli.returncode == 0, f"passbox check --json failed: {cli.stderr}")
        report = json.loads(cli.stdout)
        check(ui.find("svg.scorering text").text.strip() == str(report["score"]), f"the page's score is not passbox check's {report['score']}")
        for tile in ["atRisk", "reused", "weak", "other", "secure"]:
            shown = ui.find(f"[data-tile='{tile}'] strong").text.strip()
            check(shown == str(report["tiles"][tile]), f"the tile {tile} shows {shown}, passbox check says {report['tiles'][tile]}")
        check(report["tiles"]["secure"] + len(report["notSecure"]) == report["logins"], "secure and not secure logins add up")
        # A tile opens its list: the logins it counts.
        ui.press("[data-tile='other']")
        ui.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#tile-list .finding")) == report["tiles"]["other"] > 0, "the Other findings tile's list")
        ui.find("#check-not-secure summary")
        ui.driver.execute_script("document.querySelector('#check-not-secure').open = true")  # a toast may cover the summary
        listed = [e.text for e in ui.driver.find_elements(By.CSS_SELECTOR, "#check-not-secure li strong")]
        check(listed == [f["title"] for f in report["notSecure"]], f"the page lists {listed} as not secure, passbox check {[f['title'] for f in report['notSecure']]}")
        # SEC-7: reused and similar passwords come in their groups, as passbox check groups them; SEC-12: a login
        # with a website whose fix is a new password links to the site's change-password page.
        groups = {}
        for f in report["findings"]:
            if f["kind"] in ("reused", "similar") and f.get("group") is not None:
                groups.setdefault((f["kind"], f["group"]), []).append(f["title"])
        check(groups, "no reused passwords, though Example Bank and Mail share one")
        shown = sorted(sorted(e.text for e in g.find_elements(By.CSS_SELECTOR, "li strong")) for g in ui.driver.find_elements(By.CSS_SELECTOR, ".findinggroup"))
        check(shown == sorted(sorted(v) for v in groups.values()), f"the page's groups {shown}, passbox check's {groups}")
        for (kind, _), members in groups.items():
            check(any(g.find_element(By.TAG_NAME, "h3").text == t(f"ui.check.group.{'similar' if kind == 'similar' else 'same'}", count=len(members))
                      for g in ui.driver.find_elements(By.CSS_SELECTOR, ".findinggroup")), f"no heading for the group {members}")
        link = ui.find("a.changelink[href='https://mail.example.org/.well-known/change-password']")
        check(link.text.strip() == t("ui.check.changeAt", host="mail.example.org") and "noopener" in link.get_attribute("rel").split(), f"the change-password link: {link.text!r} {link.get_attribute('rel')!r}")
        check(not ui.driver.find_elements(By.XPATH, "//li[.//strong[text()='Example Bank']]//a[contains(@class,'changelink')]"), "Example Bank has no website, yet a change-password link")
        # Issue 35: GitHub takes passkeys (the Passkeys Directory), so its login without one has the informational
        # finding, with a link to GitHub's own instructions and no edit button (a passkey is made at the site).
        offered = [f for f in report["findings"] if f["kind"] == "passkey-available" and f["title"] == "GitHub"]
        check(len(offered) == 1 and offered[0]["details"].get("documentation", "").startswith("https://"), f"passbox check's passkey finding for GitHub: {offered}")
        ui.text_appears(t("check.kind.passkey-available.title"))
        help_link = ui.find(f"a.changelink[href='{offered[0]['details']['documentation']}']")
        check(help_link.text.strip() == t("ui.check.siteHelp", site="GitHub") and "noopener" in help_link.get_attribute("rel").split(), f"the passkey help link: {help_link.text!r}")
        row = help_link.find_element(By.XPATH, "./ancestor::li[1]")
        check(not [b for b in row.find_elements(By.TAG_NAME, "button") if b.text.strip() == t("ui.item.edit")], "an edit button for a passkey the site offers")
        # SEC-4, SEC-5, SEC-17: the breach check runs from the page, through the agent, with its progress; the range
        # service (a stand-in here) is asked a multiple of 100 prefixes, with padding; the password of Example Bank and Mail is breached.
        ranges = RangeService("correct horse battery staple")
        try:
            ui.setting("range-url", ranges.url)
            ui.setting("breach-check", "on")
            ui.click(t("ui.check.again"))
            ui.press("#breach-run")
            ui.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#breach-progress progress"), "the breach check's progress")
            ui.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#breach-alert.bad"), "the breach alert card", timeout=30)
            check(ui.find("#breach-alert").text.strip() == t("ui.check.breachedLogins", count=2), f"the breach card says {ui.find('#breach-alert').text!r}")
            check(len(ranges.asked) == 100 and all(re.fullmatch(r"[0-9A-F]{5}", p) for p in ranges.asked) and all(ranges.padded),
                  f"the range service was asked {len(ranges.asked)} prefixes, padded: {set(ranges.padded)}")
            check(t("check.breaches.last", date="").split("{")[0].strip()[:12] in ui.find("#breach-last").text, f"the last check's time: {ui.find('#breach-last').text!r}")
            ui.shot("check-breach")
            ui.axe("check-breach")
        finally:
            ranges.stop()
        # LST-7: the rows' shields are the logins passbox check finds at risk (breached, weak, reused, http).
        ui.wait(lambda d: risky_rows(ui) == risky_titles(args, agent), "the rows' risk shields as passbox check finds them")
        check(risky_rows(ui), "no row is at risk, though GitHub's address is http")
        ui.shot("check")
        ui.axe("check")
        ui.click(t("ui.check.fixHTTPS"))
        ui.text_appears(t("ui.check.fixed", count=1))
        ui.wait(lambda d: t("check.kind.unsecured-website.title") not in d.find_element(By.TAG_NAME, "main").text, "the finding gone after the fix")
        # Two more logins at http addresses: "Switch all to https" asks, then switches both; they go again after.
        for title in ("Forum", "Wiki"):
            made = ui.api("add", {"category": "login", "changes": {"title": title, "websites": [f"http://{title.lower()}.example.org"], "fieldsFromCommandLine": [], "secretFields": [], "removeFields": []}})
            check(made == "saved", f"{title} was not added: {made}")
        ui.click(t("ui.check.again"))
        ui.press("#check-fix-all")
        ui.text_appears(t("ui.check.fixAll.ask", count=2))
        ui.axe("check-fix-all")
        ui.driver.find_element(By.CSS_SELECTOR, "dialog .button.primary").click()
        ui.text_appears(t("ui.check.fixed", count=2))
        ui.wait(lambda d: t("check.kind.unsecured-website.title") not in d.find_element(By.TAG_NAME, "main").text, "both switched")
        ui.wait(lambda d: risky_rows(ui) == risky_titles(args, agent), "the shields gone with the http addresses")
        for title in ("Forum", "Wiki"):
            check(ui.api("delete", {"item": title}) == "saved", f"{title} did not go to the trash")
            check(ui.api("trash-delete", {"item": title}) == "saved", f"{title} was not deleted for good")
        # A second vault: the navigation lists both; GitHub moves there and the vault's list shows it.
        check(ui.api("vault-create", {"name": "Work", "icon": "briefcase", "colour": "green"}) == "vault", "the vault Work was not made")
        ui.driver.refresh()
        ui.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".itemrow")) == 3, "the list after a reload")
        ui.text_appears("Work")
        # LST-9: a right click on a row opens its actions at the pointer; Escape closes them, the focus back on the list.
        ui.context_click(ui.find_xpath("//div[contains(@class,'itemrow')][.//span[@class='title' and text()='GitHub']]"))
        menu = ui.find("#menu[role=menu]")
        entries = [e.get_attribute("data-action") for e in menu.find_elements(By.CSS_SELECTOR, "[role=menuitem]")]
        check(entries == ["copy-password", "copy-username", "open-website", "favorite", "move", "copy-to", "history", "trash"], f"GitHub's menu offers {entries}")
        check(ui.driver.switch_to.active_element.get_attribute("data-action") == "copy-password", "the menu's first entry does not have the focus")
        ui.axe("row-menu")
        ui.shot("row-menu")
        ui.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        ui.wait(lambda d: not d.find_elements(By.ID, "menu") and d.switch_to.active_element.get_attribute("role") == "listbox", "the menu closed, the focus on the list")
        # From the keyboard: the arrows pick GitHub's row, Shift+F10 opens the menu, the arrows and Enter choose.
        ui.driver.switch_to.active_element.send_keys(Keys.HOME)
        # The row's title read in the page (the row may be repainted between finding it and reading it).
        active_title = lambda: ui.driver.execute_script("return document.querySelector('.itemrow.active .title')?.textContent")
        ui.wait(lambda d: active_title(), "the keyboard's row")
        for _ in range(8):
            if active_title() == "GitHub":
                break
            ui.driver.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
        check(active_title() == "GitHub", "the arrows never reached GitHub's row")
        ui.driver.switch_to.active_element.send_keys(Keys.SHIFT, Keys.F10)
        ui.find("#menu[role=menu]")
        for _ in range(3):
            ui.driver.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
        check(ui.driver.switch_to.active_element.get_attribute("data-action") == "favorite", "three steps down is not Add to favourites")
        ui.driver.switch_to.active_element.send_keys(Keys.ENTER)
        ui.wait(lambda d: d.find_elements(By.XPATH, "//div[contains(@class,'itemrow')][.//span[@class='title' and text()='GitHub']]//span[contains(concat(' ', @class, ' '), ' star ')]"), "GitHub a favourite from the menu")
        # The row's own actions (shown on hover and on the keyboard's row): the star takes it back, copy copies the password.
        ui.wait(lambda d: active_title() == "GitHub", "GitHub still the keyboard's row")
        ui.press(".itemrow.active [data-row-action='star']")
        ui.wait(lambda d: not d.find_elements(By.XPATH, "//div[contains(@class,'itemrow')][.//span[@class='title' and text()='GitHub']]//span[contains(concat(' ', @class, ' '), ' star ')]"), "GitHub no longer a favourite")
        read = subprocess.run([args.passbox, "--data", agent.data, "read", "passbox://local/GitHub/password", "--no-newline"], env=agent.env, capture_output=True, text=True, timeout=60)
        check(read.returncode == 0 and read.stdout, f"passbox read failed: {read.stderr}")
        github_password = read.stdout
        ui.find_xpath("//div[contains(@class,'itemrow')][.//span[@class='title' and text()='GitHub']]").click()
        ui.wait(lambda d: ui.heading() == "GitHub", "GitHub's detail")
        ui.press(".itemrow[aria-selected='true'] [data-row-action='copy']")
        ui.wait(lambda d: clipboard(display) == github_password, "the password copied by the row's action")
        # DET-1: the detail's ⋮ opens the same menu.
        ui.press("#item-more")
        ui.wait(lambda d: [e.get_attribute("data-action") for e in d.find_elements(By.CSS_SELECTOR, "#menu [role=menuitem]")] == entries, "the detail's menu")
        ui.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        ui.wait(lambda d: not d.find_elements(By.ID, "menu") and d.switch_to.active_element.get_attribute("id") == "item-more", "the focus back on ⋮")
        ui.type_into("#search", "GitHub")
        ui.wait(lambda d: [e.text for e in d.find_elements(By.CSS_SELECTOR, ".itemrow .title")] == ["GitHub"], "GitHub found")
        ui.press(".itemrow")
        ui.wait(lambda d: ui.heading() == "GitHub", "GitHub's detail")
        # Its website (https since the fix) opens in a new tab that cannot reach back to this page.
        site = ui.find("a[href='https://github.com']")
        check(site.get_attribute("target") == "_blank" and "noopener" in site.get_attribute("rel").split(), f"the website link: {site.get_attribute('rel')!r}")
        Select(ui.find("#move-vault")).select_by_visible_text("Work")
        ui.click(t("ui.item.moveTo"))
        ui.text_appears(t("ui.item.movedTo", title="GitHub", vault="Work"))
        ui.nav_to("//nav//button[span[normalize-space()='Work']]")
        ui.wait(lambda d: [e.text for e in d.find_elements(By.CSS_SELECTOR, ".itemrow .title")] == ["GitHub"], "GitHub alone in Work")
        ui.shot("vault")
        # Deleting the vault (LB-2) asks first with its count; Cancel changes nothing; then its item is in the trash.
        ui.find("#vault-delete").click()
        ui.text_appears(t("ui.vault.deleteAsk", count=1, trashed=0, home="Personal"))
        ui.axe("vault-delete")
        ui.click(t("ui.cancel"))
        ui.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog"), "the question closed")
        check(ui.driver.find_elements(By.XPATH, "//nav//button[span[normalize-space()='Work']]"), "a cancelled deletion took the vault")
        ui.find("#vault-delete").click()
        ui.find("dialog .button.danger").click()
        ui.text_appears(t("ui.vault.deleted", name="Work", count=1, home="Personal"))
        ui.wait(lambda d: not d.find_elements(By.XPATH, "//nav//button[span[normalize-space()='Work']]"), "the vault gone from the navigation")
        ui.click(t("ui.nav.trash"))
        ui.text_appears("GitHub")
        check(ui.api("trash-restore", {"item": "GitHub"}) == "saved", "GitHub did not come back from the trash")
        ui.driver.refresh()
        ui.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".itemrow")) == 3, "GitHub back in the list")
        # The other screens.
        for nav, name in [("ui.nav.generator", "generator"), ("ui.nav.trash", "trash"), ("ui.nav.settings", "settings"), ("ui.nav.shortcuts", "shortcuts")]:
            ui.click(t(nav))
            ui.wait(lambda d: ui.heading() == t({"generator": "ui.gen.title", "trash": "ui.trash.title", "settings": "ui.settings.title", "shortcuts": "ui.keys.title"}[name]), name)
            ui.shot(name)
            ui.axe(name)
            if name == "settings":
                # About (ACC-13, ERR-5): the version the agent runs and the preview notice.
                version = subprocess.run([args.passbox, "--version"], capture_output=True, text=True).stdout.split()[-1]
                check(ui.find("#about-version").text.startswith(t("ui.about.version", version=version, protocol=PROTOCOL_VERSION)), "the About section's version")
                check(t("ui.about.preview") in ui.find("#about").text, "the not-audited notice in About")
                # LST-13: the vault at a glance (3 logins, 2 with a code), a chip opening its filter.
                counts = {e.get_attribute("data-stat"): e.find_element(By.TAG_NAME, "strong").text for e in ui.driver.find_elements(By.CSS_SELECTOR, "#stat-chips .statchip")}
                check(counts == {"login": "3", "credit-card": "0", "secure-note": "0", "identity": "0", "codes": "2", "passkeys": "0", "shared": "0"}, f"the chips' counts: {counts}")
                ui.press('#stat-chips [data-stat="codes"]')
                ui.wait(lambda d: ui.find("#home-title").text == t("ui.nav.codes") and sorted(e.text for e in d.find_elements(By.CSS_SELECTOR, ".itemrow .title")) == ["GitHub", "Mail"], "the 2FA codes chip's listing")
                ui.click(t("ui.nav.settings"))
                ui.wait(lambda d: ui.heading() == t("ui.settings.title"), "settings again")
                # SEC-14 without an account: the catalogue refresh is off until asked for, and the switch shows
                # and changes what the CLI sees. Turned on here only with an address on this machine where
                # nothing listens (its download fails at once), so the test asks nothing of the internet.
                def catalogue_setting():
                    return subprocess.run([args.passbox, "--data", agent.data, "settings"], env=agent.env, capture_output=True, text=True, timeout=60).stdout
                check(not ui.find("#set-catalogue").is_selected() and "not refreshed on its own" in catalogue_setting(), "the catalogue refresh was on before it was asked for")
                nowhere = "http://127.0.0.1:9/breaches.json"
                check(subprocess.run([args.passbox, "--data", agent.data, "settings", "breach-catalogue", nowhere], env=agent.env, capture_output=True, timeout=60).returncode == 0, "the CLI did not set the catalogue address")
                ui.click(t("ui.nav.all"))
                ui.click(t("ui.nav.settings"))
                ui.wait(lambda d: d.find_element(By.ID, "set-catalogue").is_selected(), "the switch on, as the CLI set it")
                ui.press("label[for=set-catalogue]")
                ui.text_appears(t("ui.settings.saved"))
                ui.wait(lambda d: "not refreshed on its own" in catalogue_setting(), "the catalogue refresh off from the page", timeout=20)
        # "?" shows the shortcuts from the list too; "/" goes to the search.
        ui.click(t("ui.nav.all"))
        ui.find("main").click()
        ui.driver.find_element(By.TAG_NAME, "body").send_keys("?")
        ui.wait(lambda d: ui.heading() == t("ui.keys.title"), "the shortcuts after ?")
        security_checks(ui)
        # Lock and unlock.
        ui.click(t("ui.nav.lock"))
        ui.wait(lambda d: ui.heading() == t("ui.lock.title"), "the lock page")
        ui.shot("lock")
        ui.axe("lock")
        ui.unlock("wrong password")
        ui.wait(lambda d: d.find_element(By.CSS_SELECTOR, ".error").text not in ("", t("ui.lock.unlocking")), "the wrong-password error")
        error = ui.find(".error").text
        check(t("error.wrongPassword").lower() in error.lower() and "error." not in error, f"the wrong-password error is not worded: {error!r}")
        ui.type_into("#unlock-password", PASSWORD)
        ui.click(t("ui.lock.unlock"))
        ui.find("#search", timeout=20)
        ui.check_logs()
        # The light theme: every screen again.
        ui.setting("web-theme", "light")
        ui.driver.refresh()
        ui.find("#search")
        ui.wait(lambda d: d.execute_script("return document.documentElement.dataset.theme") == "light", "the light theme")
        ui.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".itemrow")) == 3, "the list")
        ui.shot("list")
        ui.axe("list (light)")
        ui.press(".itemrow")
        ui.wait(lambda d: ui.heading() != "", "an item")
        ui.shot("item")
        ui.axe("item (light)")
        for nav, name in [("ui.nav.check", "check"), ("ui.nav.generator", "generator"), ("ui.nav.trash", "trash"), ("ui.nav.settings", "settings"), ("ui.nav.shortcuts", "shortcuts")]:
            ui.click(t(nav))
            ui.find("main h1")
            time.sleep(0.2)
            ui.shot(name)
            ui.axe(name + " (light)")
        ui.click(t("ui.nav.new"))
        ui.find("#edit-title")
        ui.shot("editor")
        ui.axe("editor (light)")
        # The rendered check finds what it is for: Solar text on the light page, and white on a Solar fill.
        planted = ui.driver.execute_script("const a = document.createElement('span'); a.textContent = 'solar'; a.style.color = 'var(--accent)';"
                                           " const b = document.createElement('span'); b.textContent = 'white'; b.style.background = 'var(--accent)'; b.style.color = 'var(--on-dark)';"
                                           " document.querySelector('main').append(a, b); " + DESIGN_CHECK.replace("return faults;", "a.remove(); b.remove(); return faults;"))
        check(any("Solar text on a light page" in f for f in planted) and any("on Solar" in f for f in planted), f"the rendered design check missed planted faults: {planted}")
        ui.click(t("ui.cancel"))
        ui.click(t("ui.nav.lock"))
        ui.wait(lambda d: ui.heading() == t("ui.lock.title"), "the lock page")
        ui.shot("lock")
        ui.check_logs()
        # The dark list, too.
        ui.setting("web-theme", "dark")
        ui.unlock(PASSWORD)
        ui.find("#search", timeout=20)
        ui.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".itemrow")) == 3, "the list")
        ui.driver.refresh()
        ui.find("#search")
        ui.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".itemrow")) == 3, "the list")
        ui.shot("list")
        picking_checks(ui)
        vault_checks(ui)
        narrow_checks(ui)
        # PRV-1: a hidden tab is covered, and shown again as it was.
        ui.find("#search")
        hide = "Object.defineProperty(document, 'hidden', {configurable: true, get: () => arguments[0]}); document.dispatchEvent(new Event('visibilitychange'));"
        ui.driver.execute_script(hide, True)
        check(ui.driver.execute_script("return document.body.classList.contains('covered') && getComputedStyle(document.getElementById('root')).visibility === 'hidden'"), "the hidden page is not covered")
        ui.shot("covered")
        ui.driver.execute_script(hide, False)
        ui.wait(lambda d: ui.find("#search").is_displayed(), "the page shown again")
        check(not ui.driver.find_elements(By.ID, "unlock-password"), "hiding the tab locked with auto-lock at minutes")
        # Another client's change (here the CLI; a sync that brings another device's change is the same to the
        # page): the open list follows it within a poll or two, with no reload and no click.
        row = "//div[contains(@class,'itemrow')][.//span[@class='title' and text()='From the terminal']]"
        added = subprocess.run([args.passbox, "--data", agent.data, "add", "login", "--title", "From the terminal", "--username", "term"],
                               env=agent.env, capture_output=True, text=True, timeout=60)
        check(added.returncode == 0, f"passbox add failed: {added.stderr}")
        ui.wait(lambda d: d.find_elements(By.XPATH, row), "the login the CLI added, in the open list", timeout=20)
        removed = subprocess.run([args.passbox, "--data", agent.data, "rm", "From the terminal"], env=agent.env, capture_output=True, text=True, timeout=60)
        check(removed.returncode == 0, f"passbox rm failed: {removed.stderr}")
        ui.wait(lambda d: not d.find_elements(By.XPATH, row), "the login the CLI trashed, gone from the open list", timeout=20)
        ui.check_logs()
    finally:
        ui.quit()
        agent.stop()


def ui_heading(driver):
    found = driver.find_elements(By.CSS_SELECTOR, "main h1")
    return found[0].text if found else ""


def totp(key):
    return subprocess.run(["oathtool", "--totp", "-b", key.replace(" ", "")], capture_output=True, text=True).stdout.strip()


def account_flows(args, display, language):
    """An account on a real server: sign-up on the onboarding screen, the Secret Key once, the Emergency Kit
    (saved as a PDF, confirmed), devices, activity, two-factor sign-in turned on; a second browser signs in with
    the second factor (a recovery code); the account's lock page asks for the master password."""
    server = Server(args.passbox)
    agent = Agent(args.passbox, display, catalogue_seconds=1)
    ui = UI(args, agent, language)
    second_agent = second = None
    try:
        t = ui.t
        ui.click(t("ui.onboard.choice.signup"))
        ui.type_into("#signup-server", server.origin)
        ui.type_into("#signup-email", "web@example.org")
        ui.type_into("#signup-password", PASSWORD)
        ui.type_into("#signup-repeat", PASSWORD)
        check(ui.find("#signup-preview").text == t("ui.about.preview"), "the not-audited notice at sign-up")
        ui.shot("onboarding-signup")
        ui.axe("onboarding-signup")
        ui.click(t("ui.account.create"))
        key = ui.find("#secret-key", timeout=30).text.strip()
        check(re.fullmatch(r"P1-[0-9A-Z]{6}(-[0-9A-Z]{5,6}){5}", key), f"the Secret Key shown: {key!r}")
        ui.shot("secret-key")
        ui.axe("secret-key")
        # Straight to the Emergency Kit: the reminder stands in the list until it is confirmed.
        ui.click(t("ui.account.kit.open"))
        ui.find("#kit-password")
        ui.find("#kit-reminder")
        ui.shot("account-kit")
        ui.axe("account-kit")
        ui.type_into("#kit-password", "not the master password")
        ui.click(t("ui.account.kit.download"))
        ui.text_appears(t("error.wrongPassword")[:1].upper() + t("error.wrongPassword")[1:], timeout=30)
        ui.type_into("#kit-password", PASSWORD)
        ui.click(t("ui.account.kit.download"))
        ui.downloaded(".pdf", "the Emergency Kit saved as a PDF with the Secret Key in it", timeout=60,
                      whole=lambda pdf: subprocess.run(["pdftotext", "-layout", pdf, "-"], capture_output=True, text=True).stdout.count(key) == 1)
        ui.type_into("#kit-last-four", key[-4:].lower())
        ui.click(t("ui.account.kit.confirm"))
        ui.text_appears(t("ui.account.kit.confirmed"))
        ui.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "#kit-reminder"), "the reminder gone once the kit is confirmed")
        # SEC-18 in the page: this browser's notifications turned on in Settings (the browser's prompt answered
        # Allow), the page then out of focus, and what it shows recorded (the browser's own Notification still made).
        ui.allow_notifications()
        ui.click(t("ui.nav.settings"))
        ui.press("label[for=set-notify]")
        ui.text_appears(t("ui.settings.saved"))
        check(ui.find("#set-notify").is_selected(), "the browser's notifications were not turned on")
        ui.driver.execute_script("window.__shown = []; const Real = window.Notification;"
                                 " window.Notification = class extends Real { constructor(title, options) { super(title, options); window.__shown.push([title, options.body]); } };"
                                 " document.hasFocus = () => false;")
        # SEC-14, SEC-18: a breach published now, of the site of a login in the vault, reaches the agent through
        # the account's server (it asks every second here): the list says so until Security Check is opened.
        added = subprocess.run([args.passbox, "--data", agent.data, "add", "login", "--title", "Example", "--url", "https://www.example.org", "--password-stdin"],
                               input="a long and unbreached passphrase 42\n", env=agent.env, capture_output=True, text=True, timeout=60)
        check(added.returncode == 0, f"passbox add failed: {added.stderr}")
        server.publish_breach("ExampleLeak", "example.org")
        ui.wait(lambda d: d.find_elements(By.ID, "breach-alert"), "the new breach's notice", timeout=30)
        check(t("ui.breach.alert.one") in ui.find("#breach-alert").text, "the notice's words")
        shown = ui.wait(lambda d: d.execute_script("return window.__shown"), "the browser's notification")
        check(shown == [["Passbox", t("ui.breach.alert.one")]], f"the browser's notifications: {shown}")
        ui.shot("breach-alert")
        ui.axe("breach-alert")
        ui.press("#breach-alert button")
        ui.text_appears("ExampleLeak", timeout=30)
        ui.wait(lambda d: not d.find_elements(By.ID, "breach-alert"), "the notice gone once Security Check was opened")
        ui.click(t("ui.nav.account"))
        # Devices and activity.
        ui.click(t("ui.account.tab.devices"))
        ui.text_appears(t("ui.account.thisDevice"))
        ui.shot("account-devices")
        ui.axe("account-devices")
        # ACC-9, KIT-5: signing out offers the Emergency Kit first; taking it opens the kit and signs nothing out.
        ui.click(t("ui.account.signOutHere"))
        ui.find("dialog[open]")
        ui.click(t("ui.account.kitFirst"))
        ui.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]") and d.find_elements(By.ID, "kit-password"), "the kit instead of signing out")
        ui.click(t("ui.account.tab.devices"))
        ui.text_appears(t("ui.account.thisDevice"))
        ui.click(t("ui.account.tab.activity"))
        ui.text_appears(t("activity.signup"))
        ui.shot("account-activity")
        # Two-factor sign-in: the QR code drawn by the page, the setup key, a code of the app (oathtool).
        ui.click(t("ui.account.tab.twoFactor"))
        # Turning it on asks for the master password first (a fresh proof of the sign-in key).
        ui.type_into("#tf-enrol-password", PASSWORD)
        ui.click(t("ui.account.twoFactor.enable"))
        ui.find("svg.qr")
        setup_key = ui.find("#tf-setup-key").text.strip()
        ui.shot("account-two-factor")
        ui.axe("account-two-factor")
        ui.type_into("#tf-code", totp(setup_key))
        ui.click(t("ui.account.twoFactor.turnOn"))
        ui.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#recovery-codes li")) == 10, "ten recovery codes")
        recovery = ui.driver.find_elements(By.CSS_SELECTOR, "#recovery-codes li")[0].text.strip()
        ui.shot("account-recovery-codes")
        # ACC-11: the recovery code's status and its setup in the page (a wrong master password is refused
        # and makes nothing); the code is shown once, then the status says since when.
        ui.click(t("ui.account.tab.recovery"))
        check(ui.find("#recovery-status").text.strip() == t("ui.account.recovery.off"), "no recovery code at first")
        check(ui.find("#recovery-families").text.strip() == t("ui.account.recovery.noFamily"), "no family's owners can help")
        ui.axe("account-recovery")
        ui.type_into("#recovery-password", "not the master password")
        ui.click(t("ui.account.recovery.make"))
        ui.text_appears(t("error.wrongPassword")[:1].upper() + t("error.wrongPassword")[1:], timeout=30)
        check(not ui.driver.find_elements(By.ID, "recovery-code"), "no code after a wrong password")
        ui.type_into("#recovery-password", PASSWORD)
        ui.click(t("ui.account.recovery.make"))
        code = ui.find("#recovery-code", timeout=30).text.strip()
        check(re.fullmatch(r"R1-[0-9A-Z]{6}-[0-9A-Z]{6}-[0-9A-Z]{5}-[0-9A-Z]{5}-[0-9A-Z]{5}", code), f"the recovery code shown: {code!r}")
        ui.shot("account-recovery-code")
        ui.axe("account-recovery-code")
        ui.click(t("ui.account.done"))
        ui.wait(lambda d: d.find_elements(By.ID, "recovery-status") and d.find_element(By.ID, "recovery-status").text.strip().startswith(t("ui.account.recovery.on").split("{")[0].strip()), "the recovery code set up")
        check(ui.find("#recovery-make").text.strip() == t("ui.account.recovery.remake"), "a new code is offered next")
        ui.check_logs()

        # A second device signs in from its own browser: the second factor is asked for, a recovery code works.
        second_agent = Agent(args.passbox, display)
        second = UI(args, second_agent, language)
        second.click(t("ui.onboard.choice.signin"))
        second.type_into("#signin-server", server.origin)
        second.type_into("#signin-email", "WEB@example.org")
        second.type_into("#signin-password", PASSWORD)
        second.type_into("#signin-key", key.lower().replace("-", " "))
        second.shot("onboarding-signin")
        second.axe("onboarding-signin")
        second.click(t("ui.account.signIn"))
        second.find("#signin-code", timeout=30)
        second.text_appears(t("ui.account.needCode"))
        second.type_into("#signin-password", PASSWORD)
        second.type_into("#signin-key", key)
        second.type_into("#signin-code", recovery)
        second.click(t("ui.account.signIn"))
        second.find("#search", timeout=30)
        second.click(t("ui.nav.account"))
        second.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "table.keys tbody tr")) == 2, "both devices on the account page")
        # DEV-3: the master password changed in Settings, saying what it does; then only the new one opens.
        second.click(t("ui.nav.settings"))
        check(second.find("#master-hint").text.strip() == t("ui.settings.masterHint"), "the master password's sentence")
        second.type_into("#set-current", PASSWORD)
        second.type_into("#set-new", NEW_MASTER)
        second.type_into("#set-repeat", NEW_MASTER)
        second.shot("settings-master")
        second.click(t("ui.settings.change"))
        second.text_appears(t("ui.settings.masterChanged"), timeout=60)
        # The account's lock page asks for the master password, and it opens the vault again.
        second.click(t("ui.nav.lock"))
        # Quick unlock is offered first where PAM has the passbox service (make run installs it).
        second.wait(lambda d: ui_heading(d) == t("ui.lock.title"), "the account's lock page")
        if any(e.text.strip() == t("ui.lock.useMaster") for e in second.driver.find_elements(By.CSS_SELECTOR, "button")):
            second.click(t("ui.lock.useMaster"))
        second.find_xpath(f"//label[@for='unlock-password' and text()='{t('ui.lock.masterPassword')}']")
        second.shot("lock-account")
        second.unlock(NEW_MASTER)
        second.find("#search", timeout=30)
        # ACC-9: "Use a different account…" on the lock page signs this device out, with the Secret Key's last
        # four characters instead of the master password (wrong ones change nothing).
        second.click(t("ui.nav.lock"))
        second.wait(lambda d: ui_heading(d) == t("ui.lock.title"), "the account's lock page again")
        second.press("#other-account")
        second.type_into("#other-last-four", "ABC")
        second.shot("lock-other-account")
        second.axe("lock-other-account")
        second.press("dialog .button.danger")
        second.text_appears(t("error.kitMismatch")[1:], timeout=30)
        check(ui_heading(second.driver) == t("ui.lock.title"), "still locked and signed in after wrong characters")
        second.press("#other-account")
        second.type_into("#other-last-four", key[-4:].lower())
        second.press("dialog .button.danger")
        second.wait(lambda d: any(e.text.strip() == t("ui.onboard.choice.signin") for e in d.find_elements(By.CSS_SELECTOR, "button")), "the first screen after signing out", timeout=30)
        status = subprocess.run([args.passbox, "--data", second_agent.data, "status", "--json"], env=second_agent.env, capture_output=True, text=True, timeout=30)
        check('"account"' not in status.stdout, "no account on the device after signing out")
        second.check_logs()
    finally:
        for u in (second, ui):
            if u:
                u.quit()
        for a in (second_agent, agent):
            if a:
                a.stop()
        server.stop()


def sign_up_on(ui, server, email):
    """Onboarding: an account made on SERVER, its Secret Key passed over, the vault's screens."""
    t = ui.t
    ui.click(t("ui.onboard.choice.signup"))
    ui.type_into("#signup-server", server.origin)
    ui.type_into("#signup-email", email)
    ui.type_into("#signup-password", PASSWORD)
    ui.type_into("#signup-repeat", PASSWORD)
    ui.click(t("ui.account.create"))
    ui.find("#secret-key", timeout=30)
    ui.click(t("ui.account.continue"))
    ui.find("#search", timeout=30)


def link_flows(args, display, language):
    """Signing in on another device (issue 33) in two browsers with their own agents: the old device shows a code
    and its QR code, the new one types it, both show the same six digits, the old one says yes, and the new one
    signs in with only the master password. A third browser reads the address from a photo of the QR code: the
    server it names is asked about first, and a "No" on the old device ends it with nothing sent. axe on every
    screen."""
    server = Server(args.passbox)
    old_agent = Agent(args.passbox, display)
    old = UI(args, old_agent, language)
    agents, uis = [old_agent], [old]
    try:
        t = old.t
        sign_up_on(old, server, "ann@example.org")
        old.click(t("ui.nav.account"))
        old.click(t("ui.account.tab.link"))
        old.press("#link-open")
        code = old.find("#link-code", timeout=30).text.strip()
        check(re.fullmatch(r"[0-9A-Z]{4}(-[0-9A-Z]{4}){5}", code), f"the code shown: {code!r}")
        old.find("svg.qr")
        uri = old.find("#link-uri").text.strip()
        old.shot("link-show")
        old.axe("link-show")

        new_agent = Agent(args.passbox, display)
        agents.append(new_agent)
        new = UI(args, new_agent, language)
        uis.append(new)
        new.press("[data-choice='link']")
        new.type_into("#link-server", server.origin)
        new.type_into("#link-text", code.lower().replace("-", " "))
        new.type_into("#link-name", "Laptop")
        new.shot("link-new")
        new.axe("link-new")
        entered = time.time()
        new.click(t("ui.link.go"))
        shown = new.find("#link-digits", timeout=30).text.strip()
        waited = time.time() - entered
        asked = old.find("#link-digits", timeout=30).text.strip()
        check(re.fullmatch(r"\d{3} \d{3}", shown) and shown == asked, f"the six digits: {shown!r} here, {asked!r} on the old device")
        old.text_appears("Laptop")
        old.shot("link-asking")
        old.axe("link-asking")
        confirmed = time.time()
        old.press("#link-yes")
        new.find("#link-password", timeout=30)
        waited += time.time() - confirmed
        old.find("#link-done", timeout=30)
        new.text_appears("ann@example.org")
        new.axe("link-password")
        new.type_into("#link-password", PASSWORD)
        typed = time.time()
        new.click(t("ui.account.signIn"))
        new.find("#search", timeout=30)
        waited += time.time() - typed
        # The time the two pages and agents took, without the person's steps (comparing digits, typing).
        print(f"device link in the web UI ({language}): {waited:.1f} s from Continue to the vault open, the person's steps left out (target: under 5 s)", flush=True)
        new.click(t("ui.nav.account"))
        new.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "table.keys tbody tr")) == 2, "both devices on the new device's account page", timeout=30)
        # Each device's record, signed with the account's key: the old one made the account, the new one was let in by it.
        new.text_appears(t("device.via.link", name="").strip())
        new.text_appears(t("device.via.signup"))
        new.check_logs()

        # A pasted address: its server asked about first; the old device says no, and nothing is sent.
        old.click(t("ui.account.tab.devices"))
        old.click(t("ui.account.tab.link"))
        old.press("#link-open")
        uri = old.find("#link-uri", timeout=30).text.strip()
        third_agent = Agent(args.passbox, display)
        agents.append(third_agent)
        third = UI(args, third_agent, language)
        uis.append(third)
        third.press("[data-choice='link']")
        # A photo of the QR code (qrencode's PNG of the address): the page reads it into the field.
        picture = os.path.join(third.downloads, "link-qr.png")
        subprocess.run(["qrencode", "-o", picture, "-s", "6", uri], check=True)
        third.find("#link-photo").send_keys(picture)
        third.wait(lambda d: d.find_element(By.ID, "link-text").get_attribute("value") == uri, "the address read from the photo of the QR code")
        third.click(t("ui.link.go"))
        third.text_appears(server.origin)
        third.axe("link-server")
        third.click(t("ui.link.server.yes"))
        third.find("#link-digits", timeout=30)
        old.press("#link-no")
        third.text_appears(t("error.linkCancelled")[:1].upper() + t("error.linkCancelled")[1:], timeout=30)
        check(not third.driver.find_elements(By.CSS_SELECTOR, "#link-password"), "no password asked after a no")
        old.check_logs()
    finally:
        for u in reversed(uis):
            u.quit()
        for a in reversed(agents):
            a.stop()
        server.stop()


def sharing_flows(args, display, language):
    """Family & Team in two browsers (two Chromium profiles, each with its own agent and account on one real
    server): the own security code, a family made, an invitation link pasted inside a mail, its preview, Join,
    the owner comparing the member's code (the same 60 digits on both screens) and confirming it, the family
    vault reaching the member's browser after a sync, who can see it, and the member removed again (the keys
    rotate). axe on every screen."""
    server = Server(args.passbox)
    owner_agent = Agent(args.passbox, display)
    owner = UI(args, owner_agent, language)
    member_agent = member = None
    try:
        t = owner.t

        def sign_up(ui, email):
            sign_up_on(ui, server, email)

        def sign(ui):
            """The master password dialog of a signed change."""
            ui.type_into("#org-password", PASSWORD)
            ui.click(t("ui.org.go"))

        def groups(ui, css):
            return [e.text.strip() for e in ui.driver.find_elements(By.CSS_SELECTOR, css + " li")]

        sign_up(owner, "owner@example.org")
        member_agent = Agent(args.passbox, display)
        member = UI(args, member_agent, language)
        sign_up(member, "member@example.org")

        # The owner's page: the own code in twelve groups of five digits, no family yet; then a family.
        owner.click(t("ui.nav.sharing"))
        owner.find("#own-code")
        check(len(groups(owner, "#own-code")) == 12 and all(re.fullmatch(r"\d{5}", g) for g in groups(owner, "#own-code")), f"the own code: {groups(owner, '#own-code')}")
        owner.text_appears(t("ui.org.none"))
        owner.click(t("ui.org.checkServer"))
        owner.text_appears(t("sharing.serverMatches"), timeout=30)
        owner.shot("sharing")
        owner.axe("sharing")
        owner.type_into("#org-name", "Doe family")
        owner.type_into("#org-vault", "Doe vault")
        owner.click(t("ui.org.create.go"))
        owner.find("#org-password")
        owner.axe("sharing-password")
        sign(owner)
        owner.wait(lambda d: ui_heading(d) == "Doe family", "the family's page", timeout=30)
        owner.find("#org-vaults").find_element(By.XPATH, ".//h3[text()='Doe vault']")

        # An invitation: the link shown once, to pass on over a trusted channel.
        owner.type_into("#invite-email", "member@example.org")
        owner.click(t("ui.org.invite.go"))
        link = owner.find("#invite-link", timeout=30).text.strip()
        check(re.fullmatch(re.escape(server.origin) + r"/invite/[A-Za-z0-9_-]+#org=[A-Za-z0-9_-]+", link), f"the invitation link: {link!r}")
        owner.shot("sharing-org")
        owner.axe("sharing-org")

        # The member pastes the whole mail; the preview names the family, the owner and the role; Join.
        member.click(t("ui.nav.sharing"))
        member.type_into("#join-link", f"Hello,\njoin us: {link}\nSee you")
        member.click(t("ui.org.join.preview"))
        member.find("#join-go", timeout=30)
        member.text_appears("owner@example.org")
        member.shot("sharing-join")
        member.axe("sharing-join")
        member.press("#join-go")
        member.find("#joined-code", timeout=30)
        code = groups(member, "#joined-code")
        check(len(code) == 12, f"the member's code after joining: {code}")

        # The owner sees the member waiting, with the very same code; the codes match, confirm.
        owner.press("#org-back")
        owner.press(".org-open")
        owner.find("#org-waiting", timeout=30)
        check(groups(owner, "#org-waiting ol.seccode") == code, "the code the owner sees is the one the member's screen shows")
        owner.shot("sharing-confirm")
        owner.axe("sharing-confirm")
        owner.click(t("ui.org.codesMatch"))
        sign(owner)
        owner.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "#org-waiting") and "member@example.org" in d.find_element(By.ID, "org-members").text,
                   "the member confirmed", timeout=30)
        owner.wait(lambda d: t("org.trust.compared") in d.find_element(By.ID, "org-members").text, "the member's keys marked as compared")
        owner.wait(lambda d: "member@example.org" in d.find_element(By.ID, "org-vaults").text, "the member among who can see the family vault")

        # The family vault reaches the member's browser with the next sync; the member's page has no manager's forms.
        member.click(t("ui.sync.now"))
        member.wait(lambda d: any(e.text.strip().startswith("Doe vault") for e in d.find_elements(By.CSS_SELECTOR, "nav .nav-item")), "the family vault in the member's navigation", timeout=30)
        member.click(t("ui.nav.sharing"))
        member.press(".org-open")
        member.wait(lambda d: ui_heading(d) == "Doe family", "the family's page for the member", timeout=30)
        member.find("#org-leave")
        check(not member.driver.find_elements(By.CSS_SELECTOR, "#org-invite"), "a member gets no invitation form")
        member.shot("sharing-member")
        member.axe("sharing-member")
        member.check_logs()

        # A login moved into the family vault says who sees it there, and its details say so too (VLT-7, SHR-6).
        check(owner.api("add", {"category": "login", "changes": {"title": "Streaming", "username": "doe", "fieldsFromCommandLine": [], "secretFields": [], "removeFields": []}}) == "saved", "the login was not added")
        owner.driver.refresh()
        owner.wait(lambda d: [e.text for e in d.find_elements(By.CSS_SELECTOR, ".itemrow .title")] == ["Streaming"], "the login in the list")
        owner.press(".itemrow")
        owner.wait(lambda d: owner.heading() == "Streaming", "the login's detail")
        Select(owner.find("#move-vault")).select_by_visible_text("Doe vault")
        owner.click(t("ui.item.moveTo"))
        owner.text_appears(t("ui.item.movedTo", title="Streaming", vault="Doe vault"))
        owner.wait(lambda d: "member@example.org" in d.find_element(By.ID, "toasts").text, "who sees the login now, said on moving it")
        owner.wait(lambda d: "member@example.org" in d.find_element(By.ID, "seen-by").text, "who can see it, in the details")
        # LST-13: the Shared chip counts it and lists the shared items only (a login kept in the own vault is not).
        check(owner.api("add", {"category": "login", "changes": {"title": "Private", "username": "doe", "fieldsFromCommandLine": [], "secretFields": [], "removeFields": []}}) == "saved", "the private login was not added")
        shared_row = "//div[contains(@class,'itemrow')][.//span[@class='title' and text()='Streaming']]//span[contains(@class, 'shared')]"
        owner.wait(lambda d: sorted(e.text for e in d.find_elements(By.CSS_SELECTOR, ".itemrow .title")) == ["Private", "Streaming"] and d.find_elements(By.XPATH, shared_row),
                   "both logins in the list, Streaming with its family's badge", timeout=30)
        owner.click(t("ui.nav.settings"))
        owner.wait(lambda d: d.find_element(By.CSS_SELECTOR, '#stat-chips [data-stat="shared"] strong').text == "1", "the Shared chip's count", timeout=30)
        owner.press('#stat-chips [data-stat="shared"]')
        owner.wait(lambda d: owner.find("#home-title").text == t("ui.nav.shared") and [e.text for e in d.find_elements(By.CSS_SELECTOR, ".itemrow .title")] == ["Streaming"], "the Shared chip's listing")
        owner.click(t("ui.nav.sharing"))
        owner.press(".org-open")
        owner.wait(lambda d: ui_heading(d) == "Doe family", "the family's page again", timeout=30)

        # Removing the member: asked with what removal cannot undo; the keys rotate.
        owner.driver.find_element(By.XPATH, "//table[@id='org-members']//tr[td[1][text()='member@example.org']]//button[contains(@class, 'danger')]").click()
        owner.find("#org-password")
        owner.text_appears("member@example.org")
        sign(owner)
        owner.wait(lambda d: "member@example.org" not in d.find_element(By.ID, "org-members").text, "the member removed", timeout=30)

        # A contact's keys change (here: this device's pin for the member is swapped for other valid keys, as a
        # server answering a first lookup with someone else's would leave it): the banner says so, and the page
        # shows both codes; accepting after comparing makes the new keys the pin and the warning goes.
        check(owner.api("security-code", {"email": "owner@example.org", "check": False, "acceptNew": False}) == "securityCode", "the own contact was not looked up")
        # Under the file's lock, as the agent's sync (still running after the removal) writes it under it too.
        path = os.path.join(owner_agent.data, "sharing.json")
        with open(os.path.join(owner_agent.data, "sharing.lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            with open(path) as f:
                kept = json.load(f)
            own = next(c for c in kept["contacts"] if c["email"] == "owner@example.org")
            for c in kept["contacts"]:
                if c["email"] == "member@example.org":
                    c.update(accountID=own["accountID"], bundle=own["bundle"], compared=False)
            with open(path, "w") as f:
                json.dump(kept, f)
        check(owner.api("security-code", {"email": "member@example.org", "check": False, "acceptNew": False}) == "securityCode", "the member was not looked up")
        banner = owner.find("#sharing-banner", timeout=30)
        check(t("ui.sharing.banner", count=1) in banner.text, f"the banner: {banner.text!r}")
        owner.press("#sharing-banner button")
        owner.find("#sharing-warnings")
        owner.text_appears(t("sharing.warning.keyChanged", subject="member@example.org"))
        owner.press("#compare-new")
        owner.find("#new-code", timeout=30)
        owner.shot("sharing-key-changed")
        owner.axe("sharing-key-changed")
        owner.press("#accept-new")
        owner.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "#sharing-warnings") and d.find_elements(By.ID, "own-code"), "the warning gone once the new keys are accepted", timeout=30)
        owner.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "#sharing-banner"), "the banner gone")
        owner.check_logs()
    finally:
        for u in (member, owner):
            if u:
                u.quit()
        for a in (member_agent, owner_agent):
            if a:
                a.stop()
        server.stop()


WORDS = "legal winner thank year wave sausage worth useful legal winner thank yellow"
DURESS = "a duress password nobody guesses"
BACKUP = "a backup password of its own"


def coercion_flows(args, display, language):
    """Killphrases, hidden items, an item with its own password, a duress vault, erasing and Delete All Data."""
    agent = Agent(args.passbox, display)
    ui = UI(args, agent, language)
    try:
        t = ui.t
        ui.create_vault()

        def titles(d):
            return [e.text for e in d.find_elements(By.CSS_SELECTOR, ".itemrow .title")]

        def new_item(title, category="login", phrase=None, field=None, item_password=None, shot=None):
            ui.click(t("ui.nav.new"))
            Select(ui.find("#edit-category")).select_by_value(category)
            ui.type_into("#edit-title", title)
            if field:
                ui.type_into(field[0], field[1])
            if phrase:
                ui.find_xpath(f"//summary[normalize-space()='{t('ui.edit.phrases')}']").click()
                ui.type_into(phrase[0], phrase[1])
            if item_password:
                ui.type_into("#edit-item-password", item_password)
            if shot:
                ui.shot(shot)
                ui.axe(shot)
            ui.click(t("ui.save"))
            ui.wait(lambda d: ui.heading() == title, f"the saved item {title}")

        def form(heading):
            return ui.find_xpath(f"//form[h2[normalize-space()='{heading}']]")

        def fill(heading, *values):
            f = form(heading)
            for e, v in zip([e for e in f.find_elements(By.CSS_SELECTOR, "input[type=password]")], values):
                e.clear()
                e.send_keys(v)
            f.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

        new_item("Everyday login")
        new_item("Source contact", phrase=("#edit-killphrase", "Grüne Wiese"))
        new_item("Safe house", phrase=("#edit-passphrase", "under the bridge"), shot="editor-phrases")
        ui.wait(lambda d: titles(d) == ["Everyday login", "Source contact"], "the list without the hidden item")
        ui.type_into("#search", "house")
        ui.wait(lambda d: ui.find("#search").get_attribute("value") == "house" and titles(d) == [], "a search that does not show the hidden item")
        ui.type_into("#search", "  Under the Bridge")
        ui.wait(lambda d: titles(d) == ["Safe house"], "the hidden item shown by its passphrase")
        ui.shot("search-passphrase")
        # The killphrase, typed key by key: the item goes, and the search shows what a search with no match shows.
        ui.type_into("#search", "grune wiese")
        ui.wait(lambda d: titles(d) == [] and t("ui.list.none") in d.find_element(By.TAG_NAME, "body").text, "the killphrase answered as no match")
        login = f"//nav//button[span[normalize-space()='{t('ui.category.login')}']]"
        ui.wait(lambda d: d.find_element(By.XPATH, login).text.split()[-1] == "1", "the counts without the killed item")
        check(ui.find("main .empty").text == t("ui.item.none"), "the hidden item stayed open after another search")
        ui.find("#search").send_keys(Keys.ESCAPE)
        ui.wait(lambda d: titles(d) == ["Everyday login"], "the list without the killed item")

        # A recovery phrase is saved only with a password of its own, and opens for one look.
        new_item("Cold wallet", category="recovery-phrase", field=("#edit-field-phrase", WORDS), item_password="wallet password")
        ui.text_appears(t("ui.sealed.locked"))
        ui.shot("item-sealed")
        ui.axe("item-sealed")
        ui.type_into(".sealed input[type=password]", "wallet password")
        ui.click(t("ui.sealed.open"))
        masked = ui.find(".sealed .value.nocopy")
        check(WORDS not in ui.driver.find_element(By.TAG_NAME, "body").text, "the words showed before a click")
        check(not ui.driver.find_elements(By.CSS_SELECTOR, ".sealed [data-copy]"), "a recovery phrase offered a copy button")
        masked.click()
        ui.text_appears(WORDS)
        ui.shot("item-sealed-open")
        ui.click(t("ui.sealed.close"))
        ui.wait(lambda d: WORDS not in d.find_element(By.TAG_NAME, "body").text, "the words locked again")

        # Settings: a duress password, and erasing after ten wrong passwords.
        ui.click(t("ui.nav.settings"))
        fill(t("ui.duress.title"), "not the password", DURESS, DURESS)
        ui.wait(lambda d: t("error.wrongPassword").lower() in form(t("ui.duress.title")).text.lower(), "a wrong current password said")
        fill(t("ui.duress.title"), PASSWORD, DURESS, DURESS)
        ui.text_appears(t("ui.duress.done"))
        ui.find("#co-erase").click()
        fill(t("ui.erase.title"), PASSWORD)
        ui.text_appears(t("ui.erase.on"))
        ui.shot("settings-coercion")
        ui.axe("settings-coercion")
        # The duress password opens a vault of its own, which looks like any vault.
        ui.click(t("ui.nav.lock"))
        ui.wait(lambda d: ui.heading() == t("ui.lock.title"), "the lock page")
        ui.unlock(DURESS)
        ui.find("#search", timeout=20)
        ui.wait(lambda d: titles(d) == [] and t("ui.list.empty") in d.find_element(By.TAG_NAME, "body").text, "the empty duress vault")
        ui.shot("duress-vault")
        # Delete All Data from the duress vault: every vault goes, and the page starts again.
        ui.click(t("ui.nav.settings"))
        fill(t("ui.wipe.title"), DURESS)
        ui.find("dialog .button.danger").click()
        ui.find("#new-password", timeout=20)
        check(not os.path.exists(os.path.join(agent.data, "vault.pbx")), "the vault file is still there")
        ui.check_logs()
    finally:
        ui.quit()
        agent.stop()

def backup_flows(args, display, language):
    """The backup password, a backup file and a PDF saved through the browser, a restore from the PDF's pages
    (rendered by pdftoppm, as JPEG) and from the file, and a transfer read back from screenshots of its codes."""
    agent = Agent(args.passbox, display)
    ui = UI(args, agent, language)
    try:
        t = ui.t
        restored_name = {"en": "Personal (restored)", "de": "Personal (wiederhergestellt)"}[language]
        ui.create_vault()
        ui.click(t("ui.nav.new"))
        ui.type_into("#edit-title", "Backed-up login")
        ui.click(t("ui.save"))
        ui.wait(lambda d: ui.heading() == "Backed-up login", "the saved item")
        ui.click(t("ui.nav.check"))
        ui.wait(lambda d: d.find_element(By.ID, "check-backup").text == t("ui.check.backup.noPassword"), "the Security Check's backup reminder")

        def backups():
            return ui.find("section.backups")

        def form(heading):
            return ui.find_xpath(f"//section[contains(@class,'backups')]//form[h3[normalize-space()='{heading}']]")

        ui.click(t("ui.nav.settings"))
        ui.wait(lambda d: t("ui.backup.never") in backups().text, "no backup yet")
        f = form(t("ui.backup.set"))
        for e, v in zip(f.find_elements(By.CSS_SELECTOR, "input[type=password]"), [PASSWORD, BACKUP, BACKUP]):
            e.send_keys(v)
        f.find_element(By.CSS_SELECTOR, "input[type=text]").send_keys("the long one")
        f.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        ui.wait(lambda d: d.find_elements(By.XPATH, f"//form[h3[normalize-space()='{t('ui.backup.change')}']]"), "the backup password set", timeout=30)
        ui.shot("settings-backups")
        ui.axe("settings-backups")

        # The page names no file of the agent's: a path in a backup request is refused.
        check(ui.api("backup-make", {"format": "file", "path": os.path.join(agent.data, "from-the-page.pbbackup")}) == "failure", "a path from the page was taken")
        check(not os.path.exists(os.path.join(agent.data, "from-the-page.pbbackup")), "the page wrote a file of the agent's")
        # Save: a file and a PDF land in the browser's downloads; the last backup is shown.
        ui.find("#bk-file").click()
        backup_file = ui.downloaded(".pbbackup", "the backup file saved")
        ui.find("#bk-pdf").click()
        pdf = ui.downloaded(".pdf", "the PDF saved whole", timeout=60,
                            whole=lambda path: "the long one" in subprocess.run(["pdftotext", path, "-"], capture_output=True, text=True).stdout)
        ui.wait(lambda d: d.find_element(By.ID, "bk-last").text.startswith(t("ui.backup.last", date="").strip()), "the last backup shown")
        text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True).stdout
        check("the long one" in text and "Backed-up login" not in text, "the PDF's plain text: " + text[:200])
        pages = tempfile.mkdtemp(prefix="passbox-web-pages-")
        # As a scanner saves them: JPEG (pdftoppm's PNG compression cost about a CPU second a page).
        subprocess.run(["pdftoppm", "-r", "300", "-gray", "-jpeg", "-jpegopt", "quality=90", pdf, os.path.join(pages, "page")], check=True)

        def restore(paths, mode="new"):
            f = form(t("ui.backup.restore"))
            f.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys("\n".join(paths))
            Select(f.find_element(By.ID, "bk-mode")).select_by_value(mode)
            f.find_element(By.CSS_SELECTOR, "input[type=password]").send_keys(BACKUP)
            f.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

        restore(sorted(os.path.join(pages, n) for n in os.listdir(pages))[::-1])
        # The agent reads the codes of every 300-dpi page: over 30 s on a busy machine (CI once, "Working…").
        ui.text_appears(t("ui.backup.restored", count=1, vaults=restored_name), timeout=120)
        ui.click(t("ui.nav.settings"))
        restore([backup_file], mode="replace")
        ui.find("dialog .button.danger").click()
        ui.text_appears(t("ui.backup.replaced", count=1), timeout=60)

        # A transfer: codes one after another, captured from the screen and restored from the captures.
        ui.click(t("ui.nav.settings"))
        ui.find("#bk-transfer").click()
        first = ui.find("#bk-code-number").text
        total = int(first.split()[-1])
        # The codes in the middle of the window, whole and clear of the toasts at its bottom.
        ui.driver.execute_script("document.querySelector('.transfer').scrollIntoView({block: 'center'})")
        shots = {}
        deadline = time.time() + 6 * total + 10

        def readable(path):
            with open(path, "rb") as f:
                return ui.api("read-qr", {"image": base64.b64encode(f.read()).decode()}) == "resolved"

        while len(shots) < total and time.time() < deadline:
            try:
                caption = ui.find("#bk-code-number").text
                number = caption.split()[1]
                if number not in shots:
                    path = os.path.join(pages, f"transfer-{number}.png")
                    ui.find(".transfer svg.qr").screenshot(path)
                    # A capture taken as the next code replaced this one is dropped; the code comes round again.
                    if ui.find("#bk-code-number").text == caption and readable(path):
                        shots[number] = path
            except StaleElementReferenceException:
                pass  # the code was replaced between finding it and capturing it: it comes round again
            time.sleep(0.3)
        check(len(shots) == total, f"captured {len(shots)} of {total} transfer codes")
        ui.shot("transfer")
        ui.press("#bk-stop")
        ui.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, ".transfer svg"), "the codes gone when stopped")
        restore(list(shots.values()))
        ui.text_appears(t("ui.backup.restored", count=1, vaults=restored_name), timeout=30)
        shutil.rmtree(pages, ignore_errors=True)
        ui.check_logs()
    finally:
        ui.quit()
        agent.stop()


def attachment_flows(args, display, language):
    """A document's files (LB-6 to LB-9): an upload, its tile with a preview, the full-size viewer (wheel zoom,
    double-click to 3x and back, drag to pan, zoom below fit snaps back), the tile's menu by right-click, a
    download that warns first and holds the same bytes, and a delete that asks first."""
    agent = Agent(args.passbox, display)
    ui = UI(args, agent, language)
    try:
        t = ui.t
        ui.create_vault()
        check(ui.api("add", {"category": "document", "changes": {"title": "Passport", "fieldsFromCommandLine": [], "secretFields": [], "removeFields": []}}) == "saved", "the document was not made")
        # The page names no file of the agent's: a path is refused.
        check(ui.api("attach", {"item": "Passport", "path": QR_IMAGE}) == "failure", "a path from the page was taken")
        ui.driver.refresh()
        ui.find("#search")
        ui.find_xpath("//*[normalize-space()='Passport']").click()
        ui.wait(lambda d: ui.heading() == "Passport", "the document")
        ui.text_appears(t("ui.attach.none"))
        ui.driver.find_element(By.ID, "attach-file").send_keys(os.path.realpath(QR_IMAGE))
        tile = ui.find(".tile .preview img", timeout=20)
        ui.wait(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", tile), "the preview drawn")
        check("totp.png" in ui.find(".tile .name").text, "the tile's name")
        blobs = os.path.join(agent.data, "blobs")
        check([n for n in os.listdir(blobs) if len(n) == 32], "no blob beside the vault")
        ui.shot("attachments")
        ui.axe("attachments")

        # The viewer: fitted, the wheel zooms, a double-click toggles 3x and back, a drag pans, below fit snaps back.
        ui.find(".tilebutton").click()
        img = ui.find("#viewer-image")
        scale = lambda: float(img.get_attribute("data-scale"))
        check(scale() == 1, "the viewer opens fitted")
        stage = ui.find("dialog.viewer .stage")
        ui.driver.execute_script("arguments[0].dispatchEvent(new WheelEvent('wheel', {deltaY: -100, clientX: 500, clientY: 400, bubbles: true, cancelable: true}))", stage)
        ui.wait(lambda d: scale() > 1, "the wheel zooms in")
        ui.driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('dblclick', {clientX: 500, clientY: 400, bubbles: true}))", stage)
        ui.wait(lambda d: scale() == 1, "a double-click goes back to fit")
        ui.driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('dblclick', {clientX: 500, clientY: 400, bubbles: true}))", stage)
        ui.wait(lambda d: scale() == 3, "a double-click zooms to 3x")
        before = img.value_of_css_property("transform")
        ui.drag(stage, 60, 40)
        ui.wait(lambda d: img.value_of_css_property("transform") != before, "a drag pans")
        for _ in range(8):
            ui.driver.execute_script("arguments[0].dispatchEvent(new WheelEvent('wheel', {deltaY: 100, clientX: 500, clientY: 400, bubbles: true, cancelable: true}))", stage)
        ui.wait(lambda d: scale() == 1, "zooming below fit snaps back")
        ui.shot("viewer")
        ui.find("dialog.viewer .actions button").click()
        ui.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog.viewer"), "the viewer closed")

        # The menu by right-click; a download warns, then holds the same bytes.
        ui.context_click(ui.find(".tilebutton"))
        ui.find(".tilemenu")
        ui.find_xpath(f"//div[contains(@class,'tilemenu')]/button[normalize-space()='{t('ui.attach.download')}']").click()
        ui.text_appears(t("ui.attach.leaves", name="totp.png"))
        ui.click(t("ui.attach.downloadConfirm"))
        saved = os.path.join(ui.downloads, "totp.png")
        ui.wait(lambda d: os.path.exists(saved) and open(saved, "rb").read() == open(QR_IMAGE, "rb").read(), "the download with the same bytes", timeout=20)

        # A file over one request's size goes up in parts and arrives whole.
        big = os.path.join(ui.downloads, "..", os.path.basename(ui.downloads) + "-scans.bin")
        big = os.path.realpath(big)
        with open(big, "wb") as f:
            f.write(os.urandom(5 * 1048576 + 123))
        ui.driver.find_element(By.ID, "attach-file").send_keys(big)
        ui.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".tile")) == 2, "the large file's tile", timeout=60)
        check(t("ui.attach.mib", size="5.0") in ui.find_xpath("//li[contains(@class,'tile')][2]").text, "the large file's size")
        os.remove(big)

        # Delete asks first, then the tile goes.
        ui.context_click(ui.find(".tilebutton"))
        ui.find_xpath(f"//div[contains(@class,'tilemenu')]/button[normalize-space()='{t('ui.attach.delete')}']").click()
        ui.text_appears(t("ui.attach.deleteAsk", name="totp.png"))
        ui.find("dialog .button.danger").click()
        ui.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".tile")) == 1, "the tile gone")

        # An import in the page: a KeePass file uploaded (never a path), a preview, then one save; its
        # attachment comes along, encrypted.
        ui.click(t("ui.nav.settings"))
        ui.find("#im-file").send_keys(os.path.realpath(KDBX_FIXTURE))
        ui.type_into("#im-password", "fixture-password")
        ui.driver.execute_script("arguments[0].click()", ui.find("#im-preview-button"))
        ui.wait(lambda d: t("ui.import.files", count=1) in d.find_element(By.ID, "im-preview").text, "the import's preview", timeout=30)
        check(ui.find("#im-confirm").text == t("ui.import.confirm", count=4), "the import's button")
        ui.shot("import")
        ui.axe("import")
        ui.driver.execute_script("arguments[0].click()", ui.find("#im-confirm"))
        ui.wait(lambda d: t("ui.import.done", count=4) in d.find_element(By.ID, "im-preview").text, "the import done", timeout=30)
        # What cannot come over is worded, not shown as a key: an otpauth list with a line that does not read.
        ui.find("#im-file").send_keys(os.path.realpath(os.path.join(os.path.dirname(KDBX_FIXTURE), "otpauth-list.txt")))
        ui.driver.execute_script("arguments[0].click()", ui.find("#im-preview-button"))
        ui.wait(lambda d: t("import.notBrought.invalidCode") in d.find_element(By.ID, "im-preview").text, "the reason worded", timeout=30)
        ui.find_xpath("//*[contains(@class,'itemrow')]//*[normalize-space()='GitHub']").click()
        ui.wait(lambda d: ui.heading() == "GitHub", "the imported item")
        check("readme.txt" in ui.find(".tile .name").text, "the imported attachment")

        # A KeePassXC passkey comes in with an import (issue 35): the Passkeys chip lists its login, the item's card
        # shows the site and the account (never the key), and Delete asks first, then takes it off.
        ui.click(t("ui.nav.settings"))
        ui.find("#im-file").send_keys(os.path.realpath(os.path.join(os.path.dirname(KDBX_FIXTURE), "pykeepass-passkey.kdbx")))
        ui.type_into("#im-password", "fixture-password")
        ui.driver.execute_script("arguments[0].click()", ui.find("#im-preview-button"))
        ui.wait(lambda d: d.find_element(By.ID, "im-confirm").text == t("ui.import.confirm", count=1), "the passkey import's preview", timeout=30)
        ui.driver.execute_script("arguments[0].click()", ui.find("#im-confirm"))
        ui.wait(lambda d: t("ui.import.done", count=1) in d.find_element(By.ID, "im-preview").text, "the passkey import done", timeout=30)
        ui.click(t("ui.nav.all"))
        ui.click(t("ui.nav.settings"))
        ui.wait(lambda d: d.find_element(By.CSS_SELECTOR, '#stat-chips [data-stat="passkeys"] strong').text == "1", "the Passkeys chip's count")
        ui.press('#stat-chips [data-stat="passkeys"]')
        ui.wait(lambda d: ui.find("#home-title").text == t("ui.nav.passkeys") and [e.text for e in d.find_elements(By.CSS_SELECTOR, ".itemrow .title")] == ["Passkey Bank"], "the Passkeys listing")
        ui.press(".itemrow")
        ui.wait(lambda d: ui.heading() == "Passkey Bank", "the login with the passkey")
        card = ui.find("section.passkeys")
        check(card.find_element(By.ID, "passkeys-title").text == t("ui.item.passkeys") and card.find_element(By.CSS_SELECTOR, ".passkey .label").text == "bank.example"
              and card.find_element(By.CSS_SELECTOR, ".passkey .value").text == "ada" and "PRIVATE" not in card.text, f"the passkeys card: {card.text!r}")
        ui.shot("passkey")
        ui.axe("passkey")
        ui.driver.execute_script("arguments[0].click()", ui.find(".passkey .button.danger"))
        ui.text_appears(t("ui.item.passkeyDeleteTitle", site="bank.example"))
        ui.find("dialog .button.danger").click()
        ui.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "section.passkeys"), "the passkey deleted")
        ui.text_appears(t("ui.item.passkeyDeleted", site="bank.example"))

        # An export in the page comes back as a download: a KeePass file pykeepass opens with the password chosen
        # here (the attachment inside); a plain one only after two confirmations, and nothing when cancelled.
        ui.click(t("ui.nav.settings"))
        check(ui.api("export-items", {"format": "bitwarden-json", "path": os.path.join(ui.downloads, "named.json"), "plainConfirmed": True}) == "failure"
              and not os.path.exists(os.path.join(ui.downloads, "named.json")), "a page named a path for an export")
        ui.type_into("#ex-password", "export tulip marble 42")
        ui.type_into("#ex-confirm", "export tulip marble 43")
        ui.driver.execute_script("arguments[0].click()", ui.find("#ex-go"))
        ui.text_appears(t("ui.export.mismatch"))
        ui.type_into("#ex-confirm", "export tulip marble 42")
        ui.driver.execute_script("arguments[0].click()", ui.find("#ex-go"))
        done = lambda suffix: [n for n in os.listdir(ui.downloads) if n.endswith(suffix)]
        kdbx = ui.downloaded(".kdbx", "the KeePass export downloaded", timeout=60)
        ui.wait(lambda d: t("ui.export.outside") in d.find_element(By.ID, "ex-result").text, "the export's result", timeout=10)
        ui.shot("export")
        ui.axe("export")
        from pykeepass import PyKeePass
        kp = PyKeePass(kdbx, password="export tulip marble 42")
        github = kp.find_entries(title="GitHub", first=True)
        check(github is not None and github.password == "new-Secret-2024", "the exported KeePass file's entry")
        check([a.filename for a in github.attachments] == ["readme.txt"] and github.attachments[0].data == b"hello attachment\n", "the exported attachment")
        check(t("ui.export.done", count=len(kp.entries), name=done(".kdbx")[0]) in ui.find("#ex-result").text, "the export's count and file name")
        Select(ui.find("#ex-format")).select_by_value("bitwarden-json")
        ui.wait(lambda d: not d.find_element(By.ID, "ex-password").is_displayed(), "no password for a plain export")
        ui.driver.execute_script("arguments[0].click()", ui.find("#ex-go"))
        ui.text_appears(t("ui.export.plainWarn"))
        ui.click(t("ui.cancel"))
        time.sleep(1)
        check(not done(".json"), "a cancelled plain export downloaded a file")
        ui.driver.execute_script("arguments[0].click()", ui.find("#ex-go"))
        ui.click(t("ui.export.continue"))
        ui.text_appears(t("ui.export.plainAgain"))
        ui.click(t("ui.export.plainGo"))
        def parsed(path):
            with open(path) as f:
                return json.load(f)
        exported = parsed(ui.downloaded(".json", "the plain export downloaded", whole=parsed))
        check(any(i.get("name") == "GitHub" and i.get("login", {}).get("password") == "new-Secret-2024" for i in exported.get("items", [])), "the plain export's item")
        ui.check_logs()
    finally:
        ui.quit()
        agent.stop()


def timer_lock(args, display, language):
    """The agent's own timer locks the vault; the open page goes to the lock page by itself."""
    agent = Agent(args.passbox, display, auto_lock=4)
    ui = UI(args, agent, language)
    try:
        ui.create_vault()
        ui.wait(lambda d: ui.heading() == ui.t("ui.lock.title"), "the lock page after the agent's timer", timeout=20)
        # "Forgot your password?" says honestly that nobody can reset it, and what can be done (ACC-10).
        ui.press("#forgot")
        ui.wait(lambda d: ui.find("#forgot-text").text == ui.t("ui.forgot.local"), "what to do without the password")
        ui.axe("forgot")
        ui.click(ui.t("ui.close"))
        ui.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog"), "the explanation closed")
        check(not ui.driver.find_elements(By.CSS_SELECTOR, "#search"), "the vault's screens stayed after the lock")
        ui.check_logs()
        # A page without a session says how to get one (the refused API call is the expected 401).
        ui.driver.delete_all_cookies()
        ui.driver.refresh()
        ui.wait(lambda d: ui.heading() == ui.t("ui.session.title"), "the no-session page")
        ui.shot("no-session")
        ui.axe("no-session")
        unexpected = [e for e in ui.driver.get_log("browser") if e.get("level") == "SEVERE" and "401" not in e.get("message", "")]
        check(not unexpected, f"console errors on the no-session page: {unexpected}")
    finally:
        ui.quit()
        agent.stop()


def start_display():
    """An Xvfb of the run's own (the clipboard test reads its display's selection), on a display number it picks
    itself (-displayfd): no other run, test or X server of the machine can hold the number it gets, where numbers
    chosen here could be taken (CI once waited 30 s for one that never made its socket). Ready once it has
    written that number."""
    read, write = os.pipe()
    try:
        xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
                                pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError as e:
        os.close(read)
        raise Failure(f"Xvfb could not be started: {e}")
    finally:
        os.close(write)
    written = b""
    deadline = time.time() + 60
    try:
        while not written.endswith(b"\n"):
            ready, _, _ = select.select([read], [], [], max(0.0, deadline - time.time()))
            if not ready:
                xvfb.kill()
                xvfb.wait()
                raise Failure("Xvfb named no display within 60 s")
            chunk = os.read(read, 16)
            if not chunk:
                xvfb.wait()
                raise Failure(f"Xvfb ended at start (status {xvfb.returncode})")
            written += chunk
    finally:
        os.close(read)
    return xvfb, f":{int(written)}"


def run_flow(args, test, language, browser, report):
    """One flow in one language and browser, on a display of its own; the flow's name if it failed."""
    name = f"{test.__name__} ({language}, {browser})"
    try:
        xvfb, display = start_display()
    except Failure as e:
        report(f"FAIL {name}: {e}")
        return name
    BROWSERS[display] = browser
    flow_started = time.time()
    try:
        test(args, display, language)
        report(f"ok   {name} in {time.time() - flow_started:.0f} s")
        return None
    except Exception as e:
        report(f"FAIL {name}: {e}" + ("" if isinstance(e, Failure) else "\n" + traceback.format_exc()))
        return name
    finally:
        xvfb.terminate()
        xvfb.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--passbox", required=True)
    parser.add_argument("--axe", required=True)
    parser.add_argument("--artifacts", required=True)
    parser.add_argument("--only", help="run one flow (its function's name), for working on it")
    parser.add_argument("--serial", action="store_true", help="one run after the other instead of side by side")
    parser.add_argument("--browsers", default="chromium,firefox", help="chromium, firefox or both (the default)")
    parser.add_argument("--lanes", type=int, default=2, help="how many runs (a flow in one browser and language) go side by side")
    parser.add_argument("--matrix", choices=["pairs", "full"], default="pairs",
                        help="pairs (the default, make test's): every flow in both browsers and both languages, in two runs;"
                             " full: every flow in every browser in every language, four runs (so is one browser alone)")
    args = parser.parse_args()
    orphans.adopt()
    shutil.rmtree(args.artifacts, ignore_errors=True)
    started = time.time()
    every = (main_flows, account_flows, sharing_flows, link_flows, coercion_flows, backup_flows, attachment_flows, timer_lock)
    flows = [f for f in every if not args.only or f.__name__ == args.only]
    lock = threading.Lock()

    def report(line):
        with lock:
            print(line, flush=True)

    # Every flow runs in both browsers and in both languages, each run on a display of its own with its own agents
    # and browser. The default pairs them: a flow runs in Chromium in one language and in Firefox in the other, and
    # the next flow the other way round, so each browser meets each language in half the flows (both themes are
    # inside the flows). The browser's engine and the page's language fail in ways of their own, not together: a
    # missing German string or a too-long German label shows in either browser, an engine's difference in either
    # language. The whole product (--matrix full) ran 32 runs in 1,051 s of make test's lane; the pairs run 16.
    # Two at once in make test, beside the Swift tests and the extension's flows (three at once took the Swift
    # tests' cores; --lanes sets it). The longest go first, so no long one starts last and runs alone.
    browsers = args.browsers.split(",")
    longest = ["backup_flows", "main_flows", "sharing_flows", "link_flows", "account_flows", "coercion_flows", "attachment_flows", "timer_lock"]
    pairs = [[("chromium", "en"), ("firefox", "de")], [("chromium", "de"), ("firefox", "en")]]
    runs = sorted(((test, language, browser) for test in flows
                   for browser, language in (pairs[0] + pairs[1] if args.matrix == "full" or len(browsers) == 1 else pairs[every.index(test) % 2])
                   if browser in browsers),
                  key=lambda r: longest.index(r[0].__name__) if r[0].__name__ in longest else len(longest))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1 if args.serial else args.lanes) as pool:
        results = [pool.submit(run_flow, args, test, language, browser, report) for test, language, browser in runs]
        failures = [r.result() for r in results if r.result()]
    shots = len([f for f in os.listdir(args.artifacts) if f.endswith(".png")]) if os.path.isdir(args.artifacts) else 0
    total = len(runs)
    print(f"web UI: {total - len(failures)} of {total} browser tests passed in {time.time() - started:.0f} s; {shots} screenshots in {args.artifacts}")
    orphans.collect()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
