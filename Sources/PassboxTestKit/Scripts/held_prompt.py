#!/usr/bin/env python3
"""Holds a passbox prompt open on a pseudo-terminal, as a person would, while something else happens.

usage: held_prompt.py PASSBOX DATA SCENARIO
  Starts `passbox add login --title Held --password-stdin` on a pty and waits for its "Item password:"
  prompt. Then, with the prompt still open:
    lock     runs `passbox lock` and times it
    idle     waits until `passbox status` answers locked (the agent was started with a 1 s auto-lock)
    sigterm  sends SIGTERM to the agent and waits until it has exited
  Each waits at most 30 s, far longer than any busy machine needs; the prompt stays open throughout, so
  a lock that waited for it would never come and the result says so.
  then asks `passbox status` (exit 3 = locked), answers the prompt, and reports the held command's exit code
  and output. Prints one JSON object.
"""
import json, os, pty, select, signal, subprocess, sys, time

passbox, data, scenario = sys.argv[1:4]
env = dict(os.environ, XDG_RUNTIME_DIR="", NO_COLOR="1")


def run(*args):
    p = subprocess.run([passbox, "--data", data, *args], capture_output=True, text=True, env=env, timeout=30)
    return p.returncode, p.stdout, p.stderr


_, status_json, _ = run("status", "--json")
agent_pid = (json.loads(status_json).get("status") or {}).get("pid")

pid, fd = pty.fork()
if pid == 0:
    os.execve(passbox, [passbox, "--data", data, "add", "login", "--title", "Held", "--password-stdin"], env)

seen = b""
deadline = time.time() + 10
while b"Item password:" not in seen and time.time() < deadline:
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            seen += os.read(fd, 1024)
        except OSError:
            break
result = {"prompted": b"Item password:" in seen}

start = time.time()
if scenario == "lock":
    result["lockExit"] = run("lock")[0]
elif scenario == "idle":
    while time.time() - start < 30 and run("status")[0] != 3:
        time.sleep(0.1)
elif scenario == "sigterm":
    def running(p):
        # A detached agent's parent is init, which may reap it late: a zombie has ended.
        try:
            with open(f"/proc/{p}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False
    os.kill(agent_pid, signal.SIGTERM)
    while time.time() - start < 30 and running(agent_pid):
        time.sleep(0.01)
    result["agentGone"] = not running(agent_pid)
result["seconds"] = time.time() - start
result["statusExit"] = run("status")[0]

os.write(fd, b"Held-Pa55word-123!\n")
out = b""
while True:
    try:
        chunk = os.read(fd, 1024)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, code = os.waitpid(pid, 0)
result["heldExit"] = os.waitstatus_to_exitcode(code)
result["heldOutput"] = out.decode(errors="replace")
print(json.dumps(result))
