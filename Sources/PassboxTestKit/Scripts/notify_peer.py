#!/usr/bin/python3
"""Plays a desktop's notification server (org.freedesktop.Notifications) on a private bus, for tests only.

usage: notify_peer.py ADDRESS EVENTS_FILE

Owns org.freedesktop.Notifications on the bus at ADDRESS, answers Notify as a notification server does (with
an id) and GetServerInformation and GetCapabilities as notify-send asks, and appends to EVENTS_FILE one line
a notification, as JSON: {"app": APP, "summary": SUMMARY, "body": BODY}, after a first line "ready". Stops
after 120 seconds."""
import json, sys

import dbus
import dbus.service
import dbus.mainloop.glib
from gi.repository import GLib


def main():
    address, events_path = sys.argv[1], sys.argv[2]
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(address)

    def log(line):
        with open(events_path, "a") as f:
            f.write(line + "\n")

    class Notifications(dbus.service.Object):
        count = 0

        @dbus.service.method("org.freedesktop.Notifications", in_signature="susssasa{sv}i", out_signature="u")
        def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout):
            Notifications.count += 1
            log(json.dumps({"app": str(app), "summary": str(summary), "body": str(body)}))
            return Notifications.count

        @dbus.service.method("org.freedesktop.Notifications", in_signature="", out_signature="as")
        def GetCapabilities(self):
            return ["body"]

        @dbus.service.method("org.freedesktop.Notifications", in_signature="", out_signature="ssss")
        def GetServerInformation(self):
            return ("passbox-test", "passbox", "1", "1.2")

    name = dbus.service.BusName("org.freedesktop.Notifications", bus)
    Notifications(bus, "/org/freedesktop/Notifications")
    loop = GLib.MainLoop()
    GLib.timeout_add_seconds(120, loop.quit)
    log("ready")
    loop.run()
    del name


main()
