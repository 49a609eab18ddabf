// Passbox's content script (a classic script: content scripts cannot be modules). It runs in every http(s)
// frame, finds login, new-password and one-time-code fields, and puts a small button in each. The button and
// its menu live in a closed shadow root the page can neither read nor restyle. It fills only after a trusted
// click or key in that menu, only when the menu is visible and on top (in a frame of another site's page, only
// when the browser itself vouches for that), and never on page load. It reads the fields' values only when a
// form with a password is submitted (for the save offer), and stores nothing.
(() => {
  "use strict";

  const api = globalThis.browser ?? globalThis.chrome;
  if (!api || !api.runtime || !api.runtime.id) return;
  if (location.protocol !== "https:" && location.protocol !== "http:") return;

  // MARK: constants (the layout numbers are the ones tests click by)

  /** Gap between the field's right edge and the button. */
  const BUTTON_INSET = 6;
  /** Gap between the field and the menu. */
  const MENU_GAP = 4;
  /** The menu's border and padding: its first row starts this far below its top edge. */
  const MENU_EDGE = 5;
  /** Each row of the menu. */
  const ROW_HEIGHT = 40;
  /** Rows shown before the list scrolls. */
  const VISIBLE_ROWS = 6;
  const MENU_MIN_WIDTH = 280;
  const MENU_MAX_WIDTH = 400;
  /** A menu's rows ignore clicks and keys this long after they appear (a double click must not confirm). */
  const ARM_MS = 400;
  /** At most this many fields get a button (a page with hundreds of inputs is not a login form). */
  const MAX_FIELDS = 60;
  const TEXT_TYPES = new Set(["text", "email", "tel"]);
  const CODE_WORDS = /otp|totp|2fa|code|token/i;
  /** Names that contain "code" but are not one-time codes. */
  const NOT_CODE_WORDS = /post|zip|promo|coupon|voucher|gift|country|area|phone|qr|discount|invite|referr/i;

  const nativeValueSetter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
  const t = (key, substitutions) => api.i18n.getMessage(key, substitutions) || key;

  const inFrame = window !== window.top;
  /**
   * Whether this frame sits in a page of another site, which could cover or fade the frame where this document
   * cannot see it: the worker's word with each candidates answer (null until then, counted as yes).
   */
  let crossSite = inFrame ? null : false;
  /** The origins of the frames around this one (the worker compares their sites to this frame's). */
  const ancestors = () => Array.from(location.ancestorOrigins || []);

  // MARK: finding fields

  const tokens = (input) => (input.getAttribute("autocomplete") || "").toLowerCase().split(/\s+/).filter(Boolean);

  function usable(input) {
    return input.isConnected && !input.disabled && !input.readOnly && input.type !== "hidden";
  }

  /** Rendered, not transparent, not hidden (checkVisibility also looks at the ancestors). */
  function shown(element) {
    if (typeof element.checkVisibility === "function" && !element.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    const style = getComputedStyle(element);
    if (style.display === "none" || style.visibility !== "visible" || Number(style.opacity) === 0) return false;
    const rect = element.getBoundingClientRect();
    return rect.width >= 1 && rect.height >= 1;
  }

  function isCodeField(input) {
    if (!["text", "number", "tel", "password"].includes(input.type)) return false;
    if (tokens(input).includes("one-time-code")) return true;
    if (input.type === "password") return false;
    const words = `${input.name} ${input.id} ${input.getAttribute("placeholder") || ""}`;
    if (!CODE_WORDS.test(words) || NOT_CODE_WORDS.test(words)) return false;
    const numeric = (input.getAttribute("inputmode") || "").toLowerCase() === "numeric";
    return numeric || (input.maxLength >= 6 && input.maxLength <= 8);
  }

  /** The form of a field, or (pages without <form>) the nearest ancestor that holds it and other inputs. */
  function groupOf(input) {
    if (input.form) return input.form;
    let node = input.parentElement;
    for (let depth = 0; node && node !== document.body && depth < 12; depth++, node = node.parentElement) {
      const inputs = node.querySelectorAll("input:not([type=hidden])");
      if (inputs.length > 1 && [...inputs].some((i) => i.type === "password")) return node;
    }
    return document.body || document.documentElement;
  }

  /**
   * A group's login fields: its shown password fields, those among them for a new password (autocomplete
   * new-password; else with three, all but the first; with two, both unless the first is current-password),
   * the current password field, and the username field (autocomplete username/email, else the nearest text
   * input before the password).
   */
  function loginParts(group) {
    const inputs = [...group.querySelectorAll("input")].filter((i) => usable(i) && !isCodeField(i) && shown(i));
    const passwords = inputs.filter((i) => i.type === "password");
    let fresh = passwords.filter((p) => tokens(p).includes("new-password"));
    if (!fresh.length && passwords.length >= 3) fresh = passwords.slice(1);
    else if (!fresh.length && passwords.length === 2) fresh = tokens(passwords[0]).includes("current-password") ? [passwords[1]] : passwords.slice();
    const current = passwords.find((p) => !fresh.includes(p)) || null;
    const anchor = current || passwords[0] || null;
    const texts = inputs.filter((i) => TEXT_TYPES.has(i.type));
    let username = texts.find((i) => tokens(i).includes("username")) || texts.find((i) => tokens(i).includes("email")) || null;
    if (!username && anchor) {
      const before = texts.filter((i) => anchor.compareDocumentPosition(i) & Node.DOCUMENT_POSITION_PRECEDING);
      username = before[before.length - 1] || null;
    }
    return { passwords, fresh, current, username };
  }

  /** Every field that should have a button, with its kind: login, new (a new password) or code. */
  function findFields() {
    const found = new Map();
    const groups = new Map();
    for (const input of document.querySelectorAll("input")) {
      if (found.size >= MAX_FIELDS) break;
      if (!usable(input)) continue;
      if (isCodeField(input)) {
        found.set(input, "code");
      } else if (input.type === "password") {
        const group = groupOf(input);
        if (!groups.has(group)) groups.set(group, loginParts(group));
        const parts = groups.get(group);
        found.set(input, parts.fresh.includes(input) ? "new" : "login");
        if (parts.username && !found.has(parts.username)) found.set(parts.username, "login");
      } else if (TEXT_TYPES.has(input.type) && tokens(input).includes("username") && !found.has(input)) {
        // A login in steps: the username alone first.
        found.set(input, "login");
      }
    }
    return found;
  }

  // MARK: the button and its menu (one closed shadow root per field)

  // Generic font families only: a page's @font-face reaches into the shadow root and could give a named font
  // glyphs that draw other words than the menu's.
  const STYLE = `
    .wrap { position: absolute; inset: 0; font: 13px/1.3 system-ui, sans-serif; color: #e8ebf0;
      --panel: #161a21; --raised: #1d222b; --line: #2a313c; --text: #e8ebf0; --muted: #a3acba; --accent: #8fa8ff;
      --accent-text: #0f1115; --tint: rgba(143, 168, 255, 0.16); --warn: #ffd27a; }
    @media (prefers-color-scheme: light) {
      .wrap { --panel: #ffffff; --raised: #eef0f4; --line: #d5dae2; --text: #15181d; --muted: #4f5866; --accent: #2f52d6;
        --accent-text: #ffffff; --tint: rgba(47, 82, 214, 0.10); --warn: #8a5a00; }
    }
    .button { all: initial; position: absolute; inset: 0; display: grid; place-items: center; border-radius: 6px; cursor: pointer;
      background: var(--accent); color: var(--accent-text); opacity: 1 !important; visibility: visible !important; }
    .button svg { width: 70%; height: 70%; }
    .button:focus-visible { outline: 2px solid var(--text); outline-offset: 1px; }
    .menu { all: initial; position: absolute; box-sizing: border-box; display: none; padding: 4px; border: 1px solid var(--line);
      border-radius: 10px; background: var(--panel); color: var(--text); font: inherit; box-shadow: 0 8px 24px rgba(0, 0, 0, 0.35);
      opacity: 1 !important; visibility: visible !important; }
    .menu.open { display: block; }
    .rows { max-height: ${ROW_HEIGHT * VISIBLE_ROWS}px; overflow-y: auto; }
    .row { box-sizing: border-box; height: ${ROW_HEIGHT}px; padding: 0 10px; border-radius: 6px; display: flex; flex-direction: column;
      justify-content: center; cursor: pointer; outline: none; color: var(--text); }
    .row:hover, .row:focus { background: var(--tint); }
    .row:focus-visible { box-shadow: inset 0 0 0 2px var(--accent); }
    .title, .sub { display: block; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .title { font-weight: 600; }
    .sub { color: var(--muted); font-size: 12px; }
    .row.warn .title { color: var(--warn); }
    .note { padding: 8px 10px; color: var(--muted); font-size: 12px; line-height: 1.4; white-space: normal; }
    .note:empty { display: none; }
    .note.warn { color: var(--warn); }
  `;

  const SVG = "http://www.w3.org/2000/svg";

  /** Lucide's key-round icon (ISC licence, see icons/LICENSE.txt). */
  function keyIcon() {
    const svg = document.createElementNS(SVG, "svg");
    for (const [name, value] of Object.entries({ viewBox: "0 0 24 24", fill: "none", stroke: "currentColor", "stroke-width": "2", "stroke-linecap": "round", "stroke-linejoin": "round", "aria-hidden": "true" })) svg.setAttribute(name, value);
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", "M2.586 17.414A2 2 0 0 0 2 18.828V21a1 1 0 0 0 1 1h3a1 1 0 0 0 1-1v-1a1 1 0 0 1 1-1h1a1 1 0 0 0 1-1v-1a1 1 0 0 1 1-1h.172a2 2 0 0 0 1.414-.586l.814-.814a6.5 6.5 0 1 0-4-4z");
    const dot = document.createElementNS(SVG, "circle");
    for (const [name, value] of Object.entries({ cx: "16.5", cy: "7.5", r: ".5", fill: "currentColor" })) dot.setAttribute(name, value);
    svg.append(path, dot);
    return svg;
  }

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /** field → {field, kind, host, root, place, button, menu, rows, note, box, placed, menuAt} */
  const entries = new Map();

  /** Every Passbox host in this document (the page's own elements are everything else). */
  function ownHosts() {
    return new Set([...entries.values()].map((e) => e.host));
  }

  /**
   * IntersectionObserver v2 (Chromium): the browser's own word whether an element is drawn unfaded and
   * uncovered, the pages around this frame included. Watched for the buttons and menus of a subframe only.
   */
  const seenVisible = new WeakMap();
  const visibility = inFrame && typeof IntersectionObserverEntry === "function" && "isVisible" in IntersectionObserverEntry.prototype
    ? new IntersectionObserver((records) => {
      for (const record of records) seenVisible.set(record.target, record.isVisible === true);
    }, { trackVisibility: true, delay: 100 })
    : null;

  /** Whether IntersectionObserver v2 last saw the field's button and its menu visible. */
  function provenVisible(entry) {
    return Boolean(visibility) && seenVisible.get(entry.host) === true && seenVisible.get(entry.menu) === true;
  }

  function addEntry(field, kind) {
    const host = document.createElement("div");
    // The one mark in the page's DOM: tests find the button's position by it; its content stays closed.
    host.setAttribute("data-passbox-button", "");
    host.style.setProperty("all", "initial", "important");
    const root = host.attachShadow({ mode: "closed" });
    const sheet = element("style", "", STYLE);
    // The host's own placement, as :host rules with !important: a shadow root's important rules win over
    // the page's, inline styles included, so the page cannot move, hide or fade the button.
    const place = element("style", "", "");
    const wrap = element("div", "wrap");
    const button = element("button", "button");
    button.type = "button";
    button.tabIndex = -1;
    button.setAttribute("aria-label", t("button_label"));
    button.title = t("button_label");
    button.append(keyIcon());
    const menu = element("div", "menu");
    menu.setAttribute("role", "listbox");
    menu.setAttribute("aria-label", t("extName"));
    const rows = element("div", "rows");
    const note = element("div", "note");
    note.setAttribute("role", "status");
    menu.append(rows, note);
    wrap.append(button, menu);
    root.append(sheet, place, wrap);
    const entry = { field, kind, host, root, place, button, menu, rows, note, box: null, placed: "", menuAt: "" };

    // Keep the focus in the field when the button or a row is pressed with the mouse.
    button.addEventListener("mousedown", (event) => event.preventDefault());
    menu.addEventListener("mousedown", (event) => event.preventDefault());
    button.addEventListener("click", (event) => onButtonClick(entry, event));
    rows.addEventListener("click", (event) => onRowClick(entry, event));
    root.addEventListener("keydown", (event) => onMenuKey(entry, event));
    field.addEventListener("keydown", (event) => onFieldKey(entry, event));
    entries.set(field, entry);
    placeHost(entry, null);
    document.documentElement.append(host);
    if (visibility) {
      visibility.observe(host);
      visibility.observe(menu);
    }
    // The top layer keeps the button above the page's own z-indexes and modal dialogs shown before it.
    if (typeof host.showPopover === "function") {
      host.setAttribute("popover", "manual");
      raise(entry);
    }
  }

  function removeEntry(entry) {
    if (openMenu && openMenu.entry === entry) closeMenu();
    if (visibility) {
      visibility.unobserve(entry.host);
      visibility.unobserve(entry.menu);
    }
    entry.host.remove();
    entries.delete(entry.field);
  }

  /** Moves the host to the top of the top layer (a dialog opened after it would otherwise cover it). */
  function raise(entry) {
    if (!entry.host.isConnected) return;
    if (typeof entry.host.showPopover !== "function") {
      // Without the top layer, the last of equal z-indexes is drawn on top.
      if (entry.host !== document.documentElement.lastElementChild) document.documentElement.append(entry.host);
      return;
    }
    try {
      if (entry.host.matches(":popover-open")) entry.host.hidePopover();
      entry.host.showPopover();
    } catch {
      // Not in the document, or the page's own popover rules refused: the z-index still applies.
    }
  }

  // A popover in the top layer brings a ::backdrop over the whole viewport: see-through and not hit-tested,
  // but IntersectionObserver v2 counts it as covering everything below (a frame's fields too).
  const NO_BACKDROP = ":host::backdrop { display: none !important; }";

  function placeHost(entry, box) {
    const key = box ? `${box.left},${box.top},${box.size}` : "none";
    if (entry.placed === key) return;
    entry.placed = key;
    entry.box = box;
    entry.place.textContent = box
      ? `:host { all: initial !important; display: block !important; position: fixed !important; inset: auto !important;
          left: ${box.left}px !important; top: ${box.top}px !important; width: ${box.size}px !important; height: ${box.size}px !important;
          margin: 0 !important; padding: 0 !important; border: 0 !important; overflow: visible !important; z-index: 2147483647 !important;
          opacity: 1 !important; visibility: visible !important; pointer-events: auto !important; transform: none !important;
          filter: none !important; clip-path: none !important; mask: none !important; contain: none !important; background: none !important; }
        ${NO_BACKDROP}`
      : `:host { all: initial !important; display: none !important; } ${NO_BACKDROP}`;
  }

  // MARK: layout

  function layout() {
    for (const entry of entries.values()) {
      if (!entry.field.isConnected) {
        removeEntry(entry);
        continue;
      }
      if (!entry.host.isConnected) {
        document.documentElement.append(entry.host);
        raise(entry);
      }
      const r = entry.field.getBoundingClientRect();
      const inView = r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
      if (!inView || r.width < 30 || r.height < 14 || !shown(entry.field)) {
        if (openMenu && openMenu.entry === entry) closeMenu();
        placeHost(entry, null);
        continue;
      }
      const size = Math.max(14, Math.min(24, Math.round(r.height - 8)));
      placeHost(entry, { left: Math.round(r.right - size - BUTTON_INSET), top: Math.round(r.top + (r.height - size) / 2), size });
      if (openMenu && openMenu.entry === entry) positionMenu(entry);
    }
  }

  /**
   * The menu's place: left = the field's left (kept 8 px inside the viewport), top = the field's bottom + 4 px
   * (above the field, bottom = its top - 4 px, only when there is no room below and there is room above);
   * width = the field's, at least 280 and at most 400 px. A menu that moved is armed anew: a page must not
   * slide an armed menu under a cursor that was about to click something else.
   */
  function positionMenu(entry) {
    if (!entry.box) return;
    const f = entry.field.getBoundingClientRect();
    const width = Math.max(120, Math.min(Math.max(f.width, MENU_MIN_WIDTH), MENU_MAX_WIDTH, innerWidth - 16));
    const left = Math.max(8, Math.min(f.left, innerWidth - width - 8));
    entry.menu.style.width = `${width}px`;
    const height = entry.menu.offsetHeight;
    let top = f.bottom + MENU_GAP;
    if (top + height > innerHeight - 8 && f.top - MENU_GAP - height >= 8) top = f.top - MENU_GAP - height;
    entry.menu.style.left = `${Math.round(left - entry.box.left)}px`;
    entry.menu.style.top = `${Math.round(top - entry.box.top)}px`;
    const at = `${Math.round(left)},${Math.round(top)},${Math.round(width)}`;
    if (at !== entry.menuAt && openMenu && openMenu.entry === entry) openMenu.armedAt = Math.max(openMenu.armedAt, performance.now() + ARM_MS);
    entry.menuAt = at;
  }

  let layoutQueued = false;
  function queueLayout() {
    if (layoutQueued) return;
    layoutQueued = true;
    requestAnimationFrame(() => {
      layoutQueued = false;
      layout();
    });
  }

  function scan() {
    const found = findFields();
    for (const entry of [...entries.values()]) if (!found.has(entry.field)) removeEntry(entry);
    const added = [];
    for (const [field, kind] of found) {
      const entry = entries.get(field);
      if (entry) entry.kind = kind;
      else added.push([field, kind]);
    }
    // Hosts in the fields' document order, so the page's [data-passbox-button] list reads like its form.
    added.sort(([a], [b]) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    for (const [field, kind] of added) addEntry(field, kind);
    layout();
  }

  let scanTimer = 0;
  function queueScan() {
    if (scanTimer) return;
    scanTimer = setTimeout(() => {
      scanTimer = 0;
      scan();
    }, 250);
  }

  // MARK: anti-clickjacking

  function centre(node) {
    const r = node.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2, rect: r };
  }

  /** Why the page's state forbids acting on `node` (the button or a row), or null when it may act. */
  function refusal(entry, node) {
    if (!entry.host.isConnected || !entry.field.isConnected || !entry.box || !shown(entry.field)) return "hidden";
    const fade = Number(getComputedStyle(document.documentElement).opacity);
    if (fade < 0.5) return "hidden";
    const { x, y, rect } = centre(node);
    if (rect.left < 0 || rect.top < 0 || rect.right > innerWidth || rect.bottom > innerHeight || rect.width < 1) return "hidden";
    // Whatever is drawn on top at the centre must be our own host (a closed shadow root's content hit-tests as
    // its host): an overlay of the page there means the user cannot see what they click.
    if (document.elementsFromPoint(x, y)[0] !== entry.host) return "covered";
    // The page's own top layer (a popover, a modal dialog, a fullscreen element) is drawn above the page, over
    // our host too when opened after it, and may let clicks through (pointer-events: none) to fake what is seen.
    if (topLayerOver(entry, node)) return "covered";
    // The button sits in the top layer, above any overlay; the field does not: the user must see what is filled.
    if (fieldCovered(entry)) return "covered";
    // In a frame of another site's page, that page can cover or fade this frame where this document cannot see:
    // before a row acts, the browser itself must have seen the button and menu (the button only opens the
    // menu, whose rows are armed long after IntersectionObserver v2's 100 ms).
    if (crossSite !== false && node !== entry.button && !provenVisible(entry)) return "hidden";
    return null;
  }

  /**
   * Whether a page element in the top layer lies over `node`'s box, however it hit-tests. Ours do not count,
   * nor one that holds the field itself (a login form in a dialog).
   */
  function topLayerOver(entry, node) {
    const r = node.getBoundingClientRect();
    const own = ownHosts();
    for (const element of document.querySelectorAll(":popover-open, :modal, :fullscreen")) {
      if (own.has(element) || element.contains(entry.field)) continue;
      const o = element.getBoundingClientRect();
      if (o.left < r.right && r.left < o.right && o.top < r.bottom && r.top < o.bottom) return true;
    }
    return false;
  }

  /** The alpha of a computed colour ("rgb(…)", "rgba(…, a)", "rgb(r g b / a)", "transparent"). */
  function alphaOf(color) {
    const m = /rgba?\(([^)]*)\)/.exec(color);
    if (!m) return color === "transparent" ? 0 : 1;
    const parts = m[1].split(/[\s,/]+/).filter(Boolean);
    if (parts.length < 4) return 1;
    return parts[3].endsWith("%") ? parseFloat(parts[3]) / 100 : parseFloat(parts[3]);
  }

  const OPAQUE_CONTENT = new Set(["IMG", "VIDEO", "CANVAS", "IFRAME", "EMBED", "OBJECT", "svg"]);

  /** Drawn mostly opaque: its background (or its content, for images and the like) through the opacity of it and its ancestors. */
  function opaque(element) {
    let opacity = 1;
    for (let at = element; at && opacity >= 0.5; at = at.parentElement) opacity *= Number(getComputedStyle(at).opacity);
    const style = getComputedStyle(element);
    const own = OPAQUE_CONTENT.has(element.tagName) || style.backgroundImage !== "none" ? 1 : alphaOf(style.backgroundColor);
    return opacity * own >= 0.5;
  }

  /**
   * Whether the page draws something opaque over the field, left of the button: what is filled would be out of
   * sight. Hit tests skip elements with pointer-events: none (an overlay's trick to let clicks through), so
   * those over that point are made hit-testable for the moment of the test, through their inline style (the
   * CSSOM, which a page's CSP allows), and put back before anything renders. See-through elements there (a
   * floating label) do not count.
   */
  function fieldCovered(entry) {
    const field = entry.field;
    const f = field.getBoundingClientRect();
    const x = entry.box ? (f.left + entry.box.left) / 2 : f.left + f.width / 2;
    const y = f.top + f.height / 2;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
    const own = ownHosts();
    const lifted = [];
    for (const element of document.documentElement.querySelectorAll("*")) {
      if (own.has(element) || element.contains(field) || field.contains(element) || !element.style) continue;
      if (getComputedStyle(element).pointerEvents !== "none") continue;
      const r = element.getBoundingClientRect();
      if (x < r.left || x >= r.right || y < r.top || y >= r.bottom) continue;
      lifted.push({ element, value: element.style.getPropertyValue("pointer-events"), priority: element.style.getPropertyPriority("pointer-events"), attribute: element.hasAttribute("style") });
    }
    let hits;
    try {
      for (const { element } of lifted) element.style.setProperty("pointer-events", "auto", "important");
      hits = document.elementsFromPoint(x, y);
    } finally {
      for (const { element, value, priority, attribute } of lifted) {
        if (value) element.style.setProperty("pointer-events", value, priority);
        else element.style.removeProperty("pointer-events");
        if (!attribute) element.removeAttribute("style");
      }
    }
    for (const hit of hits) {
      if (hit === field || field.contains(hit) || hit.contains(field)) return false;
      if (!own.has(hit) && opaque(hit)) return true;
    }
    return false;
  }

  function refuse(reason) {
    closeMenu();
    api.runtime.sendMessage({ type: "refused", reason }).catch(() => {});
  }

  // MARK: the menu

  /** The open menu: {entry, items: [{title, sub, warn, act}], armedAt, keyboard}. */
  let openMenu = null;

  function closeMenu() {
    if (!openMenu) return;
    const { entry } = openMenu;
    openMenu = null;
    entry.menu.classList.remove("open");
    entry.rows.replaceChildren();
    entry.note.replaceChildren();
  }

  async function showMenu(entry, keyboard) {
    closeMenu();
    raise(entry);
    const menu = { entry, items: [], armedAt: Infinity, keyboard };
    openMenu = menu;
    entry.menu.classList.add("open");
    render(menu, [], t("menu_loading"));
    const answer = await ask({ type: "candidates", kind: entry.kind, ancestors: ancestors() });
    if (openMenu !== menu) return;
    if (typeof answer.crossSiteFrame === "boolean") crossSite = answer.crossSiteFrame;
    // Without IntersectionObserver v2 (Firefox) nothing proves this frame is seen: the user must open it alone.
    if (crossSite === true && !visibility) return render(menu, [], t("menu_crossSite"));
    const items = [];
    let note = "";
    if (entry.kind === "code") {
      if (answer.ok && answer.code) items.push({ title: t("menu_fillCode"), sub: answer.code.title, act: () => fillCode(menu) });
      else note = answer.ok ? t("menu_noCode") : problemText(answer.error);
    } else {
      // The worker makes the tab's save offer of a generated password for the page's own site only.
      if (entry.kind === "new" && crossSite === false) items.push({ title: t("menu_generate"), sub: t("menu_generateSub"), act: () => generate(menu) });
      if (answer.ok) {
        for (const c of answer.candidates) {
          const match = c.match === "exact-host" ? t("match_exactHost") : c.match === "same-domain" ? t("match_sameDomain") : "";
          items.push({ title: c.title, sub: [c.username, match].filter(Boolean).join(" · "), act: () => fillLogin(menu, c.id, false) });
        }
        if (!answer.candidates.length) note = t("menu_none", [answer.host || location.hostname]);
      } else {
        note = problemText(answer.error);
      }
    }
    render(menu, items, note);
  }

  /** Draws the rows first (so their places do not depend on the note's length), then the note. */
  function render(menu, items, note, noteWarns = false) {
    const { entry } = menu;
    const hadFocus = entry.root.activeElement && entry.rows.contains(entry.root.activeElement);
    menu.items = items;
    entry.rows.replaceChildren(...items.map((item, index) => {
      const row = element("div", item.warn ? "row warn" : "row");
      row.setAttribute("role", "option");
      row.tabIndex = -1;
      row.dataset.index = String(index);
      row.append(element("span", "title", item.title));
      if (item.sub) row.append(element("span", "sub", item.sub));
      return row;
    }));
    entry.note.textContent = note || "";
    entry.note.className = noteWarns ? "note warn" : "note";
    positionMenu(entry);
    menu.armedAt = performance.now() + ARM_MS;
    if (items.length && (menu.keyboard || hadFocus)) focusRow(entry, 0);
  }

  function focusRow(entry, index) {
    const row = entry.rows.children[index];
    if (!row) return;
    row.focus();
    row.scrollIntoView({ block: "nearest" });
  }

  /** Asks the user to confirm (an unencrypted page): "Fill anyway" first, then "Cancel". */
  function confirm(menu, text, onConfirm) {
    render(menu, [
      { title: t("menu_fillAnyway"), warn: true, act: onConfirm },
      { title: t("menu_cancel"), act: () => closeMenu() },
    ], text, true);
  }

  function choose(entry, index, event) {
    const menu = openMenu;
    if (!menu || menu.entry !== entry || !event.isTrusted) return;
    if (performance.now() < menu.armedAt) return;
    const item = menu.items[index];
    const row = entry.rows.children[index];
    if (!item || !row) return;
    // A row half scrolled out of the list has its centre hidden: bring it in before checking what is on top.
    row.scrollIntoView({ block: "nearest" });
    const refused = refusal(entry, row);
    if (refused) return refuse(refused);
    menu.keyboard = event.type === "keydown";
    item.act();
  }

  // MARK: events

  function onButtonClick(entry, event) {
    event.preventDefault();
    event.stopPropagation();
    if (!event.isTrusted) return;
    if (openMenu && openMenu.entry === entry) return closeMenu();
    const refused = refusal(entry, entry.button);
    if (refused) return refuse(refused);
    showMenu(entry, false);
  }

  function onRowClick(entry, event) {
    event.stopPropagation();
    const row = event.target.closest(".row");
    if (row) choose(entry, Number(row.dataset.index), event);
  }

  function onFieldKey(entry, event) {
    if (!event.isTrusted) return;
    if (event.key === "Escape" && openMenu && openMenu.entry === entry) {
      event.preventDefault();
      closeMenu();
      return;
    }
    if (event.key !== "ArrowDown" || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    if (openMenu && openMenu.entry === entry) {
      openMenu.keyboard = true;
      focusRow(entry, 0);
      return;
    }
    const refused = refusal(entry, entry.button);
    if (refused) return refuse(refused);
    showMenu(entry, true);
  }

  function onMenuKey(entry, event) {
    if (!openMenu || openMenu.entry !== entry) return;
    // The keys are the menu's: the page's own shortcuts should not see them.
    event.stopPropagation();
    if (!event.isTrusted) return;
    const rows = [...entry.rows.children];
    const index = rows.indexOf(entry.root.activeElement);
    switch (event.key) {
      case "ArrowDown":
        event.preventDefault();
        focusRow(entry, rows.length ? (index + 1) % rows.length : 0);
        break;
      case "ArrowUp":
        event.preventDefault();
        focusRow(entry, index <= 0 ? rows.length - 1 : index - 1);
        break;
      case "Enter":
      case " ":
        event.preventDefault();
        if (index >= 0) choose(entry, index, event);
        break;
      case "Escape":
        event.preventDefault();
        closeMenu();
        entry.field.focus();
        break;
      case "Tab":
        closeMenu();
        entry.field.focus();
        break;
      default:
        break;
    }
  }

  // MARK: filling

  async function ask(message) {
    try {
      const answer = await api.runtime.sendMessage(message);
      return answer || { ok: false, error: { code: "extensionGone", facts: {} } };
    } catch {
      return { ok: false, error: { code: "extensionGone", facts: {} } };
    }
  }

  /** Sets a value as typing would: the native setter (frameworks watch the property), then input and change. */
  function setValue(input, value) {
    input.focus();
    nativeValueSetter.call(input, value);
    input.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  /** Fills a group's username and password (username first, so the focus ends in the password field). */
  function fillGroup(parts, chosenField, username, password) {
    const userField = parts.username || (chosenField && TEXT_TYPES.has(chosenField.type) ? chosenField : null);
    const passField = chosenField && chosenField.type === "password" && !parts.fresh.includes(chosenField) ? chosenField : parts.current || parts.passwords[0] || null;
    if (username && userField) setValue(userField, username);
    if (password && passField) setValue(passField, password);
    return Boolean((username && userField) || (password && passField));
  }

  /** Fills a login of the menu's list (the in-page menu never fills one of another site: that is the popup's). */
  async function fillLogin(menu, item, insecureConfirmed) {
    if (location.protocol === "http:" && !insecureConfirmed) {
      return confirm(menu, t("menu_insecure"), () => fillLogin(menu, item, true));
    }
    render(menu, [], t("menu_filling"));
    const request = { type: "fill", item, insecureConfirmed };
    let answer = await ask(request);
    if (openMenu === menu && !answer.ok && answer.error && answer.error.code === "notOffered") {
      // The worker forgot the list it gave this frame (it was restarted, or the address changed): once more.
      await ask({ type: "candidates", kind: menu.entry.kind, ancestors: ancestors() });
      answer = await ask(request);
    }
    if (openMenu !== menu) return;
    if (!answer.ok) return render(menu, [], problemText(answer.error));
    const { entry } = menu;
    closeMenu();
    fillGroup(loginParts(groupOf(entry.field)), entry.field, answer.username, answer.password);
    answer.password = "";
  }

  async function fillCode(menu) {
    render(menu, [], t("menu_filling"));
    const answer = await ask({ type: "fill", code: true });
    if (openMenu !== menu) return;
    if (!answer.ok) return render(menu, [], problemText(answer.error));
    const { entry } = menu;
    closeMenu();
    if (answer.code) setValue(entry.field, answer.code);
  }

  async function generate(menu) {
    render(menu, [], t("menu_generating"));
    const answer = await ask({ type: "generate" });
    if (openMenu !== menu) return;
    if (!answer.ok) return render(menu, [], problemText(answer.error));
    const { entry } = menu;
    closeMenu();
    const parts = loginParts(groupOf(entry.field));
    const targets = parts.fresh.length ? parts.fresh : [entry.field];
    for (const field of targets) setValue(field, answer.password);
    answer.password = "";
  }

  // MARK: wording

  function problemText(error) {
    const code = (error && error.code) || "internal";
    const facts = (error && error.facts) || {};
    switch (code) {
      case "locked": return t("menu_locked");
      case "notPaired": case "handshakeFailed": return t("menu_notPaired");
      case "agentUnavailable": case "cryptoUnsupported": case "keyStoreFailed": return t("menu_unavailable");
      case "extensionGone": return t("menu_extensionGone");
      case "noRecentFill": return t("menu_noCode");
      case "otherSite": return t("menu_otherSite", [facts.saved || t("noWebsite"), facts.requested || location.hostname]);
      case "notOffered": return t("menu_stale");
      case "noOneTimePassword": return t("error_noOneTimePassword");
      case "itemProtected": case "notALogin": return t(`error_${code}`, [facts.title || ""]);
      case "itemNotFound": return t("error_itemNotFound");
      default: return t("error_other", [code]);
    }
  }

  // MARK: the save offer: what a submitted form held, sent once, read at no other time

  const lastCapture = new WeakMap();

  function capture(group) {
    const now = Date.now();
    if (now - (lastCapture.get(group) || 0) < 1000) return;
    const parts = loginParts(group);
    const field = parts.fresh.find((f) => f.value) || (parts.current && parts.current.value ? parts.current : null) || parts.passwords.find((p) => p.value);
    if (!field) return;
    lastCapture.set(group, now);
    api.runtime.sendMessage({ type: "submitted", username: parts.username ? parts.username.value : "", password: field.value }).catch(() => {});
  }

  function passwordGroupAround(node) {
    if (node.form) return node.form;
    for (let at = node.parentElement, depth = 0; at && depth < 12; at = at.parentElement, depth++) {
      if (at.querySelector("input[type=password]")) return at;
    }
    return null;
  }

  // Only submit events the browser fired: a page's dispatchEvent(new SubmitEvent(…)) submits nothing.
  document.addEventListener("submit", (event) => {
    if (!event.isTrusted) return;
    const form = event.target;
    if (form instanceof HTMLFormElement && form.querySelector("input[type=password]")) capture(form);
  }, true);

  /** Words of a button that sends a login, where a page's buttons do not say so by their type. */
  const SUBMIT_WORDS = /log\s?in|sign\s?(in|on|up)|submit|continue|next|register|create|save|change|anmeld|einlogg|weiter|registr|speicher|ändern|fortfahren/i;

  /** A submit button, or (pages without forms) a button whose words say it sends the login. */
  function looksLikeSubmit(button) {
    if (button instanceof HTMLInputElement) return button.type === "submit" || button.type === "image";
    if (button instanceof HTMLButtonElement && button.type === "submit") return true;
    if (button instanceof HTMLButtonElement && button.form) return false;
    const words = [button.textContent, button.getAttribute("aria-label"), button.id, button.getAttribute("name")].join(" ").slice(0, 200);
    return SUBMIT_WORDS.test(words);
  }

  document.addEventListener("click", (event) => {
    if (!event.isTrusted) return;
    const target = event.composedPath()[0];
    const button = target instanceof Element ? target.closest("button, input[type=submit], input[type=image], [role=button]") : null;
    if (!button || !looksLikeSubmit(button)) return;
    const group = passwordGroupAround(button);
    if (group) capture(group);
  }, true);

  document.addEventListener("keydown", (event) => {
    if (!event.isTrusted || event.key !== "Enter") return;
    const target = event.composedPath()[0];
    if (target instanceof HTMLInputElement && target.type === "password" && target.value) capture(target.form || groupOf(target));
  }, true);

  // MARK: the popup's Fill (the service worker sends it to the top frame only)

  function popupTarget() {
    const active = entries.get(document.activeElement);
    if (active && active.kind !== "code") return active.field;
    for (const entry of entries.values()) if (entry.kind !== "code" && entry.field.type === "password" && shown(entry.field)) return entry.field;
    for (const entry of entries.values()) if (entry.kind !== "code" && shown(entry.field)) return entry.field;
    return null;
  }

  api.runtime.onMessage.addListener((message, sender, sendResponse) => {
    if (sender.id !== api.runtime.id || !message || message.type !== "fill-values" || window !== window.top) return false;
    // The worker checked the tab's address; this checks the document that receives the values is that page.
    if (message.url !== location.href) {
      sendResponse({ filled: false, reason: "pageChanged" });
      return false;
    }
    const field = popupTarget();
    const filled = field ? fillGroup(loginParts(groupOf(field)), field, message.username, message.password) : false;
    message.password = "";
    sendResponse({ filled });
    return false;
  });

  // MARK: start

  document.addEventListener("pointerdown", (event) => {
    if (openMenu && !event.composedPath().includes(openMenu.entry.host)) closeMenu();
  }, true);

  /**
   * The page opened something in its top layer (a popover, a dialog, fullscreen) while a menu was open: it may
   * now lie over the menu, so the menu goes. (Ours, raised on focus, do not count.)
   */
  function onPageLayer(event) {
    if (!openMenu || ownHosts().has(event.target)) return;
    if (event.type !== "fullscreenchange" && event.newState !== "open") return;
    closeMenu();
  }
  for (const type of ["beforetoggle", "toggle", "fullscreenchange"]) document.addEventListener(type, onPageLayer, true);

  document.addEventListener("focusin", (event) => {
    const entry = entries.get(event.target);
    if (entry) {
      raise(entry);
      queueLayout();
    }
    if (openMenu && event.target !== openMenu.entry.field && event.target !== openMenu.entry.host) closeMenu();
  }, true);

  addEventListener("scroll", queueLayout, { capture: true, passive: true });
  addEventListener("resize", queueLayout, { passive: true });
  // Layout also moves without scrolling or resizing (animations, late styles): look again now and then.
  setInterval(() => {
    if (entries.size && document.visibilityState === "visible") layout();
  }, 700);

  new MutationObserver((records) => {
    // A dialog opened (where its toggle events are not fired yet): as onPageLayer.
    if (openMenu && records.some((r) => r.attributeName === "open" && r.target.hasAttribute("open"))) closeMenu();
    queueScan();
  }).observe(document.documentElement, {
    childList: true, subtree: true, attributes: true, attributeFilter: ["type", "autocomplete", "class", "style", "hidden", "disabled", "readonly", "open"],
  });
  scan();
})();
