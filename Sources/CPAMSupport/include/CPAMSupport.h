// Linux-PAM, loaded with dlopen when quick unlock runs (CPAMSupport.c): the agent asks the operating system to
// authenticate the user with their login password (the `passbox` service, or the system's `passwd`).
#ifndef CPAMSUPPORT_H
#define CPAMSUPPORT_H

#include <stddef.h>

/// 1 when libpam can be loaded (called from the agent's one serial queue).
int CPAM_available(void);

/// Authenticates `user` with `password` through `service` and checks the account is usable. Returns 0 when
/// accepted, 1 when refused (with PAM's reason in `error`), -1 when PAM cannot be used.
int CPAM_authenticate(const char *service, const char *user, const char *password, char *error, size_t errorSize);

#endif
