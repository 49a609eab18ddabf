// Linux-PAM's header, for CPAMSupport.c, which loads libpam with dlopen; Swift imports CPAMSupport, not this.
#include <security/pam_appl.h>
