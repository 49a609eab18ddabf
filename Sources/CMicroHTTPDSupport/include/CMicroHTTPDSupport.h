// A small HTTP server on libmicrohttpd, loaded with dlopen on first use. MHD_start_daemon and
// MHD_get_connection_info are variadic, which Swift cannot call, so the daemon's setup, the collection of a
// request's body within its limit and the queueing of the answer are here; Swift sees one callback a request.
#ifndef CMICROHTTPDSUPPORT_H
#define CMICROHTTPDSUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// 1 when libmicrohttpd could be loaded.
int CMHD_available(void);

/// One request, valid during the callback only.
typedef struct CMHD_Request {
    const char *method;
    const char *url;          // the path, percent-decoded; the query string is not passed on
    const uint8_t *body;
    size_t bodyLength;
    const char *clientAddress;  // numeric, e.g. "127.0.0.1" or "::1"
    void *connection;         // for CMHD_forEachHeader
} CMHD_Request;

/// The answer the callback fills in; `body` is malloc'ed by the callback (or NULL) and freed here.
typedef struct CMHD_Response {
    int status;
    uint8_t *body;
    size_t bodyLength;
    char *headers;            // malloc'ed by the callback (or NULL), freed here: name NUL value NUL, `headerCount` times
    int headerCount;
    int trusted;              // the request proved who sent it: its connection leaves the untrusted pool
} CMHD_Response;

/// Called on a libmicrohttpd thread for each whole request; the request is valid during the call only. The
/// connection is suspended meanwhile (its thread serves other connections), and the answer is given later,
/// from any thread, with `CMHD_answer(token, …)`, exactly once.
typedef void (*CMHD_Handler)(void *context, const CMHD_Request *request, void *token);
typedef void (*CMHD_HeaderVisitor)(void *context, const char *name, const char *value);

typedef struct CMHD_Limits {
    unsigned threads;             // worker threads (a thread pool)
    unsigned connections;         // open connections in all
    unsigned connectionsPerAddress;
    unsigned timeoutSeconds;      // an idle or slow connection is closed after this
    size_t maximumBody;           // a larger body is answered 413 and not read on
    size_t connectionMemory;      // per connection: bounds the request line and headers (431/413 beyond)
    unsigned requestSeconds;      // a body still arriving this long after its headers: 408, or the connection closed
    unsigned untrustedConnections;    // 0: every connection alike. Otherwise connections no answer has trusted
                                      // yet: at most this many (a new one closes the oldest) and idle ones are
                                      // closed after `untrustedTimeoutSeconds`
    unsigned untrustedTimeoutSeconds;
} CMHD_Limits;

/// Starts a daemon on `address` (IPv4 or IPv6, numeric) and `port` (0: any free port, written to
/// `boundPort`). With `certificatePEM` and `keyPEM` it speaks HTTPS only. Returns NULL on failure with a
/// reason in `error` (256 bytes).
void *CMHD_start(const char *address, uint16_t port, CMHD_Limits limits, const char *certificatePEM, const char *keyPEM,
                 CMHD_Handler handler, void *context, uint16_t *boundPort, char *error);

/// Answers the request `token` names (the handler's): queues `response` (its `body` and `headers` are taken
/// over and freed here) and resumes the connection.
void CMHD_answer(void *token, CMHD_Response *response);

/// Stops a daemon: answers new requests 503, waits (up to 30 s) for those being answered, closes every
/// connection.
void CMHD_stop(void *daemon);

/// Calls `visitor` for each request header (names as sent).
void CMHD_forEachHeader(void *connection, CMHD_HeaderVisitor visitor, void *context);

#endif
