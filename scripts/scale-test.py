#!/usr/bin/env python3
"""make scale-test (part of make deploy-test): three `passbox server` processes on one PostgreSQL database behind
HAProxy answer as one (issue 36).

A throwaway PostgreSQL cluster (initdb in a temporary directory, loopback, run as the postgres user when started
as root), three server processes on it, and HAProxy in front of them with dist/proxy/haproxy-passbox-cluster.cfg
(its TLS line made plain HTTP on loopback, its ports replaced). Two accounts, each with two devices (data
directories with their own agents), signed up and signed in through HAProxy, so a sign-in's challenge and its
proof land on different processes. Then:

- every device adds logins and syncs, one after another, all four at once; once ten syncs were acknowledged, one
  server process is killed (SIGKILL) while the pushes go on. A sync that fails (its request was on the killed
  process) leaves its changes queued, and the next sends the same push again, with its operation id;
- every device syncs until it succeeds, then once more;
- every login added on either device of an account is on both, once, and none of the other account's; every sync
  that exited 0 had its logins there; the server's revision of each account is its count of applied operations
  (a push applied twice would take two revisions);
- an attachment of 1.2 MiB (three parts, sent through HAProxy's round robin to different processes) added on
  one device is read whole on the other;
- a login added and synced on one device reaches the other device's agent without a sync there (its long poll
  woken through LISTEN/NOTIFY, whichever process it waits on).

usage: scripts/scale-test.py [PASSBOX]
"""
import glob, hashlib, json, os, re, shutil, signal, socket, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PASSBOX = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release/passbox"))
PASSWORD = "harbour violet quantum seventy lantern"
PER_DEVICE = 6
started = time.time()


def say(text):
    print(f"scale-test [{time.time() - started:5.1f} s] {text}", flush=True)


def fail(text):
    print(f"scale-test: FAIL: {text}", file=sys.stderr, flush=True)
    raise SystemExit(1)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for(condition, what, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.1)
    fail(f"waited {seconds} s for {what}")


