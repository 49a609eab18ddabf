#!/usr/bin/env python3
"""A local stand-in for the Pwned Passwords range API, for tests only.

usage: range_server.py HASHES_FILE LOG_FILE
HASHES_FILE has lines "SHA1HEX:COUNT" (count 0 lines are served as padding). The server binds to a free
port on 127.0.0.1, prints it, then answers GET /range/PREFIX with "SUFFIX:COUNT" lines for the hashes with
that prefix plus padding lines (count 0), and appends "PATH<TAB>ADD-PADDING<TAB>BODY-LENGTH" to LOG_FILE for
every request. It stops after 60 seconds or when its standard input closes."""
import http.server, socketserver, sys, threading, random, os

hashes = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if line:
        h, c = line.split(":")
        hashes[h.upper()] = int(c)
log_path = sys.argv[2]

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log_path, "a") as log:
            log.write("%s\t%s\t%s\n" % (self.path, self.headers.get("Add-Padding", ""), self.headers.get("Content-Length", "0")))
        if not self.path.startswith("/range/"):
            self.send_response(404); self.end_headers(); return
        prefix = self.path[len("/range/"):].upper()
        lines = ["%s:%d" % (h[5:], c) for h, c in hashes.items() if h.startswith(prefix)]
        rng = random.Random(prefix)
        lines += ["%035X:0" % rng.getrandbits(140) for _ in range(20)]
        rng.shuffle(lines)
        body = ("\r\n".join(lines)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass

class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
def watch_stdin():
    sys.stdin.read()
    os._exit(0)
threading.Thread(target=watch_stdin, daemon=True).start()
threading.Event().wait(60)
os._exit(0)
