// libmicrohttpd's header, for CMicroHTTPDSupport.c, which loads libmicrohttpd with dlopen on first use;
// Swift imports CMicroHTTPDSupport, not this. Linking it would load it (and GnuTLS) at every CLI start.
#include <microhttpd.h>
