#define _DEFAULT_SOURCE
// The HTTP server's C side (see CMicroHTTPDSupport.h): loads libmicrohttpd with dlopen once, starts a
// thread-pool daemon with limits, collects each request's body within its limit, calls one Swift callback
// a request and queues its answer.
#include "CMicroHTTPDSupport.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct CMHD_API {
    struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *, MHD_AccessHandlerCallback, void *, ...);
    void (*stop_daemon)(struct MHD_Daemon *);
    struct MHD_Response *(*create_response_from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
    enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *, const char *);
    enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
    void (*destroy_response)(struct MHD_Response *);
    const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...);
    const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
    int (*get_connection_values)(struct MHD_Connection *, enum MHD_ValueKind, MHD_KeyValueIterator, void *);
    const char *(*lookup_connection_value)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
    void (*suspend_connection)(struct MHD_Connection *);
    void (*resume_connection)(struct MHD_Connection *);
    enum MHD_Result (*set_connection_option)(struct MHD_Connection *, enum MHD_CONNECTION_OPTION, ...);
    int loaded;
};

static struct CMHD_API api;

static void CMHD_loadOnce(void) {
    void *h = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    api.start_daemon = (struct MHD_Daemon * (*)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *, MHD_AccessHandlerCallback, void *, ...)) dlsym(h, "MHD_start_daemon");
    api.stop_daemon = (void (*)(struct MHD_Daemon *))dlsym(h, "MHD_stop_daemon");
    api.create_response_from_buffer = (struct MHD_Response * (*)(size_t, void *, enum MHD_ResponseMemoryMode)) dlsym(h, "MHD_create_response_from_buffer");
    api.add_response_header = (enum MHD_Result(*)(struct MHD_Response *, const char *, const char *))dlsym(h, "MHD_add_response_header");
    api.queue_response = (enum MHD_Result(*)(struct MHD_Connection *, unsigned int, struct MHD_Response *))dlsym(h, "MHD_queue_response");
    api.destroy_response = (void (*)(struct MHD_Response *))dlsym(h, "MHD_destroy_response");
    api.get_connection_info = (const union MHD_ConnectionInfo *(*)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...))dlsym(h, "MHD_get_connection_info");
    api.get_daemon_info = (const union MHD_DaemonInfo *(*)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...))dlsym(h, "MHD_get_daemon_info");
    api.get_connection_values = (int (*)(struct MHD_Connection *, enum MHD_ValueKind, MHD_KeyValueIterator, void *))dlsym(h, "MHD_get_connection_values");
    api.lookup_connection_value = (const char *(*)(struct MHD_Connection *, enum MHD_ValueKind, const char *))dlsym(h, "MHD_lookup_connection_value");
    api.suspend_connection = (void (*)(struct MHD_Connection *))dlsym(h, "MHD_suspend_connection");
    api.resume_connection = (void (*)(struct MHD_Connection *))dlsym(h, "MHD_resume_connection");
    api.set_connection_option = (enum MHD_Result(*)(struct MHD_Connection *, enum MHD_CONNECTION_OPTION, ...))dlsym(h, "MHD_set_connection_option");
    if (!api.start_daemon || !api.stop_daemon || !api.create_response_from_buffer || !api.add_response_header ||
        !api.queue_response || !api.destroy_response || !api.get_connection_info || !api.get_daemon_info ||
        !api.get_connection_values || !api.lookup_connection_value || !api.suspend_connection || !api.resume_connection ||
        !api.set_connection_option)
        return;
    api.loaded = 1;
}

int CMHD_available(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, CMHD_loadOnce);
    return api.loaded;
}

// One open connection, while the server keeps an untrusted pool (`untrustedConnections` > 0): its socket, and
// its place in the list of connections no answer has trusted yet.
struct CMHD_Connection {
    struct CMHD_Connection *older, *newer;
    int fd;
    int trusted;  // an answer trusted it: out of the list, with the full timeout
    int evicted;  // closed to make room: out of the list, its socket shut down
    int busy;     // requests of it being read or answered: an idle one is closed for room first
};

struct CMHD_Server {
    struct MHD_Daemon *daemon;
    CMHD_Limits limits;
    CMHD_Handler handler;
    void *context;
    atomic_int pending;   // requests handed to the handler and not answered yet (their connections suspended)
    atomic_int stopping;  // new requests are answered 503
    pthread_mutex_t poolLock;  // guards the untrusted list and every entry's flags
    struct CMHD_Connection *oldest, *newest;
    unsigned untrusted;
};

