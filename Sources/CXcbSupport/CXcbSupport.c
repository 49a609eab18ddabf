// The X11 CLIPBOARD owner: loads libxcb with dlopen (the clipboard helper is its only user, and linking it
// would load it at every start of the CLI), owns the selection, answers TARGETS and SelectionRequests, and
// gives the selection up at the deadline with its own timestamp.
#include "CXcbSupport.h"

#include <xcb/xcb.h>
#include <dlfcn.h>
#include <poll.h>
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
    return a->connect && a->connection_has_error && a->disconnect && a->get_setup && a->setup_roots_iterator && a->generate_id &&
           a->create_window && a->intern_atom && a->intern_atom_reply && a->set_selection_owner && a->get_selection_owner &&
           a->get_selection_owner_reply && a->change_property && a->send_event && a->flush && a->poll_for_event && a->wait_for_event &&
           a->get_file_descriptor && a->get_maximum_request_length;
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

int CXcb_serveClipboard(const char *display, const unsigned char *value, uint32_t length, double seconds, void (*ready)(void *),
                        void *context, char *error, size_t errorSize) {
    struct CXcb_API a;
    memset(&a, 0, sizeof(a));
    if (!CXcb_load(&a)) {
        snprintf(error, errorSize, "libxcb.so.1 could not be loaded");
        return CXcb_FAILED;
    }
    xcb_connection_t *c = a.connect(display, NULL);
    if (!c || a.connection_has_error(c)) {
        snprintf(error, errorSize, "cannot open the X display %s", display ? display : "");
        if (c) a.disconnect(c);
        return CXcb_FAILED;
    }
    // Values that do not fit one request would need the INCR protocol; the caller uses xclip for those.
    if ((uint64_t)length + 64 > (uint64_t)a.get_maximum_request_length(c) * 4) {
        snprintf(error, errorSize, "the value is too large to serve directly");
        a.disconnect(c);
        return CXcb_FAILED;
    }
    xcb_screen_t *screen = a.setup_roots_iterator(a.get_setup(c)).data;
    xcb_window_t window = a.generate_id(c);
    uint32_t events = XCB_EVENT_MASK_PROPERTY_CHANGE;
    a.create_window(c, XCB_COPY_FROM_PARENT, window, screen->root, 0, 0, 1, 1, 0, XCB_WINDOW_CLASS_INPUT_ONLY, screen->root_visual,
                    XCB_CW_EVENT_MASK, &events);
    xcb_atom_t clipboard = CXcb_atom(&a, c, "CLIPBOARD"), targets = CXcb_atom(&a, c, "TARGETS"), utf8 = CXcb_atom(&a, c, "UTF8_STRING"),
               text = CXcb_atom(&a, c, "TEXT"), mime = CXcb_atom(&a, c, "text/plain;charset=utf-8"),
               hint = CXcb_atom(&a, c, "x-kde-passwordManagerHint");
    // A real server timestamp (ICCCM): a zero-length property append on our window reports the time. Owning
    // and later giving up the clipboard with that time means the give-up has no effect if another program
    // took the clipboard after us, however close the two are.
    a.change_property(c, XCB_PROP_MODE_APPEND, window, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8, 0, "");
    a.flush(c);
    xcb_timestamp_t acquired = XCB_CURRENT_TIME;
    xcb_generic_event_t *first;
    while ((first = a.wait_for_event(c))) {
        int done = (first->response_type & 0x7f) == XCB_PROPERTY_NOTIFY;
        if (done) acquired = ((xcb_property_notify_event_t *)first)->time;
        free(first);
        if (done) break;
    }
    a.set_selection_owner(c, window, clipboard, acquired);
    xcb_get_selection_owner_reply_t *owner = a.get_selection_owner_reply(c, a.get_selection_owner(c, clipboard), NULL);
    int owned = owner && owner->owner == window;
    free(owner);
    if (!owned) {
        snprintf(error, errorSize, "another program kept the clipboard");
        a.disconnect(c);
        return CXcb_FAILED;
    }
    a.flush(c);
    ready(context);
    double deadline = CXcb_now() + seconds;
    int outcome = CXcb_CLEARED;
    for (;;) {
        xcb_generic_event_t *event;
        int replaced = 0;
        while ((event = a.poll_for_event(c))) {
            uint8_t type = event->response_type & 0x7f;
            if (type == XCB_SELECTION_CLEAR) {
                replaced = 1;
            } else if (type == XCB_SELECTION_REQUEST) {
                xcb_selection_request_event_t *r = (xcb_selection_request_event_t *)event;
                xcb_atom_t property = r->property == XCB_ATOM_NONE ? r->target : r->property;
                if (r->target == targets) {
                    xcb_atom_t list[] = {targets, utf8, XCB_ATOM_STRING, text, mime, hint};
                    a.change_property(c, XCB_PROP_MODE_REPLACE, r->requestor, property, XCB_ATOM_ATOM, 32, 6, list);
                } else if (r->target == utf8 || r->target == XCB_ATOM_STRING || r->target == text || r->target == mime) {
                    a.change_property(c, XCB_PROP_MODE_REPLACE, r->requestor, property, r->target == text ? utf8 : r->target, 8, length, value);
                } else if (r->target == hint) {
                    a.change_property(c, XCB_PROP_MODE_REPLACE, r->requestor, property, hint, 8, 6, "secret");
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
                a.send_event(c, 0, r->requestor, XCB_EVENT_MASK_NO_EVENT, (const char *)&notify);
                a.flush(c);
            }
            free(event);
        }
        if (replaced) {
            outcome = CXcb_REPLACED;
            break;
        }
        if (a.connection_has_error(c)) {
            outcome = CXcb_REPLACED;
            break;
        }
        double left = deadline - CXcb_now();
        if (left <= 0) {
            a.set_selection_owner(c, XCB_ATOM_NONE, clipboard, acquired);
            a.flush(c);
            break;
        }
        struct pollfd p = {a.get_file_descriptor(c), POLLIN, 0};
        poll(&p, 1, (int)(left * 1000) + 1);
    }
    a.disconnect(c);
    return outcome;
}
