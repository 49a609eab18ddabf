// The lock-signal watch: loads libsystemd with dlopen and runs one loop over two sd-bus connections. On the
// system bus: systemd-logind's Session.Lock, the session's Active property (user switch), and
// Manager.PrepareForSleep with a sleep delay inhibitor. On the session bus: the screen saver's ActiveChanged
// (org.freedesktop.ScreenSaver, and GNOME's org.gnome.ScreenSaver).
// sd_bus_message_read and sd_bus_call_method are variadic, so messages are built and read here in C.
#include "CLogindSupport.h"

#include <systemd/sd-bus.h>
#include <systemd/sd-login.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct CLogind_API {
    int (*open_system)(sd_bus **);
    int (*open_user)(sd_bus **);
    int (*match_signal)(sd_bus *, sd_bus_slot **, const char *, const char *, const char *, const char *, sd_bus_message_handler_t, void *);
    int (*call_method)(sd_bus *, const char *, const char *, const char *, const char *, sd_bus_error *, sd_bus_message **, const char *, ...);
    int (*call_method_async)(sd_bus *, sd_bus_slot **, const char *, const char *, const char *, const char *, sd_bus_message_handler_t, void *,
                             const char *, ...);
    int (*process)(sd_bus *, sd_bus_message **);
    int (*get_fd)(sd_bus *);
    int (*get_events)(sd_bus *);
    int (*get_timeout)(sd_bus *, uint64_t *);
    int (*message_read)(sd_bus_message *, const char *, ...);
    int (*message_enter)(sd_bus_message *, char, const char *);
    int (*message_exit)(sd_bus_message *);
    int (*message_skip)(sd_bus_message *, const char *);
    int (*message_is_error)(sd_bus_message *, const char *);
    const sd_bus_error *(*message_error)(sd_bus_message *);
    sd_bus_message *(*message_unref)(sd_bus_message *);
    void (*error_free)(sd_bus_error *);
    sd_bus *(*unref)(sd_bus *);
    int (*pid_get_session)(pid_t, char **);
    int (*path_encode)(const char *, const char *, char **);
};

struct CLogind_Watch {
    struct CLogind_API api;
    CLogind_OnLock onLock;
    void (*report)(const char *status, void *context);
    void *context;
    sd_bus *system, *user;
    char *session;
    /// The delay inhibitor's fd (-1 when none is held), whether one was asked for and not answered yet, and
    /// whether the machine is between PrepareForSleep(true) and (false).
    int inhibitor, inhibitPending, sleeping;
    /// Why no inhibitor is held ("" when one is, or while sleeping).
    char inhibitError[160];
    /// Why the system or session bus part watches nothing ("" while it does).
    char systemError[160], userError[160];
};

/// Composes what is watched (or why not) and hands it to `report`.
static void CLogind_report(struct CLogind_Watch *w, char *status, size_t statusSize) {
    char system[320], user[200];
    if (w->system) {
        char sleep[200];
        if (w->inhibitor >= 0)
            snprintf(sleep, sizeof(sleep), "(delay inhibitor held)");
        else if (w->sleeping)
            snprintf(sleep, sizeof(sleep), "(delay inhibitor released for sleep)");
        else if (w->inhibitPending)
            snprintf(sleep, sizeof(sleep), "(asking for a delay inhibitor)");
        else
            snprintf(sleep, sizeof(sleep), "(no delay inhibitor: %s)", w->inhibitError);
        if (w->session)
            snprintf(system, sizeof(system), "watching systemd-logind: session %s locks, user switch, and sleep %s", w->session, sleep);
        else
            snprintf(system, sizeof(system), "watching systemd-logind: any session's lock (this process has no session, so no user switch), and sleep %s",
                     sleep);
    } else {
        snprintf(system, sizeof(system), "%s", w->systemError);
    }
    if (w->user)
        snprintf(user, sizeof(user), "screen saver on the session bus");
    else
        snprintf(user, sizeof(user), "%s", w->userError);
    snprintf(status, statusSize, "%s; %s", system, user);
}

static void CLogind_reportNow(struct CLogind_Watch *w) {
    char status[600];
    CLogind_report(w, status, sizeof(status));
    w->report(status, w->context);
}

