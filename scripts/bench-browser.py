#!/usr/bin/python3
"""`make bench`'s browser extension figures in headless Chromium, through the real host and agent.

A vault of 10,000 logins, each of a site of its own (imported from a browser CSV), plus "Bank" for
https://bank.example; the extension loaded and paired as a user pairs it (the popup's code confirmed with
`passbox browser pair --code`); then, on https://bank.example/login, each run clicks the field's Passbox
button, waits for the menu, and clicks the login:
  candidates   `browser-candidates` for https://bank.example/ from an extension page, through the extension's own
               agent.js (its native port to a host of its own, the handshake done first, not timed), timed with
               performance.now() in the page: the JS, the browser's native messaging, the host and the agent
  click→filled from the trusted pointerdown on the menu's row to the password field's input event, timed by a
               listener the page holds (capture phase), so chromedriver's own round trips are not counted
printed as p50 and p95 beside the issue's targets (candidates p95 ≤ 10 ms, click→filled p95 ≤ 50 ms).
KeePassXC-Browser's path is not measured: it needs the KeePassXC application running with a database open.

Usage: bench-browser.py --passbox PATH [--items N] [--runs N]
"""
import argparse, csv, os, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "Web"))
import ext_sites  # noqa: E402
import extension_test as et  # noqa: E402

TIMING_JS = """(() => {
  window.__passbox = {down: 0, fills: []};
  window.addEventListener('pointerdown', () => { window.__passbox.down = performance.now(); }, true);
  document.getElementById('password').addEventListener('input', () => {
    if (window.__passbox.down) window.__passbox.fills.push(performance.now() - window.__passbox.down);
    window.__passbox.down = 0;
  });
  return true;
})()"""


class BenchVault(et.Vault):
    """The release binary's vault (no test hooks: the real key derivation), with `items` logins imported."""

    def __init__(self, passbox, root, items):
        self.passbox, self.data, self.home = passbox, os.path.join(root, "data"), os.path.join(root, "home")
        os.makedirs(self.home)
        self.env = dict(os.environ, XDG_RUNTIME_DIR="", HOME=self.home, PASSBOX_LANG="en")
        self.agent = None
        self.cli("init", input=et.PASSWORD + "\n" + et.PASSWORD + "\n", timeout=120)
        self.agent_log = open(os.path.join(root, "agent.log"), "w")
        self.agent = subprocess.Popen([passbox, "--data", self.data, "agent"], env=self.env, stdin=subprocess.DEVNULL,
                                      stdout=self.agent_log, stderr=subprocess.STDOUT)
        socket_path = os.path.join(self.data, "run", "agent.sock")
        deadline = time.monotonic() + 60
        while not os.path.exists(socket_path):
            et.check(self.agent.poll() is None and time.monotonic() < deadline, "the agent did not start")
            time.sleep(0.02)
        self.cli("unlock", input=et.PASSWORD + "\n", timeout=120)
        path = os.path.join(root, "logins.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["name", "url", "username", "password"])
            for i in range(items):
                w.writerow([f"Site {i}", f"https://login.site{i}.example/", f"user{i}@example.com", f"pw-{i}-tulip-ocean"])
        self.cli("import", path, "--yes", timeout=600)
        self.cli("add", "login", "--title", "Bank", "--username", "ada", "--url", "https://bank.example", "--password-stdin", input=et.BANK_PASSWORD + "\n")
        self.bank_id = self.json("show", "Bank", "--json")["summary"]["id"]


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * p))] if s else 0.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--passbox", required=True)
    parser.add_argument("--items", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    args.passbox = os.path.abspath(args.passbox)
    root = tempfile.mkdtemp(prefix="passbox-bench-browser-")
    sites = ext_sites.Sites(root)
    run = et.Run(argparse.Namespace(passbox=args.passbox, artifacts=os.path.join(root, "shots")), "chromium", "en", sites)
    try:
        run.vault = BenchVault(args.passbox, run.root, args.items)
        run.vault.cli("browser", "install", "--browser", "chromium")
        run.extension = os.path.join(run.root, "extension")
        subprocess.run([os.path.join(et.EXTENSION, "tools", "assemble.sh"), run.extension, "chromium"], check=True, capture_output=True)
        run.browser = run.open_browser(run.vault.home, "profile")
        run.helper = run.browser.new_tab(run.browser.base + "popup.html?tab=helper")
        page = run.open("https://bank.example/login")
        pop = run.popup(page, state="notPaired", timeout=30)
        run.browser.click_element(pop, "#pair-button")
        code = run.wait(lambda: run.text(pop, "pair-code"), "the pairing code")
        run.vault.cli("browser", "pair", "--code", code)
        run.wait_state(pop, "unlocked", timeout=30)

        took = run.browser.js(pop, """(async () => {
          const { Agent } = await import('./agent.js');
          const agent = new Agent();
          await agent.prove();
          const times = [];
          for (let i = 0; i < %d; i++) {
            const t = performance.now();
            await agent.call('browser-candidates', { url: 'https://bank.example/' }, 'fill');
            times.push(performance.now() - t);
          }
          agent.disconnect();
          return times;
        })()""" % (args.runs + 3))
        candidates = [float(t) for t in took[3:]]

        fills = []
        for n in range(args.runs + 2):
            run.browser.navigate(page, "https://bank.example/login")
            run.browser.js(page, TIMING_JS)
            run.fill_by_menu(page, "#username", "Bank", lambda: run.values(page, "#username", "#password") == ["ada", et.BANK_PASSWORD])
            took = run.wait(lambda: run.browser.js(page, "window.__passbox.fills[0]"), "the fill's timing")
            if n >= 2:
                fills.append(float(took))
        version = subprocess.run(["/usr/bin/chromedriver", "--version"], capture_output=True, text=True).stdout.strip()
        print(f"The browser extension in headless Chromium ({version}), through passbox browser-host, against an agent holding {args.items + 1} items:")
        rows = [["MEASURE", "RUNS", "p50", "p95", "TARGET", "MET"],
                ["candidates for a site (extension → host → agent)", str(len(candidates)), f"{percentile(candidates, .5):.1f} ms",
                 f"{percentile(candidates, .95):.1f} ms", "p95 ≤ 10 ms", "yes" if percentile(candidates, .95) <= 10 else "NO"],
                ["click on the login → password filled", str(len(fills)), f"{percentile(fills, .5):.1f} ms", f"{percentile(fills, .95):.1f} ms",
                 "p95 ≤ 50 ms", "yes" if percentile(fills, .95) <= 50 else "NO"]]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for r in rows:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        print("KeePassXC-Browser: not measured (its path needs the KeePassXC application running with a database open and browser integration on).")
    finally:
        run.stop()
        sites.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
