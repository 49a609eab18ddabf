"""The part of Selenium's WebDriver API that Tests/Web/ui_test.py uses, answered by Firefox ESR over WebDriver BiDi
(bidi.py), since Debian 12 has no geckodriver. The same flows then run in Chromium (selenium and chromedriver)
and in Firefox.

Elements are BiDi node references (sharedId). Every element call checks the node is still in the document and
raises Selenium's StaleElementReferenceException when it is not, as chromedriver does, so ui_test's waits retry
the same way in both browsers. A click is a trusted pointer click at the element's centre after scrolling it
into view; when another element would take it, ElementClickInterceptedException is raised, as in Chromium.
Clicking an <option> selects it, as the WebDriver specification's element click does, so Selenium's Select works.
"""
import base64, os

from selenium.common.exceptions import ElementClickInterceptedException, NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By

import bidi

# How each locator finds its nodes, under `root` (the document or an element).
_FIND = """(root, by, value, all) => {
  if (root && !root.isConnected) throw new Error('passbox-stale');
  const base = root || document;
  let found = [];
  if (by === 'xpath') {
    const r = document.evaluate(value, base, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    for (let i = 0; i < r.snapshotLength; i++) if (r.snapshotItem(i).nodeType === 1) found.push(r.snapshotItem(i));
  } else {
    const css = by === 'id' ? '#' + CSS.escape(value) : by === 'tag name' ? value : by === 'name' ? `[name="${CSS.escape(value)}"]` : value;
    found = Array.from(base.querySelectorAll(css));
  }
  return all ? found : found.slice(0, 1);
}"""

DISPLAYED_JS = """(e) => {
  if (!e.isConnected) throw new Error('passbox-stale');
  if (e.tagName === 'OPTION') e = e.closest('select') || e;
  for (let n = e; n && n.nodeType === 1; n = n.parentElement) {
    const s = getComputedStyle(n);
    if (s.display === 'none' || s.opacity === '0') return false;
  }
  if (getComputedStyle(e).visibility !== 'visible') return false;
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}"""

TEXT_JS = """(e) => {
  if (!e.isConnected) throw new Error('passbox-stale');
  const lines = (e instanceof HTMLElement ? e.innerText : e.textContent || '').split('\\n').map((l) => l.replace(/[ \\t\\u00a0]+/g, ' ').trim());
  return lines.filter((l, i) => l || (i > 0 && i < lines.length - 1)).join('\\n').trim();
}"""

_ATTRIBUTE = """(e, name) => {
  if (!e.isConnected) throw new Error('passbox-stale');
  const booleans = ['checked', 'selected', 'disabled', 'readonly', 'required', 'multiple', 'hidden', 'open'];
  if (booleans.includes(name)) return e[name] || e.hasAttribute(name) ? 'true' : null;
  if (name in e && ['string', 'number', 'boolean'].includes(typeof e[name])) return String(e[name]);
  return e.getAttribute(name);
}"""

# An element's text as a person sees it: "" when it is not shown (one call instead of two).
SHOWN_TEXT_JS = f"(e) => ({DISPLAYED_JS})(e) ? ({TEXT_JS})(e) : ''"

# Where a click lands: the element's centre, scrolled into view, and whether the element (or a part of it) is on top.
CLICK_POINT_JS = """(e) => {
  if (!e.isConnected) throw new Error('passbox-stale');
  e.scrollIntoView({block: 'center', inline: 'center'});
  const r = e.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const top = document.elementFromPoint(x, y);
  return [x, y, !!top && (top === e || e.contains(top) || (e.tagName === 'LABEL' && e.control === top)), top ? top.outerHTML.slice(0, 120) : ''];
}"""

# The click point, or null for an <option> (which a click selects instead): one call for both.
CLICK_POINT_OR_OPTION_JS = f"(e) => e.tagName === 'OPTION' ? null : ({CLICK_POINT_JS})(e)"