/// Keeps the fd of an Inhibit reply (the message owns its own copy); close-on-exec, so that no child of the
/// agent can hold the inhibitor and delay sleep.
static int CLogind_keepInhibitor(struct CLogind_Watch *w, sd_bus_message *reply) {
    int fd = -1;
    int r = w->api.message_read(reply, "h", &fd);
    if (r < 0) {
        snprintf(w->inhibitError, sizeof(w->inhibitError), "logind's reply carried no file descriptor (%s)", strerror(-r));
        return r;
    }
    int kept = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (kept < 0) {
        snprintf(w->inhibitError, sizeof(w->inhibitError), "cannot keep its file descriptor (%s)", strerror(errno));
        return -errno;
    }
    if (w->sleeping) {
        // Answered after PrepareForSleep(true): holding it now would only hold up the sleep that was asked for.
        close(kept);
        return 0;
    }
    w->inhibitor = kept;
    w->inhibitError[0] = 0;
    return 0;
}

/// Takes the inhibitor before the loop starts, so that the first status already says whether it is held.
static void CLogind_takeInhibitor(struct CLogind_Watch *w) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int r = w->api.call_method(w->system, "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "Inhibit", &error,
                               &reply, "ssss", "sleep", "Passbox", "Lock the vault before sleeping", "delay");
    if (r >= 0)
        CLogind_keepInhibitor(w, reply);
    else
        snprintf(w->inhibitError, sizeof(w->inhibitError), "%s", error.message ? error.message : strerror(-r));
    w->api.error_free(&error);
    if (reply) w->api.message_unref(reply);
}

static int CLogind_inhibitorAnswered(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    struct CLogind_Watch *w = (struct CLogind_Watch *)userdata;
    w->inhibitPending = 0;
    if (w->api.message_is_error(m, NULL)) {
        const sd_bus_error *e = w->api.message_error(m);
        snprintf(w->inhibitError, sizeof(w->inhibitError), "%s", e && e->message ? e->message : "logind refused");
    } else {
        CLogind_keepInhibitor(w, m);
    }
    CLogind_reportNow(w);
    return 0;
}

/// After resume: asks again without blocking the loop (the reply is handled by CLogind_inhibitorAnswered).
static void CLogind_askForInhibitor(struct CLogind_Watch *w) {
    if (w->inhibitor >= 0 || w->inhibitPending) return;
    int r = w->api.call_method_async(w->system, NULL, "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "Inhibit",
                                     CLogind_inhibitorAnswered, w, "ssss", "sleep", "Passbox", "Lock the vault before sleeping", "delay");
    if (r >= 0)
        w->inhibitPending = 1;
    else
        snprintf(w->inhibitError, sizeof(w->inhibitError), "cannot ask systemd-logind (%s)", strerror(-r));
}

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
    if (w->api.message_read(m, "b", &starting) < 0) return 0;
    if (starting) {
        // onLock returns only once the agent is locked and the quick-unlock key dropped; only then may the
        // machine sleep.
        w->sleeping = 1;
        w->onLock(2, w->context);
        if (w->inhibitor >= 0) {
            close(w->inhibitor);
            w->inhibitor = -1;
        }
    } else {
        w->sleeping = 0;
        CLogind_askForInhibitor(w);
    }
    CLogind_reportNow(w);
    return 0;
}

/// PropertiesChanged(s interface, a{sv} changed, as invalidated) on the session's object: Active false
/// means another session took the seat (a user switch, or a switch to another console).
static int CLogind_sessionChanged(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    struct CLogind_Watch *w = (struct CLogind_Watch *)userdata;
    const char *interface = NULL;
    if (w->api.message_read(m, "s", &interface) < 0 || !interface || strcmp(interface, "org.freedesktop.login1.Session") != 0) return 0;
    if (w->api.message_enter(m, 'a', "{sv}") <= 0) return 0;
    while (w->api.message_enter(m, 'e', "sv") > 0) {
        const char *name = NULL;
        if (w->api.message_read(m, "s", &name) < 0 || !name) return 0;
        if (strcmp(name, "Active") == 0) {
            int active = 1;
            if (w->api.message_enter(m, 'v', "b") <= 0 || w->api.message_read(m, "b", &active) < 0) return 0;
            if (!active) {
                w->onLock(3, w->context);
                return 0;
            }
            if (w->api.message_exit(m) < 0) return 0;
        } else if (w->api.message_skip(m, "v") < 0) {
            return 0;
        }
        if (w->api.message_exit(m) < 0) return 0;
    }
    return 0;
}

