// libpsl's header, for CPSLSupport, which loads libpsl with dlopen; Swift imports CPSLSupport, not this.
#include <libpsl.h>
