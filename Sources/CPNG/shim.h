// libpng simplified API: decode PNG files to 8-bit grayscale.
#include <png.h>
// PNG_IMAGE_SIZE and PNG_IMAGE_VERSION are macros Swift does not import.
static inline int CPNG_imageVersion(void) { return PNG_IMAGE_VERSION; }
