// The X11 CLIPBOARD owner: loads libxcb with dlopen (the clipboard helper is its only user, and linking it
// would load it at every start of the CLI), owns the selection, answers TARGETS and SelectionRequests, and
// gives the selection up at the deadline (or at SIGTERM, the agent's lock) with its own timestamp.
#define _GNU_SOURCE
#include "CXcbSupport.h"

#include <fcntl.h>
#include <unistd.h>

#include <xcb/xcb.h>
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct CXcb_API {
    xcb_connection_t *(*connect)(const char *, int *);
    int (*connection_has_error)(xcb_connection_t *);
    void (*disconnect)(xcb_connection_t *);
    const struct xcb_setup_t *(*get_setup)(xcb_connection_t *);
    xcb_screen_iterator_t (*setup_roots_iterator)(const xcb_setup_t *);
    uint32_t (*generate_id)(xcb_connection_t *);
    xcb_void_cookie_t (*create_window)(xcb_connection_t *, uint8_t, xcb_window_t, xcb_window_t, int16_t, int16_t, uint16_t, uint16_t, uint16_t,
                                       uint16_t, xcb_visualid_t, uint32_t, const void *);
    xcb_intern_atom_cookie_t (*intern_atom)(xcb_connection_t *, uint8_t, uint16_t, const char *);
    xcb_intern_atom_reply_t *(*intern_atom_reply)(xcb_connection_t *, xcb_intern_atom_cookie_t, xcb_generic_error_t **);
    xcb_void_cookie_t (*set_selection_owner)(xcb_connection_t *, xcb_window_t, xcb_atom_t, xcb_timestamp_t);
    xcb_get_selection_owner_cookie_t (*get_selection_owner)(xcb_connection_t *, xcb_atom_t);
    xcb_get_selection_owner_reply_t *(*get_selection_owner_reply)(xcb_connection_t *, xcb_get_selection_owner_cookie_t, xcb_generic_error_t **);
    xcb_void_cookie_t (*change_property)(xcb_connection_t *, uint8_t, xcb_window_t, xcb_atom_t, xcb_atom_t, uint8_t, uint32_t, const void *);
    xcb_void_cookie_t (*send_event)(xcb_connection_t *, uint8_t, xcb_window_t, uint32_t, const char *);
    int (*flush)(xcb_connection_t *);
    xcb_generic_event_t *(*poll_for_event)(xcb_connection_t *);
    xcb_generic_event_t *(*wait_for_event)(xcb_connection_t *);
    int (*get_file_descriptor)(xcb_connection_t *);
    uint32_t (*get_maximum_request_length)(xcb_connection_t *);
    xcb_void_cookie_t (*convert_selection)(xcb_connection_t *, xcb_window_t, xcb_atom_t, xcb_atom_t, xcb_atom_t, xcb_timestamp_t);
    xcb_get_property_cookie_t (*get_property)(xcb_connection_t *, uint8_t, xcb_window_t, xcb_atom_t, xcb_atom_t, uint32_t, uint32_t);
    xcb_get_property_reply_t *(*get_property_reply)(xcb_connection_t *, xcb_get_property_cookie_t, xcb_generic_error_t **);
    void *(*get_property_value)(const xcb_get_property_reply_t *);
    int (*get_property_value_length)(const xcb_get_property_reply_t *);
};

