// libxcb's headers, for CXcbSupport.c, which loads libxcb with dlopen; Swift imports CXcbSupport, not this.
#include <xcb/xcb.h>
