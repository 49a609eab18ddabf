// The X11 clipboard owner the clipboard helper runs, on libxcb loaded with dlopen (CXcbSupport.c). Passbox owns
// the CLIPBOARD selection itself (instead of handing the value to xclip) so that it can offer the value
// together with the `x-kde-passwordManagerHint: secret` target clipboard managers read, and know when another
// program took the clipboard.
#ifndef CXCBSUPPORT_H
#define CXCBSUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// The outcome of serving the clipboard.
enum { CXcb_CLEARED = 0, CXcb_REPLACED = 1, CXcb_FAILED = -1 };

/// Owns the CLIPBOARD selection on `display` with `value` (offered as UTF8_STRING, STRING, TEXT and
/// text/plain;charset=utf-8) and `x-kde-passwordManagerHint` = "secret", calls `ready` once it owns it, and
/// answers requests for `seconds`, or until SIGTERM (which it handles from `ready` on). Then, if it still owns
/// the clipboard, it gives it up (the clipboard is empty), refuses the requests that came meanwhile (so no reader
/// waits for an answer forever, and none gets the value after a lock) and returns CXcb_CLEARED; `seconds` is 0 to
/// 86,400; if another program took the clipboard first it returns CXcb_REPLACED at
/// once, touching nothing. CXcb_FAILED with `error` set when it cannot start.
int CXcb_serveClipboard(const char *display, const unsigned char *value, uint32_t length, double seconds, void (*ready)(void *),
                        void *context, char *error, size_t errorSize);

/// The outcome of `CXcb_clearPrimaryIf` when the selection was left as it was.
enum { CXcb_KEPT = 2 };

/// CLIP-1: reads the PRIMARY selection on `display` (as UTF-8, at most 1 MiB, waiting at most `seconds` for its
/// owner) and, when `matches` says it is a value Passbox showed and the window it was read from still owns it,
/// clears it (a selection another program made meanwhile is left alone). CXcb_CLEARED, CXcb_KEPT (no owner, no
/// answer, not a match, owner changed), or CXcb_FAILED with `error` set.
int CXcb_clearPrimaryIf(const char *display, int (*matches)(const unsigned char *, uint32_t, void *), void *context, double seconds,
                        char *error, size_t errorSize);

#endif
