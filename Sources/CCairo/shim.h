// cairo's headers, for CKitSupport.c, which loads libcairo with dlopen on first use; Swift imports
// CKitSupport, not this. Linking cairo would load it (and its ~20 libraries) at every CLI start.
#include <cairo/cairo.h>
#include <cairo/cairo-pdf.h>
