// libjpeg-turbo TurboJPEG API: decode JPEG files to 8-bit grayscale.
#include <stddef.h>
#include <turbojpeg.h>