# The same after the page's next two frames (a click sent in the same instant as the last typed key was lost
# now and then in Firefox, as no person's click is), in the same call: a promise of the point, ['stale'] when
# the element left the page meanwhile, ['error'] for any other fault of the script (a rejection would not reach
# chromedriver's asynchronous script).
SETTLED_CLICK_POINT_JS = f"""(e) => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => {{
  try {{ resolve(({CLICK_POINT_OR_OPTION_JS})(e)); }}
  catch (error) {{ resolve([String(error).includes('passbox-stale') ? 'stale' : 'error', String(error)]); }}
}})))"""


def click_at(point, select_option, press, lost):
    """An element's click once its POINT is known (from CLICK_POINT_OR_OPTION_JS or SETTLED_CLICK_POINT_JS), the
    same steps in both browsers: an <option> (no point) is selected with SELECT_OPTION(); a point with another
    element on top raises ElementClickInterceptedException; otherwise PRESS() is the trusted pointer click at
    the element as the browser then finds it. An element gone (['stale', …]), or one the page hid or moved
    between the check and the move (LOST(error) true for PRESS's error: nothing was pressed), raises
    StaleElementReferenceException, so the caller's wait finds it again and retries."""
    if point is None:
        return select_option()
    if point[0] == "stale":
        raise StaleElementReferenceException(point[1])
    if point[0] == "error":
        raise RuntimeError(f"the click point's script failed: {point[1]}")
    x, y, on_top, other = point
    if not on_top:
        raise ElementClickInterceptedException(f"the click at ({x:.0f}, {y:.0f}) would land on {other}")
    try:
        press()
    except Exception as e:
        if lost(e):
            raise StaleElementReferenceException(str(e)) from None
        raise

_SELECT_OPTION = """(o) => {
  if (!o.isConnected) throw new Error('passbox-stale');
  const s = o.closest('select');
  if (!s || o.selected) return;
  s.focus();
  o.selected = true;
  s.dispatchEvent(new Event('input', {bubbles: true}));
  s.dispatchEvent(new Event('change', {bubbles: true}));
}"""

_FOCUS_END = """(e) => {
  if (!e.isConnected) throw new Error('passbox-stale');
  if (document.activeElement !== e) e.focus();
  if (typeof e.setSelectionRange === 'function' && typeof e.value === 'string') {
    try { e.setSelectionRange(e.value.length, e.value.length); } catch (error) {}
  }
  return e.tagName === 'INPUT' && e.type === 'file';
}"""

_CLEAR = """(e) => {
  if (!e.isConnected) throw new Error('passbox-stale');
  e.focus();
  e.value = '';
  e.dispatchEvent(new Event('input', {bubbles: true}));
  e.dispatchEvent(new Event('change', {bubbles: true}));
}"""


def _locator(by):
    return {By.CSS_SELECTOR: "css selector", By.ID: "id", By.TAG_NAME: "tag name", By.XPATH: "xpath", By.NAME: "name"}[by]