// Takes an entry out of the untrusted list (under `poolLock`).
static void CMHD_unlist(struct CMHD_Server *server, struct CMHD_Connection *entry) {
    if (entry->older) entry->older->newer = entry->newer; else server->oldest = entry->newer;
    if (entry->newer) entry->newer->older = entry->older; else server->newest = entry->older;
    entry->older = entry->newer = NULL;
    server->untrusted--;
}

// A connection opens: it joins the untrusted list, and when the list is full the oldest in it is closed. Its
// socket is shut down here, under the lock; its own thread then reads the end and closes it. A connection's
// entry leaves the list (under the same lock) before libmicrohttpd closes its socket, so the descriptor shut
// down is always still that connection's.
static void CMHD_notify(void *cls, struct MHD_Connection *connection, void **socketContext, enum MHD_ConnectionNotificationCode code) {
    struct CMHD_Server *server = cls;
    if (server->limits.untrustedConnections == 0) return;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        struct CMHD_Connection *entry = calloc(1, sizeof *entry);
        *socketContext = entry;
        if (!entry) return;
        const union MHD_ConnectionInfo *info = api.get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        entry->fd = info ? info->connect_fd : -1;
        pthread_mutex_lock(&server->poolLock);
        while (server->untrusted >= server->limits.untrustedConnections && server->oldest) {
            // The oldest idle one goes first; only when every one is in the middle of a request, the oldest.
            // (A browser's new connection sends its request at once, so it is seldom the one closed.)
            struct CMHD_Connection *old = server->oldest;
            for (struct CMHD_Connection *e = server->oldest; e; e = e->newer) {
                if (!e->busy) { old = e; break; }
            }
            CMHD_unlist(server, old);
            old->evicted = 1;
            if (old->fd >= 0) shutdown(old->fd, SHUT_RDWR);
        }
        entry->older = server->newest;
        if (server->newest) server->newest->newer = entry; else server->oldest = entry;
        server->newest = entry;
        server->untrusted++;
        pthread_mutex_unlock(&server->poolLock);
        return;
    }
    struct CMHD_Connection *entry = *socketContext;
    if (!entry) return;
    pthread_mutex_lock(&server->poolLock);
    if (!entry->trusted && !entry->evicted) CMHD_unlist(server, entry);
    pthread_mutex_unlock(&server->poolLock);
    free(entry);
    *socketContext = NULL;
}

// A request of the connection begins (+1) or ends (-1).
static void CMHD_busy(struct CMHD_Server *server, struct MHD_Connection *connection, int delta) {
    if (server->limits.untrustedConnections == 0) return;
    const union MHD_ConnectionInfo *info = api.get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct CMHD_Connection *entry = info ? info->socket_context : NULL;
    if (!entry) return;
    pthread_mutex_lock(&server->poolLock);
    entry->busy += delta;
    pthread_mutex_unlock(&server->poolLock);
}

// An answer trusted its request (it carried the session): the connection leaves the untrusted list and gets the
// full idle timeout. Runs on the connection's own thread.
static void CMHD_trust(struct CMHD_Server *server, struct MHD_Connection *connection) {
    if (server->limits.untrustedConnections == 0) return;
    const union MHD_ConnectionInfo *info = api.get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct CMHD_Connection *entry = info ? info->socket_context : NULL;
    if (!entry) return;
    pthread_mutex_lock(&server->poolLock);
    int evicted = entry->evicted;
    if (!entry->trusted && !evicted) {
        CMHD_unlist(server, entry);
        entry->trusted = 1;
    }
    pthread_mutex_unlock(&server->poolLock);
    if (!evicted) api.set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, server->limits.timeoutSeconds);
}

// Per request: the body read so far, and whether an answer is already queued (a body over the limit).
struct CMHD_State {
    uint8_t *body;
    size_t length, capacity;
    int answered;
    int late;                 // the body completes past the time limit: answered 408 at its end
    size_t declared;          // Content-Length, or SIZE_MAX when none was given
    size_t received;          // bytes of the body seen (kept or not)
    struct timespec started;  // when the headers were complete
    int handed;               // given to the handler; the connection is suspended until `ready`
    int counted;              // counted in the server's `pending` until the request completes
    int ready;                // the handler's answer is in `response`
    int busy;                 // counted busy on its connection until the request completes
    CMHD_Response response;
    struct MHD_Connection *connection;
    struct CMHD_Server *server;
};

