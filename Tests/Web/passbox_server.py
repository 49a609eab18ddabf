"""A throwaway `passbox server` for the browser tests (ui_test.py's accounts, extension_test.py's passkey sync)."""
import json, os, re, shutil, subprocess, tempfile, time


class Server:
    """A `passbox server` on a free loopback port (SQLite), in a directory of its own."""

    def __init__(self, passbox):
        self.data = tempfile.mkdtemp(prefix="passbox-web-server-")
        self.log = open(os.path.join(self.data, "out"), "w+")
        self.process = subprocess.Popen([passbox, "--data", self.data, "server", "--listen", "127.0.0.1:0"], stdout=self.log, stderr=subprocess.DEVNULL)
        self.origin = None
        deadline = time.time() + 60
        while self.process.poll() is None and time.time() < deadline:
            self.log.seek(0)
            found = re.search(r"http://127\.0\.0\.1:\d+", self.log.read())
            if found:
                self.origin = found.group(0)
                break
            time.sleep(0.02)
        if not self.origin:
            self.stop()
            raise RuntimeError("the passbox server never said where it listens")

    def publish_breach(self, name, domain):
        """The operator's breach catalogue (in the server's data directory, served from the next request on):
        one breach of DOMAIN, published an hour from now (so after any password set today)."""
        added = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
        breach = {"Name": name, "Title": name, "Domain": domain, "BreachDate": "2024-01-01", "AddedDate": added, "ModifiedDate": added, "PwnCount": 12345,
                  "Description": "", "DataClasses": ["Email addresses", "Passwords"], "IsVerified": True, "IsFabricated": False, "IsSensitive": False,
                  "IsRetired": False, "IsSpamList": False, "IsMalware": False, "LogoPath": ""}
        path = os.path.join(self.data, "server", "hibp-breaches.json")
        with open(path + ".new", "w") as f:
            json.dump([breach], f)
        os.replace(path + ".new", path)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.data, ignore_errors=True)