class Postgres:
    """A throwaway cluster on a free loopback port; as root, owned and run by the postgres user."""

    def __init__(self, work):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(re.findall(r"\d+", p)[-1]))
        if not bins:
            fail("PostgreSQL is not installed (make deploy-test installs it)")
        self.bin = bins[-1]
        self.dir = os.path.join(work, "pg")
        os.makedirs(self.dir)
        self.port = free_port()
        self.prefix = []
        if os.getuid() == 0:
            shutil.chown(work, "postgres")
            shutil.chown(self.dir, "postgres")
            self.prefix = ["runuser", "-u", "postgres", "--"]
        self.run("initdb", "-D", self.dir + "/data", "-U", "passbox", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-instructions")
        with open(self.dir + "/data/postgresql.conf", "a") as f:
            f.write(f"listen_addresses = '127.0.0.1'\nport = {self.port}\nunix_socket_directories = '{self.dir}'\nmax_connections = 300\n")
        self.run("pg_ctl", "-D", self.dir + "/data", "-l", self.dir + "/log", "-w", "start")
        self.uri = f"postgresql://passbox@127.0.0.1:{self.port}/postgres"

    def run(self, tool, *args):
        out = subprocess.run(self.prefix + [os.path.join(self.bin, tool), *args], capture_output=True, text=True)
        if out.returncode != 0:
            fail(f"{tool}: {out.stderr.strip()}")

    def query(self, sql):
        out = subprocess.run(self.prefix + [os.path.join(self.bin, "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "passbox", "-d", "postgres",
                                            "-At", "-F", "|", "-c", sql], capture_output=True, text=True)
        if out.returncode != 0:
            fail(f"psql: {out.stderr.strip()}")
        return [line.split("|") for line in out.stdout.splitlines() if line]

    def stop(self):
        subprocess.run(self.prefix + [os.path.join(self.bin, "pg_ctl"), "-D", self.dir + "/data", "-m", "fast", "-w", "stop"], capture_output=True)


class Device:
    """A data directory of its own with its own agent (XDG_RUNTIME_DIR="": the socket is DATA/run/agent.sock)."""

    def __init__(self, work, name):
        self.name = name
        self.data = os.path.join(work, name)
        self.env = dict(os.environ, XDG_RUNTIME_DIR="", HOME=os.path.join(work, name + "-home"), PASSBOX_LANG="en")
        os.makedirs(self.env["HOME"])
        self.acknowledged, self.added, self.failures = [], [], []

    def cli(self, *args, input=None, ok=True, timeout=120):
        out = subprocess.run([PASSBOX, "--data", self.data, *args], input=input, capture_output=True, text=True, env=self.env, timeout=timeout)
        if ok and out.returncode != 0:
            fail(f"{self.name}: passbox {' '.join(args)} exited {out.returncode}: {out.stderr.strip()}")
        return out

    def titles(self):
        return [item["title"] for item in json.loads(self.cli("list", "--json").stdout)]

    def write(self, acknowledged_total, killed):
        """Adds a login and syncs until PER_DEVICE logins were added after the kill; a sync that exits 0
        acknowledges every login added before it."""
        pending, after = [], 0
        for n in range(100):
            if killed.is_set():
                after += 1
                if after > PER_DEVICE:
                    break
            title = f"{self.name}-{n:02d}"
            self.cli("add", "login", "--title", title, "--username", f"{self.name}@example.org", "--url", f"https://site{n}.example")
            self.added.append(title)
            pending.append(title)
            out = self.cli("sync", ok=False)
            if out.returncode == 0:
                self.acknowledged += pending
                pending = []
                acknowledged_total.add()
            else:
                said = [line for line in out.stderr.splitlines() if line.strip() and "reminder:" not in line]
                self.failures.append(said[0] if said else f"exit {out.returncode}")

    def sync_until_done(self, seconds=90):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if self.cli("sync", ok=False).returncode == 0:
                return
            time.sleep(0.5)
        fail(f"{self.name} could not sync within {seconds} s: {self.cli('sync', ok=False).stderr.strip()}")

    def stop(self):
        subprocess.run([PASSBOX, "--data", self.data, "lock", "--stop"], capture_output=True, env=self.env, timeout=30)


class Counter:
    def __init__(self):
        self.lock, self.value = threading.Lock(), 0

    def add(self):
        with self.lock:
            self.value += 1

    def get(self):
        with self.lock:
            return self.value


def main():
    if not os.access(PASSBOX, os.X_OK):
        fail(f"{PASSBOX} is not built")
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not os.access(haproxy, os.X_OK):
        fail("haproxy is missing (make deploy-test installs it)")
    work = tempfile.mkdtemp(prefix="passbox-scale-test-")
    os.chmod(work, 0o755)
    processes, devices, pg = [], [], None
    try:
        pg = Postgres(work)
        say(f"PostgreSQL at 127.0.0.1:{pg.port}")
        front = free_port()
        origin = f"http://127.0.0.1:{front}"
        servers = []
        for n in range(3):
            port = free_port()
            log = open(os.path.join(work, f"server-{n}.log"), "w+")
            p = subprocess.Popen([PASSBOX, "--data", os.path.join(work, f"server-{n}"), "server", "--listen", f"127.0.0.1:{port}",
                                  "--database", f"{pg.uri}?application_name=passbox-server-{n}",
                                  "--origin", origin, "--trusted-proxy", "127.0.0.1/32"], stdout=log, stderr=subprocess.STDOUT)
            processes.append(p)
            servers.append((p, port, log))

        def ready(log):
            log.seek(0)
            return "passbox-server ready" in log.read()
        for p, port, log in servers:
            wait_for(lambda: ready(log) or p.poll() is not None, "a server process to start")
            if p.poll() is not None:
                log.seek(0)
                fail(f"a server process ended: {log.read()[-500:]}")
        with open(os.path.join(ROOT, "dist/proxy/haproxy-passbox-cluster.cfg")) as f:
            config = f.read()
        config = config.replace("bind :443 ssl crt /etc/ssl/passbox/passbox.pem", f"bind 127.0.0.1:{front}")
        for n, (_, port, _) in enumerate(servers):
            config = config.replace(f"127.0.0.1:{8787 + n}", f"127.0.0.1:{port}")
        if f"127.0.0.1:{front}" not in config or "8787" in config:
            fail("dist/proxy/haproxy-passbox-cluster.cfg no longer has the lines this test replaces")
        with open(os.path.join(work, "haproxy.cfg"), "w") as f:
            f.write(config)
        checked = subprocess.run([haproxy, "-c", "-f", os.path.join(work, "haproxy.cfg")], capture_output=True, text=True)
        if checked.returncode != 0:
            fail(f"haproxy -c: {checked.stdout}{checked.stderr}")
        proxy = subprocess.Popen([haproxy, "-db", "-f", os.path.join(work, "haproxy.cfg")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(proxy)
        wait_for(lambda: subprocess.run(["curl", "-sf", "-o", "/dev/null", "--max-time", "2", origin + "/v1/health"]).returncode == 0, "HAProxy to answer")
        say(f"three server processes behind HAProxy at {origin}")

        # Two accounts, two devices each: sign-up through HAProxy, then the second device signs in (its challenge and
        # its proof are two requests, which round robin sends to two processes) and each device's agent unlocks.
        for account in ("ada", "bob"):
            first, second = Device(work, f"{account}1"), Device(work, f"{account}2")
            devices += [first, second]
            made = first.cli("signup", "--server", origin, "--email", f"{account}@example.org", input=f"{PASSWORD}\n{PASSWORD}\n")
            key = re.search(r"P1-[0-9A-Z]{6}(?:-[0-9A-Z]{5,6}){5}", made.stdout)
            if not key:
                fail(f"no Secret Key in the sign-up's output: {made.stdout!r}")
            second.cli("signin", "--server", origin, "--email", f"{account}@example.org", input=f"{PASSWORD}\n{key.group(0)}\n")
        for device in devices:
            device.cli("unlock", input=PASSWORD + "\n")
        say("two accounts with two devices each, signed in and unlocked")

        # The pushes, and the kill in their middle.
        acknowledged, killed = Counter(), threading.Event()
        writers = [threading.Thread(target=d.write, args=(acknowledged, killed)) for d in devices]
        for w in writers:
            w.start()
        wait_for(lambda: acknowledged.get() >= 10 or not any(w.is_alive() for w in writers), "ten acknowledged syncs", seconds=300)
        # The kill comes while the process is inside a push: its database connection (named by application_name)
        # is in a transaction that writes an account's revision, items or operation. (Looked for up to a minute;
        # if never seen, it is killed anyway and the output says so.)
        victim = servers[1][0]
        in_push = ("SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = 'passbox-server-1' AND state IN ('active', 'idle in transaction') "
                   "AND (query LIKE '%sync_accounts%' OR query LIKE '%sync_items%' OR query LIKE '%sync_manifests%' OR query LIKE '%sync_operations%') "
                   "AND query NOT LIKE '%SELECT revision%'")
        deadline, caught = time.time() + 60, False
        while time.time() < deadline and not caught and any(w.is_alive() for w in writers):
            caught = int(pg.query(in_push)[0][0]) > 0
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        killed.set()
        killed_at = acknowledged.get()
        say(f"killed a server process {'inside a push' if caught else '(no push of its seen in a minute)'} after {killed_at} acknowledged syncs")
        for w in writers:
            w.join(timeout=600)
        failed = sum(len(d.failures) for d in devices)
        say(f"{sum(len(d.added) for d in devices)} logins added, {acknowledged.get()} runs of passbox sync acknowledged, {failed} failed "
            f"({'; '.join(sorted(set(f for d in devices for f in d.failures)))[:300] or 'none'}; the agents' own syncs after each change are not counted)")
        if acknowledged.get() <= killed_at:
            fail("no sync was acknowledged after the kill")

        # Every device syncs until it succeeds, then all once more: each has what the others pushed.
        for _ in range(2):
            for device in devices:
                device.sync_until_done()
        for account in ("ada", "bob"):
            mine = [d for d in devices if d.name.startswith(account)]
            other = [d for d in devices if not d.name.startswith(account)]
            added = set(t for d in mine for t in d.added)
            foreign = set(t for d in other for t in d.added)
            for device in mine:
                titles = device.titles()
                twice = sorted(t for t in set(titles) if titles.count(t) > 1)
                missing = sorted(t for d in mine for t in d.acknowledged if t not in titles)
                if twice:
                    fail(f"{device.name} has logins twice: {twice}")
                if missing:
                    fail(f"{device.name} lacks acknowledged logins: {missing}")
                if added - set(titles):
                    fail(f"{device.name} lacks logins added before its last sync: {sorted(added - set(titles))}")
                if foreign & set(titles):
                    fail(f"{device.name} has the other account's logins: {sorted(foreign & set(titles))}")
        # Each applied push took one revision and recorded one operation: none was applied twice.
        for account_id, revision, operations in pg.query(
                "SELECT a.account_id, a.revision, (SELECT COUNT(*) FROM sync_operations o WHERE o.account_id = a.account_id) FROM sync_accounts a"):
            if int(revision) != int(operations):
                fail(f"account {account_id}: revision {revision} but {operations} operations applied")
        say("every login on both devices of its account, once: " + ", ".join(f"{a} {len(set(t for d in devices if d.name.startswith(a) for t in d.added))}" for a in ("ada", "bob")))

        # An attachment across processes: its parts go to different processes, the other device reads it whole.
        blob = os.path.join(work, "scan.bin")
        with open(blob, "wb") as f:
            f.write(os.urandom(1200 * 1024))
        ada1, ada2 = devices[0], devices[1]
        ada1.cli("attach", "ada1-00", blob, "--name", "scan.bin")
        ada1.sync_until_done()
        ada2.sync_until_done()
        back = os.path.join(work, "scan-back.bin")
        ada2.cli("save-attachment", "ada1-00", "scan.bin", "--out", back)
        if hashlib.sha256(open(blob, "rb").read()).digest() != hashlib.sha256(open(back, "rb").read()).digest():
            fail("the attachment read on the other device is not the one attached")
        say("an attachment of 1.2 MiB made on one device read whole on the other")

        # A live update: the other device's agent learns of the push through its long poll, without a sync of its own.
        for n in range(2):
            title = f"ada1-live-{n}"
            ada1.cli("add", "login", "--title", title, "--username", "ada@example.org")
            ada1.sync_until_done()
            wait_for(lambda: title in ada2.titles(), f"{title} to reach ada2's agent without a sync there", seconds=45)
        say(f"live updates reached the other device's agent; done in {time.time() - started:.0f} s")
    finally:
        for device in devices:
            device.stop()
        for p in processes:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
        if pg:
            pg.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