// Whether the request's body has been arriving for longer than the limit (a client trickling bytes to hold a
// worker and a connection: the idle timeout alone never ends it).
static int CMHD_late(const struct CMHD_Server *server, const struct CMHD_State *state) {
    if (server->limits.requestSeconds == 0) return 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double elapsed = (double)(now.tv_sec - state->started.tv_sec) + (double)(now.tv_nsec - state->started.tv_nsec) / 1e9;
    return elapsed > (double)server->limits.requestSeconds;
}

// A body may hold a password or revealed values: zeroed before its memory goes back.
static void CMHD_wipe_free(void *buffer, size_t length) {
    if (buffer) explicit_bzero(buffer, length);
    free(buffer);
}

static void CMHD_drop(struct CMHD_State *state) {
    state->answered = 1;
    CMHD_wipe_free(state->body, state->capacity);
    state->body = NULL;
    state->length = state->capacity = 0;
}

// `headers` holds `count` pairs, each a name and a value ended by NUL.
static enum MHD_Result CMHD_queue(struct MHD_Connection *connection, unsigned int status, const void *body, size_t length,
                                  const char *headers, int count) {
    struct MHD_Response *response = api.create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!response) return MHD_NO;
    const char *p = headers;
    for (int i = 0; p && i < count; i++) {
        const char *name = p;
        const char *value = name + strlen(name) + 1;
        api.add_response_header(response, name, value);
        p = value + strlen(value) + 1;
    }
    enum MHD_Result result = api.queue_response(connection, status, response);
    api.destroy_response(response);
    return result;
}

static enum MHD_Result CMHD_tooLarge(struct MHD_Connection *connection, struct CMHD_State *state) {
    static const char body[] = "{\"error\":\"bodyTooLarge\"}";
    static const char headers[] = "Content-Type\0application/json\0Connection\0close";
    CMHD_drop(state);
    return CMHD_queue(connection, MHD_HTTP_CONTENT_TOO_LARGE, body, sizeof body - 1, headers, 2);
}

static enum MHD_Result CMHD_tooSlow(struct MHD_Connection *connection, struct CMHD_State *state) {
    static const char body[] = "{\"code\":\"requestTimeout\",\"facts\":{}}";
    static const char headers[] = "Content-Type\0application/json\0Connection\0close";
    CMHD_drop(state);
    return CMHD_queue(connection, MHD_HTTP_REQUEST_TIMEOUT, body, sizeof body - 1, headers, 2);
}

