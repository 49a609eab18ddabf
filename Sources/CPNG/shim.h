// libpng's header (simplified API), for CPNGSupport, which loads libpng with dlopen; Swift imports CPNGSupport,
// not this.
#include <png.h>