class FirefoxElement:
    def __init__(self, driver, ref):
        self._driver = driver
        self._ref = {"sharedId": ref["sharedId"]}
        self.id = ref["sharedId"]

    def __eq__(self, other):
        return isinstance(other, FirefoxElement) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def _call(self, function, *args):
        return self._driver._call(function, self._ref, *args)

    @property
    def text(self):
        return self._call(SHOWN_TEXT_JS)

    @property
    def tag_name(self):
        return self._call("(e) => e.tagName.toLowerCase()")

    def get_attribute(self, name):
        return self._call(_ATTRIBUTE, name)

    def get_dom_attribute(self, name):
        return self._call("(e, n) => e.getAttribute(n)", name)

    def get_property(self, name):
        return self._call("(e, n) => e[n]", name)

    def value_of_css_property(self, name):
        return self._call("(e, n) => getComputedStyle(e).getPropertyValue(n)", name)

    @property
    def size(self):
        r = self._call("(e) => { const r = e.getBoundingClientRect(); return [r.width, r.height]; }")
        return {"width": r[0], "height": r[1]}

    @property
    def location(self):
        r = self._call("(e) => { const r = e.getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY]; }")
        return {"x": r[0], "y": r[1]}

    def is_displayed(self):
        return bool(self._call(DISPLAYED_JS))

    def is_enabled(self):
        return not self._call("(e) => !!e.disabled")

    def is_selected(self):
        return bool(self._call("(e) => !!(e.selected || e.checked)"))

    def find_element(self, by, value):
        return self._driver._find(self._ref, by, value, single=True)

    def find_elements(self, by, value):
        return self._driver._find(self._ref, by, value, single=False)

    def click(self, settled=False):
        """A click (SETTLED: after the page's next two frames, in the same call as the point; see click_at)."""
        point = self._call(SETTLED_CLICK_POINT_JS if settled else CLICK_POINT_OR_OPTION_JS)
        # At the element's centre as Firefox finds it when it clicks: the page may have moved it since (an editor
        # whose later parts arrive pushes its Save button down).
        click_at(point, lambda: self._call(_SELECT_OPTION), lambda: self._driver.ff.click_node(self._driver.context, self.id),
                 lambda e: isinstance(e, bidi.BiDiError) and ("move target out of bounds" in str(e) or "no such element" in str(e)))

    def clear(self):
        self._call(_CLEAR)

    def send_keys(self, *values):
        text = "".join(str(v) for v in values)
        if self._call(_FOCUS_END):
            # A file input takes paths, one a line, as chromedriver does.
            self._driver.ff.send("input.setFiles", {"context": self._driver.context, "element": self._ref, "files": text.split("\n")})
            return
        # As chromedriver does: a modifier (Control, Shift, Alt, Meta) stays down until the end of the keys.
        modifiers = {"\ue008", "\ue009", "\ue00a", "\ue03d"}
        steps, held = [], []
        for c in text:
            steps.append({"type": "keyDown", "value": c})
            if c in modifiers:
                held.append(c)
            else:
                steps.append({"type": "keyUp", "value": c})
        steps += [{"type": "keyUp", "value": c} for c in reversed(held)]
        self._driver.ff.perform(self._driver.context, [{"type": "key", "id": "keyboard", "actions": steps}])

    def screenshot(self, path):
        self._call("(e) => { if (!e.isConnected) throw new Error('passbox-stale'); e.scrollIntoView({block: 'center'}); }")
        data = self._driver.ff.send("browsingContext.captureScreenshot", {"context": self._driver.context, "clip": {"type": "element", "element": self._ref}})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return True

    def context_click(self):
        x, y, _, _ = self._call(CLICK_POINT_JS)
        self._driver.ff.click(self._driver.context, x, y, button=2)

    def drag_by(self, dx, dy):
        x, y, _, _ = self._call(CLICK_POINT_JS)
        steps = [{"type": "pointerMove", "x": int(x), "y": int(y), "origin": "viewport", "duration": 0}, {"type": "pointerDown", "button": 0},
                 {"type": "pointerMove", "x": int(x + dx), "y": int(y + dy), "origin": "viewport", "duration": 100}, {"type": "pointerUp", "button": 0}]
        self._driver.ff.perform(self._driver.context, [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": steps}])


class FirefoxDriver:
    """A Firefox ESR with one tab, spoken to as ui_test speaks to Selenium's Chrome driver."""

    name = "firefox"

    def __init__(self, display, language, downloads, viewport=(1360, 900)):
        prefs = {
            "intl.accept_languages": language, "intl.locale.requested": language,
            "browser.download.dir": downloads, "browser.download.folderList": 2, "browser.download.useDownloadDir": True,
            "browser.download.always_ask_before_handling_new_types": False, "browser.download.start_downloads_in_tmp_dir": False,
            "browser.helperApps.neverAsk.saveToDisk": "application/pdf,application/octet-stream,text/csv,application/json",
            "pdfjs.disabled": True, "browser.download.open_pdf_attachments_inline": False, "signon.rememberSignons": False,
        }
        self.ff = bidi.Firefox(prefs=prefs, env={"DISPLAY": display, "XDG_RUNTIME_DIR": ""}, viewport=viewport)
        self.context = self.ff.top_contexts()[0]
        self.ff.subscribe("log.entryAdded", "network.beforeRequestSent")
        self._log_seen = 0
        self._requests_seen = 0

    # Scripts: Selenium's arguments[] and its element references.
    def _wrap(self, value):
        if isinstance(value, FirefoxElement):
            return value._ref
        if isinstance(value, (list, tuple)):
            return [self._wrap(v) for v in value]
        return value

    def _unwrap(self, value):
        if isinstance(value, dict) and value.get("type") == "node" and "sharedId" in value:
            return FirefoxElement(self, value)
        if isinstance(value, list):
            return [self._unwrap(v) for v in value]
        if isinstance(value, dict) and not ("type" in value and "sharedId" in value):
            return {k: self._unwrap(v) for k, v in value.items()}
        return value

    def _call(self, function, *args):
        try:
            return self._unwrap(self.ff.call(self.context, function, *[self._wrap(a) for a in args]))
        except bidi.BiDiError as e:
            if "passbox-stale" in str(e) or "no such node" in str(e):
                raise StaleElementReferenceException(str(e)) from None
            raise

    def _find(self, root, by, value, single):
        found = self._call(_FIND, root, _locator(by), value, not single)
        if single:
            if not found:
                raise NoSuchElementException(f"no element for {by} {value!r}")
            return found[0]
        return found

    def find_element(self, by, value):
        return self._find(None, by, value, single=True)

    def find_elements(self, by, value):
        return self._find(None, by, value, single=False)

    def execute_script(self, script, *args):
        return self._call(f"function() {{ {script} }}", *args)

    @property
    def switch_to(self):
        """As Selenium's: `switch_to.active_element` is the focused element."""
        driver = self

        class SwitchTo:
            @property
            def active_element(self):
                return driver.execute_script("return document.activeElement")

        return SwitchTo()

    def execute_async_script(self, script, *args):
        wrapper = f"function(...args) {{ return new Promise((resolve) => {{ args.push(resolve); (function() {{ {script} }}).apply(this, args); }}); }}"
        return self._call(wrapper, *args)

    @property
    def current_url(self):
        return self.ff.url(self.context)

    def get(self, url):
        self.ff.navigate(self.context, url)

    def refresh(self):
        self.ff.reload(self.context)

    def set_window_size(self, width, height):
        # The page's viewport, as chromedriver's window size is in a headless Chromium (no browser frame around it).
        self.ff.set_viewport(self.context, width, height)

    def set_page_load_timeout(self, seconds):
        self.ff.command_timeout = max(self.ff.command_timeout, seconds)

    def save_screenshot(self, path):
        data = self.ff.send("browsingContext.captureScreenshot", {"context": self.context})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def get_log(self, kind):
        """Console errors since the last call, in chromedriver's shape (level SEVERE); "performance" is empty
        (requests come from request_urls())."""
        if kind != "browser":
            return []
        entries = list(self.ff.log_entries)
        new, self._log_seen = entries[self._log_seen:], len(entries)
        return [{"level": "SEVERE" if e.get("level") == "error" else e.get("level", "").upper(), "message": e.get("text", "")} for e in new]

    def request_urls(self):
        events = [e for e in self.ff.events if e["method"] == "network.beforeRequestSent"]
        new, self._requests_seen = events[self._requests_seen:], len(events)
        return [e["params"]["request"]["url"] for e in new]

    def get_cookies(self):
        cookies = self.ff.send("storage.getCookies", {"partition": {"type": "context", "context": self.context}})["cookies"]
        return [{"name": c["name"], "value": c["value"]["value"], "httpOnly": c.get("httpOnly"), "sameSite": (c.get("sameSite") or "").capitalize()} for c in cookies]

    def delete_all_cookies(self):
        self.ff.send("storage.deleteCookies", {"partition": {"type": "context", "context": self.context}})

    def quit(self):
        self.ff.close()
