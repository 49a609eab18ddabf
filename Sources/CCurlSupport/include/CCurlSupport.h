// libcurl, loaded with dlopen on first use (CCurlSupport.c): linking it would load it (and the ~25 libraries
// it needs) at every start of the CLI, which costs about 4 ms on a command that never touches the network.
#ifndef CCURLSUPPORT_H
#define CCURLSUPPORT_H

#include <stddef.h>

/// 1 when libcurl could be loaded.
int CCurl_available(void);

/// Receives the body in pieces; returns the number of bytes taken (fewer aborts the transfer).
typedef size_t (*CCurl_Sink)(char *data, size_t size, size_t count, void *context);

/// One GET: no redirects, http and https only, a total timeout; the status goes to `status`, a failure's
/// description to `error` (CURL_ERROR_SIZE bytes). Returns 0 on a completed exchange, else curl's code.
int CCurl_get(const char *url, const char *const *headers, int headerCount, long timeoutSeconds, CCurl_Sink sink, void *context,
              long *status, char *error);

/// Any method: `body` (or NULL) is sent as the request body (a POST's, or with the method set as given).
int CCurl_request(const char *method, const char *url, const char *const *headers, int headerCount, const void *body,
                  size_t bodyLength, long timeoutSeconds, CCurl_Sink sink, void *context, long *status, char *error);

/// One mail over SMTP (smtp:// or smtps://): `message` is the whole RFC 5322 text with CRLF line ends;
/// `user` and `password` may be NULL; `requireTLS` makes STARTTLS compulsory on smtp://. Returns 0 when the
/// server took the mail, else curl's code with its description in `error`.
int CCurl_sendMail(const char *url, const char *from, const char *const *recipients, int recipientCount, const char *user,
                   const char *password, const void *message, size_t length, long timeoutSeconds, int requireTLS, char *error);

/// CURL_ERROR_SIZE, for the caller's buffer.
int CCurl_errorSize(void);

#endif
