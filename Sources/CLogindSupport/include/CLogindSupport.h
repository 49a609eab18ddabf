// systemd-logind's Lock and PrepareForSleep signals through libsystemd's sd-bus, loaded with dlopen when the
// agent starts (CLogindSupport.c; the CLI itself never needs it, and linking would load it at every command).
#ifndef CLOGINDSUPPORT_H
#define CLOGINDSUPPORT_H

#include <stddef.h>

/// What the agent is told: 1 the session was locked, 2 the machine is about to sleep.
typedef void (*CLogind_OnLock)(int reason, void *context);

/// Watches the system bus (or $DBUS_SYSTEM_BUS_ADDRESS) for logind's signals and calls `onLock`; runs until
/// the bus goes away, so call it on a thread of its own. `status` receives a line saying what is watched
/// (before the loop starts, `ready` is called) or why nothing can be; returns -1 when nothing can be watched.
int CLogind_watch(CLogind_OnLock onLock, void *context, void (*ready)(const char *status, void *context), char *status, size_t statusSize);

#endif