static enum MHD_Result CMHD_access(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                   const char *version, const char *upload, size_t *uploadSize, void **requestContext) {
    (void)version;
    struct CMHD_Server *server = cls;
    struct CMHD_State *state = *requestContext;
    if (!state) {
        state = calloc(1, sizeof *state);
        if (!state) return MHD_NO;
        *requestContext = state;
        state->server = server;
        state->busy = 1;
        CMHD_busy(server, connection, 1);
        clock_gettime(CLOCK_MONOTONIC, &state->started);
        // A declared length over the limit is answered before any of the body is read.
        const char *declared = api.lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        state->declared = declared ? (size_t)strtoull(declared, NULL, 10) : SIZE_MAX;
        if (declared && strtoull(declared, NULL, 10) > server->limits.maximumBody) return CMHD_tooLarge(connection, state);
        return MHD_YES;
    }
    if (*uploadSize > 0) {
        size_t size = *uploadSize;
        *uploadSize = 0;
        state->received += size;
        if (state->answered || state->late) return MHD_YES;
        // Still arriving past the time limit. A chunk that completes the declared body is taken (and dropped)
        // so the end can be answered 408; otherwise libmicrohttpd cannot answer in the middle of a body, so
        // the connection is closed and what was read is freed.
        if (CMHD_late(server, state)) {
            int complete = state->declared != SIZE_MAX && state->received >= state->declared;
            CMHD_wipe_free(state->body, state->capacity);
            state->body = NULL;
            state->length = state->capacity = 0;
            if (complete) {
                state->late = 1;
                return MHD_YES;
            }
            state->answered = 1;
            return MHD_NO;
        }
        // A body sent without a declared length (chunked) that passes the limit: libmicrohttpd cannot answer in
        // the middle of a body, so the connection is closed; nothing more of it is read or kept.
        if (size > server->limits.maximumBody - state->length) return MHD_NO;
        if (state->length + size > state->capacity) {
            size_t capacity = state->capacity ? state->capacity : 4096;
            while (capacity < state->length + size) capacity *= 2;
            if (capacity > server->limits.maximumBody) capacity = server->limits.maximumBody;
            // Grown by copying, so the old buffer can be zeroed (realloc would leave it behind unwiped).
            uint8_t *grown = malloc(capacity);
            if (!grown) return MHD_NO;
            if (state->body) memcpy(grown, state->body, state->length);
            CMHD_wipe_free(state->body, state->capacity);
            state->body = grown;
            state->capacity = capacity;
        }
        memcpy(state->body + state->length, upload, size);
        state->length += size;
        return MHD_YES;
    }
    if (state->handed) {
        // Resumed: the handler's answer is ready.
        if (!state->ready) return MHD_YES;
        state->handed = 0;
        state->answered = 1;
        if (state->response.trusted) CMHD_trust(cls, connection);
        enum MHD_Result result = CMHD_queue(connection, (unsigned)state->response.status, state->response.body, state->response.bodyLength,
                                            state->response.headers, state->response.headerCount);
        CMHD_wipe_free(state->response.body, state->response.bodyLength);
        free(state->response.headers);
        state->response.body = NULL;
        state->response.headers = NULL;
        return result;
    }
    if (state->answered) return MHD_YES;
    // The whole body came, but too late: answered 408 without calling the handler.
    if (state->late || CMHD_late(server, state)) return CMHD_tooSlow(connection, state);
    // Counted before `stopping` is read, so a stop either sees this request or this request sees the stop.
    atomic_fetch_add(&server->pending, 1);
    state->counted = 1;
    state->server = server;
    if (atomic_load(&server->stopping)) {
        static const char body[] = "{\"code\":\"internalError\",\"facts\":{\"reason\":\"stopping\"}}";
        static const char headers[] = "Content-Type\0application/json\0Connection\0close";
        CMHD_drop(state);
        return CMHD_queue(connection, MHD_HTTP_SERVICE_UNAVAILABLE, body, sizeof body - 1, headers, 2);
    }

    char address[INET6_ADDRSTRLEN] = "";
    const union MHD_ConnectionInfo *info = api.get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info && info->client_addr) {
        const struct sockaddr *sa = info->client_addr;
        if (sa->sa_family == AF_INET)
            inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, address, sizeof address);
        else if (sa->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, address, sizeof address);
    }
    // The connection is suspended before the handler may answer (from another thread), so the answer's
    // resume always follows the suspend.
    state->handed = 1;
    state->ready = 0;
    state->connection = connection;
    api.suspend_connection(connection);
    CMHD_Request request = {method, url, state->body, state->length, address, connection};
    server->handler(server->context, &request, state);
    return MHD_YES;
}

void CMHD_answer(void *token, CMHD_Response *response) {
    struct CMHD_State *state = token;
    state->response = *response;
    response->body = NULL;
    response->headers = NULL;
    state->ready = 1;
    api.resume_connection(state->connection);
}

static void CMHD_completed(void *cls, struct MHD_Connection *connection, void **requestContext, enum MHD_RequestTerminationCode code) {
    (void)cls;
    (void)connection;
    (void)code;
    struct CMHD_State *state = *requestContext;
    if (!state) return;
    if (state->busy) CMHD_busy(state->server, connection, -1);
    // The answer is sent (or the connection is gone): a stop no longer waits for this request.
    if (state->counted) atomic_fetch_sub(&state->server->pending, 1);
    CMHD_wipe_free(state->body, state->capacity);
    CMHD_wipe_free(state->response.body, state->response.bodyLength);
    free(state->response.headers);
    free(state);
    *requestContext = NULL;
}

