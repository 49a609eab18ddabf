// systemd-logind's signals (session lock, user switch, sleep with a delay inhibitor) and the screen saver's
// through libsystemd's sd-bus, loaded with dlopen when the agent starts (CLogindSupport.c; the CLI itself never
// needs it, and linking would load it at every command).
#ifndef CLOGINDSUPPORT_H
#define CLOGINDSUPPORT_H

#include <stddef.h>

/// What the agent is told: 1 the session was locked, 2 the machine is about to sleep, 3 the session is no
/// longer the active one (user switch), 4 the screen saver started. The watch closes the sleep inhibitor
/// only when the call for 2 has returned, so it must return only once the agent is locked.
typedef void (*CLogind_OnLock)(int reason, void *context);

/// Watches the system bus (or $DBUS_SYSTEM_BUS_ADDRESS) for logind's signals, holding a sleep delay
/// inhibitor, and the session bus (or $DBUS_SESSION_BUS_ADDRESS) for the screen saver, and calls `onLock`;
/// runs until both buses go away, so call it on a thread of its own. `report` receives a line saying what is
/// watched, or why a part is not, when the loop starts and whenever that changes; at the end `status`
/// receives the last such line. Returns -1 when it stops (or nothing can be watched).
int CLogind_watch(CLogind_OnLock onLock, void *context, void (*report)(const char *status, void *context), char *status, size_t statusSize);

/// Tells systemd the service's state (sd_notify(3): "READY=1", "STOPPING=1", "STATUS=…") when $NOTIFY_SOCKET is
/// set; returns 0 when it is not, a positive number when sent, negative on failure.
int CLogind_notify(const char *state);

#endif