static int CLogind_screenSaverChanged(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    struct CLogind_Watch *w = (struct CLogind_Watch *)userdata;
    int active = 0;
    if (w->api.message_read(m, "b", &active) >= 0 && active) w->onLock(4, w->context);
    return 0;
}

static void CLogind_startSystem(struct CLogind_Watch *w) {
    int r = w->api.open_system(&w->system);
    if (r < 0) {
        w->system = NULL;
        snprintf(w->systemError, sizeof(w->systemError), "systemd-logind unavailable: no system bus (%s)", strerror(-r));
        return;
    }
    char *path = NULL;
    // The session this process belongs to; an agent started outside one (a user service) may still have
    // inherited the id pam_systemd gave its login.
    if (w->api.pid_get_session(0, &w->session) < 0 || !w->session) {
        const char *inherited = getenv("XDG_SESSION_ID");
        w->session = inherited && *inherited ? strdup(inherited) : NULL;
    }
    if (w->session) w->api.path_encode("/org/freedesktop/login1/session", w->session, &path);
    r = w->api.match_signal(w->system, NULL, "org.freedesktop.login1", path, "org.freedesktop.login1.Session", "Lock", CLogind_sessionLocked, w);
    if (r >= 0)
        r = w->api.match_signal(w->system, NULL, "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep",
                                CLogind_prepareForSleep, w);
    // Without a session of its own every session's Active would match, and another user's switch is no
    // reason to lock.
    if (r >= 0 && path)
        r = w->api.match_signal(w->system, NULL, "org.freedesktop.login1", path, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                CLogind_sessionChanged, w);
    free(path);
    if (r < 0) {
        snprintf(w->systemError, sizeof(w->systemError), "systemd-logind unavailable: cannot subscribe to its signals (%s)", strerror(-r));
        w->system = w->api.unref(w->system);
        return;
    }
    CLogind_takeInhibitor(w);
}

static void CLogind_startUser(struct CLogind_Watch *w) {
    const char *address = getenv("DBUS_SESSION_BUS_ADDRESS");
    int r = w->api.open_user(&w->user);
    if (r < 0) {
        w->user = NULL;
        if (address && *address)
            snprintf(w->userError, sizeof(w->userError), "screen saver unavailable: no session bus (%s)", strerror(-r));
        else
            snprintf(w->userError, sizeof(w->userError), "screen saver unavailable: no session bus (DBUS_SESSION_BUS_ADDRESS is not set)");
        return;
    }
    // Any sender and object: KDE, Xfce, Cinnamon and MATE name theirs differently, and a forged signal can only
    // lock. GNOME Shell sends the same signal on its own interface.
    r = w->api.match_signal(w->user, NULL, NULL, NULL, "org.freedesktop.ScreenSaver", "ActiveChanged", CLogind_screenSaverChanged, w);
    if (r >= 0) r = w->api.match_signal(w->user, NULL, NULL, NULL, "org.gnome.ScreenSaver", "ActiveChanged", CLogind_screenSaverChanged, w);
    if (r < 0) {
        snprintf(w->userError, sizeof(w->userError), "screen saver unavailable: cannot subscribe on the session bus (%s)", strerror(-r));
        w->user = w->api.unref(w->user);
    }
}

/// Processes everything queued on one bus; on an error the bus is dropped and `why` says so.
static void CLogind_drain(struct CLogind_Watch *w, sd_bus **bus, char *why, size_t whySize, const char *gone) {
    for (;;) {
        int r = w->api.process(*bus, NULL);
        if (r == 0) return;
        if (r < 0) {
            snprintf(why, whySize, "%s (%s)", gone, strerror(-r));
            *bus = w->api.unref(*bus);
            if (bus == &w->system && w->inhibitor >= 0) {
                close(w->inhibitor);
                w->inhibitor = -1;
            }
            CLogind_reportNow(w);
            return;
        }
    }
}

