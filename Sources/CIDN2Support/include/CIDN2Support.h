// libidn2: IDNA2008 conversion between Unicode and punycode host names. Loaded with dlopen on first use
// (CIDN2Support.c), so a start of the CLI does not load it (nor libunistring, which it needs).
#ifndef CIDN2SUPPORT_H
#define CIDN2SUPPORT_H

#include <idn2.h>

/// What the conversions return when libidn2 cannot be loaded (libidn2's own codes are 0 or below -99).
#define CIDN2_UNAVAILABLE (-1)

/// 1 when libidn2 could be loaded. The functions below load it on first use, from any thread.
int CIDN2_available(void);
/// idn2_to_ascii_8z: UTF-8 to ASCII (punycode); the result, on 0, is freed with CIDN2_free.
int CIDN2_toASCII(const char *input, char **output, int flags);
/// idn2_to_unicode_8z8z: ASCII (punycode) to UTF-8; the result, on 0, is freed with CIDN2_free.
int CIDN2_toUnicode(const char *input, char **output, int flags);
/// idn2_free.
void CIDN2_free(void *pointer);

#endif
