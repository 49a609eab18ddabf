// libpq's header, for CPQSupport.c, which loads libpq with dlopen on first use; Swift imports CPQSupport,
// not this. Linking libpq would load it (and its Kerberos and LDAP libraries) at every CLI start.
#include <postgresql/libpq-fe.h>