static int CLogind_pollTimeout(struct CLogind_Watch *w, sd_bus *bus) {
    uint64_t at = 0;
    if (w->api.get_timeout(bus, &at) < 0 || at == UINT64_MAX) return -1;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t nowUsec = (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
    if (at <= nowUsec) return 0;
    uint64_t ms = (at - nowUsec + 999) / 1000;
    return ms > 60000 ? 60000 : (int)ms;
}

int CLogind_watch(CLogind_OnLock onLock, void *context, void (*report)(const char *status, void *context), char *status, size_t statusSize) {
    struct CLogind_Watch w;
    memset(&w, 0, sizeof(w));
    w.onLock = onLock;
    w.report = report;
    w.context = context;
    w.inhibitor = -1;
    void *h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(status, statusSize, "unavailable: libsystemd.so.0 could not be loaded");
        return -1;
    }
    *(void **)&w.api.open_system = dlsym(h, "sd_bus_open_system");
    *(void **)&w.api.open_user = dlsym(h, "sd_bus_open_user");
    *(void **)&w.api.match_signal = dlsym(h, "sd_bus_match_signal");
    *(void **)&w.api.call_method = dlsym(h, "sd_bus_call_method");
    *(void **)&w.api.call_method_async = dlsym(h, "sd_bus_call_method_async");
    *(void **)&w.api.process = dlsym(h, "sd_bus_process");
    *(void **)&w.api.get_fd = dlsym(h, "sd_bus_get_fd");
    *(void **)&w.api.get_events = dlsym(h, "sd_bus_get_events");
    *(void **)&w.api.get_timeout = dlsym(h, "sd_bus_get_timeout");
    *(void **)&w.api.message_read = dlsym(h, "sd_bus_message_read");
    *(void **)&w.api.message_enter = dlsym(h, "sd_bus_message_enter_container");
    *(void **)&w.api.message_exit = dlsym(h, "sd_bus_message_exit_container");
    *(void **)&w.api.message_skip = dlsym(h, "sd_bus_message_skip");
    *(void **)&w.api.message_is_error = dlsym(h, "sd_bus_message_is_method_error");
    *(void **)&w.api.message_error = dlsym(h, "sd_bus_message_get_error");
    *(void **)&w.api.message_unref = dlsym(h, "sd_bus_message_unref");
    *(void **)&w.api.error_free = dlsym(h, "sd_bus_error_free");
    *(void **)&w.api.unref = dlsym(h, "sd_bus_unref");
    *(void **)&w.api.pid_get_session = dlsym(h, "sd_pid_get_session");
    *(void **)&w.api.path_encode = dlsym(h, "sd_bus_path_encode");
    void **api = (void **)&w.api;
    for (size_t i = 0; i < sizeof(w.api) / sizeof(void *); i++) {
        if (!api[i]) {
            snprintf(status, statusSize, "unavailable: libsystemd.so.0 lacks sd-bus");
            return -1;
        }
    }
    CLogind_startSystem(&w);
    CLogind_startUser(&w);
    CLogind_reportNow(&w);
    while (w.system || w.user) {
        if (w.system) CLogind_drain(&w, &w.system, w.systemError, sizeof(w.systemError), "systemd-logind stopped: the system bus went away");
        if (w.user) CLogind_drain(&w, &w.user, w.userError, sizeof(w.userError), "screen saver stopped: the session bus went away");
        struct pollfd fds[2];
        int n = 0, timeout = -1;
        sd_bus *buses[2] = {w.system, w.user};
        for (int i = 0; i < 2; i++) {
            if (!buses[i]) continue;
            int events = w.api.get_events(buses[i]);
            fds[n].fd = w.api.get_fd(buses[i]);
            fds[n].events = (short)(events < 0 ? POLLIN : events);
            fds[n].revents = 0;
            n++;
            int t = CLogind_pollTimeout(&w, buses[i]);
            if (t >= 0 && (timeout < 0 || t < timeout)) timeout = t;
        }
        if (n > 0 && poll(fds, (nfds_t)n, timeout) < 0 && errno != EINTR) break;
    }
    CLogind_report(&w, status, statusSize);
    if (w.system) w.api.unref(w.system);
    if (w.user) w.api.unref(w.user);
    if (w.inhibitor >= 0) close(w.inhibitor);
    free(w.session);
    return -1;
}

// sd_notify(3) for a service systemd started with Type=notify: libsystemd loaded with dlopen, as above, only
// when $NOTIFY_SOCKET names a socket (otherwise nothing is loaded and 0 is returned).
int CLogind_notify(const char *state) {
    const char *socket = getenv("NOTIFY_SOCKET");
    if (socket == NULL || socket[0] == '\0') return 0;
    void *h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) return -1;
    int (*notify)(int, const char *) = NULL;
    *(void **)&notify = dlsym(h, "sd_notify");
    return notify == NULL ? -1 : notify(0, state);
}
