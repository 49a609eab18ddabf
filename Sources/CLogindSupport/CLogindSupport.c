// The logind watch: loads libsystemd with dlopen, subscribes to the session's Lock and the manager's
// PrepareForSleep, and runs sd-bus's loop. sd_bus_message_read is variadic, so the signal's argument is read
// here in C.
#include "CLogindSupport.h"

#include <systemd/sd-bus.h>
#include <systemd/sd-login.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CLogind_API {
    int (*open_system)(sd_bus **);
    int (*match_signal)(sd_bus *, sd_bus_slot **, const char *, const char *, const char *, const char *, sd_bus_message_handler_t, void *);
    int (*process)(sd_bus *, sd_bus_message **);
    int (*wait)(sd_bus *, uint64_t);
    int (*message_read)(sd_bus_message *, const char *, ...);
    sd_bus *(*unref)(sd_bus *);
    int (*pid_get_session)(pid_t, char **);
    int (*path_encode)(const char *, const char *, char **);
};

struct CLogind_Watch {
    struct CLogind_API api;
    CLogind_OnLock onLock;
    void *context;
};

static int CLogind_sessionLocked(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)m;
    (void)error;
    struct CLogind_Watch *w = (struct CLogind_Watch *)userdata;
    w->onLock(1, w->context);
    return 0;
}

static int CLogind_prepareForSleep(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    struct CLogind_Watch *w = (struct CLogind_Watch *)userdata;
    int starting = 0;
    // true before sleeping, false after waking: only the first locks.
    if (w->api.message_read(m, "b", &starting) >= 0 && starting) w->onLock(2, w->context);
    return 0;
}

int CLogind_watch(CLogind_OnLock onLock, void *context, void (*ready)(const char *status, void *context), char *status, size_t statusSize) {
    struct CLogind_Watch w;
    memset(&w, 0, sizeof(w));
    w.onLock = onLock;
    w.context = context;
    void *h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(status, statusSize, "unavailable: libsystemd.so.0 could not be loaded");
        return -1;
    }
    *(void **)&w.api.open_system = dlsym(h, "sd_bus_open_system");
    *(void **)&w.api.match_signal = dlsym(h, "sd_bus_match_signal");
    *(void **)&w.api.process = dlsym(h, "sd_bus_process");
    *(void **)&w.api.wait = dlsym(h, "sd_bus_wait");
    *(void **)&w.api.message_read = dlsym(h, "sd_bus_message_read");
    *(void **)&w.api.unref = dlsym(h, "sd_bus_unref");
    *(void **)&w.api.pid_get_session = dlsym(h, "sd_pid_get_session");
    *(void **)&w.api.path_encode = dlsym(h, "sd_bus_path_encode");
    if (!w.api.open_system || !w.api.match_signal || !w.api.process || !w.api.wait || !w.api.message_read || !w.api.unref ||
        !w.api.pid_get_session || !w.api.path_encode) {
        snprintf(status, statusSize, "unavailable: libsystemd.so.0 lacks sd-bus");
        return -1;
    }
    sd_bus *bus = NULL;
    int r = w.api.open_system(&bus);
    if (r < 0) {
        snprintf(status, statusSize, "unavailable: no system bus (%s)", strerror(-r));
        return -1;
    }
    char *session = NULL, *path = NULL;
    if (w.api.pid_get_session(0, &session) >= 0 && session) w.api.path_encode("/org/freedesktop/login1/session", session, &path);
    r = w.api.match_signal(bus, NULL, "org.freedesktop.login1", path, "org.freedesktop.login1.Session", "Lock", CLogind_sessionLocked, &w);
    if (r >= 0)
        r = w.api.match_signal(bus, NULL, "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep",
                               CLogind_prepareForSleep, &w);
    if (r < 0) {
        snprintf(status, statusSize, "unavailable: cannot subscribe to systemd-logind's signals (%s)", strerror(-r));
        free(session);
        free(path);
        w.api.unref(bus);
        return -1;
    }
    if (session)
        snprintf(status, statusSize, "watching systemd-logind: session %s locks, and sleep", session);
    else
        snprintf(status, statusSize, "watching systemd-logind: any session's lock (this process has no session), and sleep");
    free(session);
    free(path);
    ready(status, context);
    for (;;) {
        r = w.api.process(bus, NULL);
        if (r < 0) break;
        if (r > 0) continue;
        r = w.api.wait(bus, (uint64_t)-1);
        if (r < 0) break;
    }
    snprintf(status, statusSize, "stopped: the system bus went away (%s)", strerror(-r));
    w.api.unref(bus);
    return -1;
}
