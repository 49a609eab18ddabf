#!/usr/bin/python3
"""Plays systemd-logind (org.freedesktop.login1) on a private bus, for tests only.

usage: logind_peer.py serve ADDRESS EVENTS_FILE PASSBOX DATA_DIR
       logind_peer.py emit ADDRESS SIGNAL [SESSION]
       logind_peer.py screensaver ADDRESS true|false [INTERFACE]

serve owns org.freedesktop.login1 on the bus at ADDRESS and answers Manager.Inhibit(what, who, why, mode)
as logind does: with the write end of a pipe. It keeps the read end; when that reads end of file (every copy
of the write end closed: the inhibitor released) it notes the time (seconds since 1970), runs
`PASSBOX --data DATA_DIR status --json` at once and records whether the agent was unlocked at that moment.
It appends events to EVENTS_FILE, one a line:
    ready
    inhibit N WHAT MODE WHO: WHY
    released N at TIME unlocked=true|false|unknown
and stops after 60 seconds. Signals are sent by the serving peer (it owns the name, and the agent listens to
that sender only), on request: emit calls its org.passbox.TestPeer.Emit(SIGNAL, SESSION), where SIGNAL is
sleep or wake (Manager.PrepareForSleep true or false), lock (Session.Lock), active or inactive (the
session's PropertiesChanged with Active true or false); SESSION is a session id.

screensaver sends INTERFACE.ActiveChanged(true|false) on the bus at ADDRESS (a session bus) and exits;
INTERFACE is org.freedesktop.ScreenSaver unless given (GNOME's is org.gnome.ScreenSaver)."""
import json, os, subprocess, sys, time

import dbus
import dbus.lowlevel


def session_path(session):
    # As sd_bus_path_encode: every byte but [A-Za-z0-9] (and a leading digit) as _XX.
    encoded = "".join(c if c.isascii() and c.isalnum() and not (i == 0 and c.isdigit()) else "_%02x" % ord(c) for i, c in enumerate(session))
    return "/org/freedesktop/login1/session/" + (encoded or "_")


def serve(address, events_path, passbox, data_dir):
    import dbus.service
    import dbus.mainloop.glib
    from gi.repository import GLib

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(address)

    def log(line):
        with open(events_path, "a") as f:
            f.write(line + "\n")

    def agent_unlocked():
        env = dict(os.environ, XDG_RUNTIME_DIR="")
        out = subprocess.run([passbox, "--data", data_dir, "status", "--json"], capture_output=True, text=True, env=env, timeout=10)
        try:
            return "true" if json.loads(out.stdout)["unlocked"] else "false"
        except (ValueError, KeyError):
            return "unknown"

    class Manager(dbus.service.Object):
        count = 0

        @dbus.service.method("org.freedesktop.login1.Manager", in_signature="ssss", out_signature="h")
        def Inhibit(self, what, who, why, mode):
            Manager.count += 1
            n = Manager.count
            read_end, write_end = os.pipe()

            def readable(fd, condition):
                if os.read(fd, 64):
                    return True
                at = time.time()
                log("released %d at %.3f unlocked=%s" % (n, at, agent_unlocked()))
                os.close(fd)
                return False

            GLib.io_add_watch(read_end, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, readable)
            handed = dbus.types.UnixFd(write_end)  # a copy: the agent's must be the only one left
            os.close(write_end)
            log("inhibit %d %s %s %s: %s" % (n, what, mode, who, why))
            return handed

    class TestPeer(dbus.service.Object):
        @dbus.service.method("org.passbox.TestPeer", in_signature="ss", out_signature="")
        def Emit(self, signal, session):
            if signal in ("sleep", "wake"):
                m = dbus.lowlevel.SignalMessage("/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep")
                m.append(signal == "sleep", signature="b")
            elif signal == "lock":
                m = dbus.lowlevel.SignalMessage(session_path(session), "org.freedesktop.login1.Session", "Lock")
            elif signal in ("active", "inactive"):
                m = dbus.lowlevel.SignalMessage(session_path(session), "org.freedesktop.DBus.Properties", "PropertiesChanged")
                changed = {"IdleHint": dbus.Boolean(False), "Active": dbus.Boolean(signal == "active")}
                m.append("org.freedesktop.login1.Session", changed, dbus.Array([], signature="s"), signature="sa{sv}as")
            else:
                raise ValueError("unknown signal " + signal)
            bus.send_message(m)

    name = dbus.service.BusName("org.freedesktop.login1", bus)
    Manager(bus, "/org/freedesktop/login1")
    TestPeer(bus, "/org/passbox/TestPeer")
    loop = GLib.MainLoop()
    GLib.timeout_add_seconds(60, loop.quit)
    log("ready")
    loop.run()
    del name


def main():
    if sys.argv[1] == "serve":
        serve(*sys.argv[2:6])
    elif sys.argv[1] == "emit":
        bus = dbus.bus.BusConnection(sys.argv[2])
        session = sys.argv[4] if len(sys.argv) > 4 else ""
        bus.call_blocking("org.freedesktop.login1", "/org/passbox/TestPeer", "org.passbox.TestPeer", "Emit", "ss", [sys.argv[3], session])
    elif sys.argv[1] == "screensaver":
        bus = dbus.bus.BusConnection(sys.argv[2])
        interface = sys.argv[4] if len(sys.argv) > 4 else "org.freedesktop.ScreenSaver"
        m = dbus.lowlevel.SignalMessage("/" + interface.replace(".", "/"), interface, "ActiveChanged")
        m.append(sys.argv[3] == "true", signature="b")
        bus.send_message(m)
        bus.flush()
    else:
        sys.exit("usage: logind_peer.py serve|emit|screensaver ...")


main()
