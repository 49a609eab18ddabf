// libsystemd's sd-bus and sd-login headers, for CLogindSupport.c, which loads libsystemd with dlopen; Swift
// imports CLogindSupport, not this.
#include <systemd/sd-bus.h>
#include <systemd/sd-login.h>
