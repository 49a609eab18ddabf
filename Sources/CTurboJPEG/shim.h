// libjpeg-turbo's TurboJPEG header, for CTurboJPEGSupport, which loads libturbojpeg with dlopen; Swift imports
// CTurboJPEGSupport, not this.
#include <stddef.h>
#include <turbojpeg.h>