void *CMHD_start(const char *address, uint16_t port, CMHD_Limits limits, const char *certificatePEM, const char *keyPEM,
                 CMHD_Handler handler, void *context, uint16_t *boundPort, char *error) {
    error[0] = 0;
    if (!CMHD_available()) {
        snprintf(error, 256, "libmicrohttpd.so.12 could not be loaded (install libmicrohttpd12)");
        return NULL;
    }
    struct sockaddr_storage storage;
    memset(&storage, 0, sizeof storage);
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&storage;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&storage;
    if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
    } else if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(error, 256, "%s is not a numeric IPv4 or IPv6 address", address);
        return NULL;
    }
    if (certificatePEM && keyPEM) flags |= MHD_USE_TLS;
    struct CMHD_Server *server = calloc(1, sizeof *server);
    if (!server) {
        snprintf(error, 256, "out of memory");
        return NULL;
    }
    server->limits = limits;
    server->handler = handler;
    server->context = context;
    pthread_mutex_init(&server->poolLock, NULL);
    // With an untrusted pool, a connection starts with the short timeout; trusting it gives it the full one.
    unsigned timeout = limits.untrustedConnections > 0 ? limits.untrustedTimeoutSeconds : limits.timeoutSeconds;
    if (certificatePEM && keyPEM) {
        server->daemon = api.start_daemon(
            flags, port, NULL, NULL, CMHD_access, server, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&storage,
            MHD_OPTION_THREAD_POOL_SIZE, limits.threads, MHD_OPTION_CONNECTION_LIMIT, limits.connections,
            MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits.connectionsPerAddress, MHD_OPTION_CONNECTION_TIMEOUT,
            timeout, MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits.connectionMemory,
            MHD_OPTION_NOTIFY_COMPLETED, CMHD_completed, NULL, MHD_OPTION_NOTIFY_CONNECTION, CMHD_notify, server,
            MHD_OPTION_HTTPS_MEM_CERT, certificatePEM, MHD_OPTION_HTTPS_MEM_KEY, keyPEM, MHD_OPTION_END);
    } else {
        server->daemon = api.start_daemon(
            flags, port, NULL, NULL, CMHD_access, server, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&storage,
            MHD_OPTION_THREAD_POOL_SIZE, limits.threads, MHD_OPTION_CONNECTION_LIMIT, limits.connections,
            MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits.connectionsPerAddress, MHD_OPTION_CONNECTION_TIMEOUT,
            timeout, MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits.connectionMemory,
            MHD_OPTION_NOTIFY_COMPLETED, CMHD_completed, NULL, MHD_OPTION_NOTIFY_CONNECTION, CMHD_notify, server, MHD_OPTION_END);
    }
    if (!server->daemon) {
        snprintf(error, 256, "could not listen on %s port %u (the port is in use, the address is not this machine's, or the certificate or key does not load)",
                 address, (unsigned)port);
        pthread_mutex_destroy(&server->poolLock);
        free(server);
        return NULL;
    }
    *boundPort = port;
    const union MHD_DaemonInfo *info = api.get_daemon_info(server->daemon, MHD_DAEMON_INFO_LISTEN_FD);
    if (info) {
        struct sockaddr_storage bound;
        socklen_t length = sizeof bound;
        if (getsockname(info->listen_fd, (struct sockaddr *)&bound, &length) == 0) {
            if (bound.ss_family == AF_INET) *boundPort = ntohs(((struct sockaddr_in *)&bound)->sin_port);
            if (bound.ss_family == AF_INET6) *boundPort = ntohs(((struct sockaddr_in6 *)&bound)->sin6_port);
        }
    }
    return server;
}

void CMHD_stop(void *handle) {
    struct CMHD_Server *server = handle;
    if (!server) return;
    // libmicrohttpd must not be stopped with a connection suspended: the requests being answered finish and
    // their answers are sent first (a request counts until libmicrohttpd reports it complete). A handler that
    // never returns (storage that hangs) would leave a suspended connection behind: then the daemon is left
    // running and its memory kept, since stopping it would abort the process and freeing it would let the
    // late answer write into freed memory; the process is ending anyway.
    atomic_store(&server->stopping, 1);
    for (int i = 0; i < 60000 && atomic_load(&server->pending) > 0; i++) usleep(1000);
    if (atomic_load(&server->pending) > 0) return;
    api.stop_daemon(server->daemon);
    pthread_mutex_destroy(&server->poolLock);
    free(server);
}

struct CMHD_Visit {
    CMHD_HeaderVisitor visitor;
    void *context;
};

static enum MHD_Result CMHD_visit(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    struct CMHD_Visit *visit = cls;
    visit->visitor(visit->context, key, value ? value : "");
    return MHD_YES;
}

void CMHD_forEachHeader(void *connection, CMHD_HeaderVisitor visitor, void *context) {
    struct CMHD_Visit visit = {visitor, context};
    api.get_connection_values(connection, MHD_HEADER_KIND, CMHD_visit, &visit);
}
