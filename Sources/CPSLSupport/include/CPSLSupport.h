// libpsl: registrable domains from the Public Suffix List. Loaded with dlopen on first use (CPSLSupport.c):
// linking it would load it (and libidn2 and libunistring, which it needs) at every start of the CLI.
#ifndef CPSLSUPPORT_H
#define CPSLSUPPORT_H

#include <libpsl.h>

/// 1 when libpsl could be loaded. The functions below load it on first use, from any thread.
int CPSL_available(void);
/// psl_latest: the newer of the built-in list and `fname` (NULL: the system's file); NULL if unavailable.
psl_ctx_t *CPSL_latest(const char *fname);
/// psl_builtin: the list compiled into libpsl; NULL if unavailable.
const psl_ctx_t *CPSL_builtin(void);
/// psl_registrable_domain: a pointer into `domain`, or NULL (also when libpsl is unavailable).
const char *CPSL_registrableDomain(const psl_ctx_t *psl, const char *domain);

#endif