static int CXcb_load(struct CXcb_API *a) {
    void *h = dlopen("libxcb.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return 0;
    *(void **)&a->connect = dlsym(h, "xcb_connect");
    *(void **)&a->connection_has_error = dlsym(h, "xcb_connection_has_error");
    *(void **)&a->disconnect = dlsym(h, "xcb_disconnect");
    *(void **)&a->get_setup = dlsym(h, "xcb_get_setup");
    *(void **)&a->setup_roots_iterator = dlsym(h, "xcb_setup_roots_iterator");
    *(void **)&a->generate_id = dlsym(h, "xcb_generate_id");
    *(void **)&a->create_window = dlsym(h, "xcb_create_window");
    *(void **)&a->intern_atom = dlsym(h, "xcb_intern_atom");
    *(void **)&a->intern_atom_reply = dlsym(h, "xcb_intern_atom_reply");
    *(void **)&a->set_selection_owner = dlsym(h, "xcb_set_selection_owner");
    *(void **)&a->get_selection_owner = dlsym(h, "xcb_get_selection_owner");
    *(void **)&a->get_selection_owner_reply = dlsym(h, "xcb_get_selection_owner_reply");
    *(void **)&a->change_property = dlsym(h, "xcb_change_property");
    *(void **)&a->send_event = dlsym(h, "xcb_send_event");
    *(void **)&a->flush = dlsym(h, "xcb_flush");
    *(void **)&a->poll_for_event = dlsym(h, "xcb_poll_for_event");
    *(void **)&a->wait_for_event = dlsym(h, "xcb_wait_for_event");
    *(void **)&a->get_file_descriptor = dlsym(h, "xcb_get_file_descriptor");
    *(void **)&a->get_maximum_request_length = dlsym(h, "xcb_get_maximum_request_length");
    *(void **)&a->convert_selection = dlsym(h, "xcb_convert_selection");
    *(void **)&a->get_property = dlsym(h, "xcb_get_property");
    *(void **)&a->get_property_reply = dlsym(h, "xcb_get_property_reply");
    *(void **)&a->get_property_value = dlsym(h, "xcb_get_property_value");
    *(void **)&a->get_property_value_length = dlsym(h, "xcb_get_property_value_length");
    return a->connect && a->connection_has_error && a->disconnect && a->get_setup && a->setup_roots_iterator && a->generate_id &&
           a->create_window && a->intern_atom && a->intern_atom_reply && a->set_selection_owner && a->get_selection_owner &&
           a->get_selection_owner_reply && a->change_property && a->send_event && a->flush && a->poll_for_event && a->wait_for_event &&
           a->get_file_descriptor && a->get_maximum_request_length && a->convert_selection && a->get_property && a->get_property_reply &&
           a->get_property_value && a->get_property_value_length;
}

static xcb_atom_t CXcb_atom(struct CXcb_API *a, xcb_connection_t *c, const char *name) {
    xcb_intern_atom_reply_t *r = a->intern_atom_reply(c, a->intern_atom(c, 0, (uint16_t)strlen(name), name), NULL);
    xcb_atom_t atom = r ? r->atom : XCB_ATOM_NONE;
    free(r);
    return atom;
}

static double CXcb_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

// Loads libxcb and opens `display`; NULL with `error` set when either fails.
static xcb_connection_t *CXcb_open(struct CXcb_API *a, const char *display, char *error, size_t errorSize) {
    memset(a, 0, sizeof(*a));
    if (!CXcb_load(a)) {
        snprintf(error, errorSize, "libxcb.so.1 could not be loaded");
        return NULL;
    }
    xcb_connection_t *c = a->connect(display, NULL);
    if (!c || a->connection_has_error(c)) {
        snprintf(error, errorSize, "cannot open the X display %s", display ? display : "");
        if (c) a->disconnect(c);
        return NULL;
    }
    return c;
}

// A 1×1 input-only window of our own, and a real server timestamp (ICCCM): a zero-length property append on it
// reports the time.
static xcb_window_t CXcb_window(struct CXcb_API *a, xcb_connection_t *c, xcb_timestamp_t *now) {
    xcb_screen_t *screen = a->setup_roots_iterator(a->get_setup(c)).data;
    xcb_window_t window = a->generate_id(c);
    uint32_t events = XCB_EVENT_MASK_PROPERTY_CHANGE;
    a->create_window(c, XCB_COPY_FROM_PARENT, window, screen->root, 0, 0, 1, 1, 0, XCB_WINDOW_CLASS_INPUT_ONLY, screen->root_visual,
                     XCB_CW_EVENT_MASK, &events);
    a->change_property(c, XCB_PROP_MODE_APPEND, window, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8, 0, "");
    a->flush(c);
    *now = XCB_CURRENT_TIME;
    xcb_generic_event_t *event;
    while ((event = a->wait_for_event(c))) {
        int done = (event->response_type & 0x7f) == XCB_PROPERTY_NOTIFY;
        if (done) *now = ((xcb_property_notify_event_t *)event)->time;
        free(event);
        if (done) break;
    }
    return window;
}

/// What the owner offers: the atoms it answers for and the value.
struct CXcb_Offer {
    xcb_atom_t targets, utf8, text, mime, hint;
    const unsigned char *value;
    uint32_t length;
};

/// Answers one SelectionRequest: with the value in the type asked for, or (no offer, or a type not offered) with
/// a refusal. Every request gets its SelectionNotify: a requester without a timeout (xclip) would wait for it forever.
static void CXcb_answer(struct CXcb_API *a, xcb_connection_t *c, const xcb_selection_request_event_t *r, const struct CXcb_Offer *offer) {
    xcb_atom_t property = r->property == XCB_ATOM_NONE ? r->target : r->property;
    if (!offer) {
        property = XCB_ATOM_NONE;
    } else if (r->target == offer->targets) {
        xcb_atom_t list[] = {offer->targets, offer->utf8, XCB_ATOM_STRING, offer->text, offer->mime, offer->hint};
        a->change_property(c, XCB_PROP_MODE_REPLACE, r->requestor, property, XCB_ATOM_ATOM, 32, 6, list);
    } else if (r->target == offer->utf8 || r->target == XCB_ATOM_STRING || r->target == offer->text || r->target == offer->mime) {
        a->change_property(c, XCB_PROP_MODE_REPLACE, r->requestor, property, r->target == offer->text ? offer->utf8 : r->target, 8, offer->length,
                           offer->value);
    } else if (r->target == offer->hint) {
        a->change_property(c, XCB_PROP_MODE_REPLACE, r->requestor, property, offer->hint, 8, 6, "secret");
    } else {
        property = XCB_ATOM_NONE;
    }
    xcb_selection_notify_event_t notify;
    memset(&notify, 0, sizeof(notify));
    notify.response_type = XCB_SELECTION_NOTIFY;
    notify.time = r->time;
    notify.requestor = r->requestor;
    notify.selection = r->selection;
    notify.target = r->target;
    notify.property = property;
    a->send_event(c, 0, r->requestor, XCB_EVENT_MASK_NO_EVENT, (const char *)&notify);
}

/// Handles every event already read or waiting on the connection: requests are answered (refused without an
/// offer); whether another program took the selection. Drained again after each flush that sent answers: a
/// flush may read what came meanwhile into the connection's queue, where a poll of the socket would not see it.
static int CXcb_handleEvents(struct CXcb_API *a, xcb_connection_t *c, const struct CXcb_Offer *offer) {
    int replaced = 0, handled = 1;
    while (handled) {
        handled = 0;
        xcb_generic_event_t *event;
        while ((event = a->poll_for_event(c))) {
            uint8_t type = event->response_type & 0x7f;
            if (type == XCB_SELECTION_CLEAR) {
                replaced = 1;
            } else if (type == XCB_SELECTION_REQUEST) {
                CXcb_answer(a, c, (const xcb_selection_request_event_t *)event, offer);
                handled = 1;
            }
            free(event);
        }
        a->flush(c);
    }
    return replaced;
}

/// A round trip: once its reply is here, the server has taken everything sent before it (the answers are not
/// lost with the connection) and every event it sent before it is in the queue.
static void CXcb_roundTrip(struct CXcb_API *a, xcb_connection_t *c, xcb_atom_t selection) {
    free(a->get_selection_owner_reply(c, a->get_selection_owner(c, selection), NULL));
}

/// SIGTERM's mark: a byte written to this pipe's write end, which the serving loop polls beside the connection
/// (whichever thread the signal comes to, and whenever, the poll sees it).
static volatile sig_atomic_t CXcb_stopWriteEnd = -1;
static void CXcb_stop(int signal) {
    (void)signal;
    int end = CXcb_stopWriteEnd;
    if (end >= 0) {
        ssize_t ignored = write(end, "x", 1);
        (void)ignored;
    }
}

int CXcb_serveClipboard(const char *display, const unsigned char *value, uint32_t length, double seconds, void (*ready)(void *),
                        void *context, char *error, size_t errorSize) {
    if (!(seconds >= 0 && seconds <= 86400)) {
        snprintf(error, errorSize, "the time to serve must be 0 to 86,400 seconds");
        return CXcb_FAILED;
    }
    struct CXcb_API a;
    xcb_connection_t *c = CXcb_open(&a, display, error, errorSize);
    if (!c) return CXcb_FAILED;
    // Values that do not fit one request would need the INCR protocol; the caller uses xclip for those.
    if ((uint64_t)length + 64 > (uint64_t)a.get_maximum_request_length(c) * 4) {
        snprintf(error, errorSize, "the value is too large to serve directly");
        a.disconnect(c);
        return CXcb_FAILED;
    }
    // SIGTERM (the agent locking) ends the serving as the deadline does, not the process mid-answer. The pipe
    // exists before the clipboard is owned, so no request can come before the loop that answers it.
    int stopPipe[2];
    if (pipe2(stopPipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        snprintf(error, errorSize, "cannot create a pipe");
        a.disconnect(c);
        return CXcb_FAILED;
    }
    // Owning and later giving up the clipboard with the window's timestamp means the give-up has no effect if
    // another program took the clipboard after us, however close the two are.
    xcb_timestamp_t acquired;
    xcb_window_t window = CXcb_window(&a, c, &acquired);
    xcb_atom_t clipboard = CXcb_atom(&a, c, "CLIPBOARD");
    struct CXcb_Offer offer = {CXcb_atom(&a, c, "TARGETS"), CXcb_atom(&a, c, "UTF8_STRING"), CXcb_atom(&a, c, "TEXT"),
                               CXcb_atom(&a, c, "text/plain;charset=utf-8"), CXcb_atom(&a, c, "x-kde-passwordManagerHint"), value, length};
    a.set_selection_owner(c, window, clipboard, acquired);
    xcb_get_selection_owner_reply_t *owner = a.get_selection_owner_reply(c, a.get_selection_owner(c, clipboard), NULL);
    int owned = owner && owner->owner == window;
    free(owner);
    if (!owned) {
        snprintf(error, errorSize, "another program kept the clipboard");
        close(stopPipe[0]);
        close(stopPipe[1]);
        a.disconnect(c);
        return CXcb_FAILED;
    }
    a.flush(c);
    CXcb_stopWriteEnd = stopPipe[1];
    struct sigaction stop, previous;
    memset(&stop, 0, sizeof(stop));
    stop.sa_handler = CXcb_stop;
    sigemptyset(&stop.sa_mask);
    stop.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &stop, &previous);
    ready(context);
    double deadline = CXcb_now() + seconds;
    int outcome = CXcb_CLEARED;
    for (;;) {
        // The stop first: a request waiting when the lock came is refused, never answered after it.
        double left = deadline - CXcb_now();
        char mark;
        if (left <= 0 || read(stopPipe[0], &mark, 1) == 1) {
            a.set_selection_owner(c, XCB_ATOM_NONE, clipboard, acquired);
            // Every request the server sent before it took the selection back is then here, and refused, so no
            // program that asked at the last moment waits for an answer that never comes.
            CXcb_roundTrip(&a, c, clipboard);
            if (CXcb_handleEvents(&a, c, NULL)) outcome = CXcb_REPLACED;
            break;
        }
        if (CXcb_handleEvents(&a, c, &offer) || a.connection_has_error(c)) {
            outcome = CXcb_REPLACED;
            break;
        }
        struct pollfd p[2] = {{a.get_file_descriptor(c), POLLIN, 0}, {stopPipe[0], POLLIN, 0}};
        poll(p, 2, (int)(left * 1000) + 1);
    }
    if (!a.connection_has_error(c)) CXcb_roundTrip(&a, c, clipboard);
    sigaction(SIGTERM, &previous, NULL);
    CXcb_stopWriteEnd = -1;
    close(stopPipe[0]);
    close(stopPipe[1]);
    a.disconnect(c);
    return outcome;
}

int CXcb_clearPrimaryIf(const char *display, int (*matches)(const unsigned char *, uint32_t, void *), void *context, double seconds,
                        char *error, size_t errorSize) {
    struct CXcb_API a;
    xcb_connection_t *c = CXcb_open(&a, display, error, errorSize);
    if (!c) return CXcb_FAILED;
    xcb_timestamp_t asked;
    xcb_window_t window = CXcb_window(&a, c, &asked);
    xcb_atom_t primary = XCB_ATOM_PRIMARY, utf8 = CXcb_atom(&a, c, "UTF8_STRING"), into = CXcb_atom(&a, c, "PASSBOX_PRIMARY");
    int outcome = CXcb_KEPT;
    // The selection as it was at `asked` (no owner: nothing to clear).
    xcb_get_selection_owner_reply_t *owner = a.get_selection_owner_reply(c, a.get_selection_owner(c, primary), NULL);
    int owned = owner && owner->owner != XCB_ATOM_NONE;
    xcb_window_t reader = owned ? owner->owner : XCB_ATOM_NONE;
    free(owner);
    if (owned) {
        a.convert_selection(c, window, primary, utf8, into, asked);
        a.flush(c);
        double deadline = CXcb_now() + seconds;
        int answered = 0, converted = 0;
        while (!answered) {
            xcb_generic_event_t *event;
            while (!answered && (event = a.poll_for_event(c))) {
                if ((event->response_type & 0x7f) == XCB_SELECTION_NOTIFY) {
                    answered = 1;
                    converted = ((xcb_selection_notify_event_t *)event)->property != XCB_ATOM_NONE;
                }
                free(event);
            }
            double left = deadline - CXcb_now();
            if (answered || left <= 0 || a.connection_has_error(c)) break;
            struct pollfd p = {a.get_file_descriptor(c), POLLIN, 0};
            poll(&p, 1, (int)(left * 1000) + 1);
        }
        if (converted) {
            // At most 1 MiB (a larger selection would come in INCR steps: then it is not a value Passbox showed).
            xcb_get_property_reply_t *value = a.get_property_reply(c, a.get_property(c, 1, window, into, XCB_GET_PROPERTY_TYPE_ANY, 0, 1 << 18), NULL);
            if (value && value->type == utf8 && value->format == 8 && value->bytes_after == 0) {
                int length = a.get_property_value_length(value);
                if (matches((const unsigned char *)a.get_property_value(value), (uint32_t)(length < 0 ? 0 : length), context)) {
                    // Only while the window whose selection was read still owns it: a selection another program
                    // made meanwhile is not touched. (The server's current time, not `asked`: the time an event
                    // reports can lag behind the owner's, and a SetSelectionOwner older than the owner's is ignored.)
                    xcb_get_selection_owner_reply_t *now = a.get_selection_owner_reply(c, a.get_selection_owner(c, primary), NULL);
                    int same = now && now->owner == reader;
                    free(now);
                    if (same) {
                        a.set_selection_owner(c, XCB_ATOM_NONE, primary, XCB_CURRENT_TIME);
                        // A round trip before leaving: without it the request could be lost with the connection
                        // (seen on Xvfb), and it says whether the selection is empty now.
                        xcb_get_selection_owner_reply_t *after = a.get_selection_owner_reply(c, a.get_selection_owner(c, primary), NULL);
                        int cleared = after && after->owner == XCB_ATOM_NONE;
                        free(after);
                        if (cleared) outcome = CXcb_CLEARED;
                    }
                }
            }
            free(value);
        }
    }
    a.disconnect(c);
    return outcome;
}
