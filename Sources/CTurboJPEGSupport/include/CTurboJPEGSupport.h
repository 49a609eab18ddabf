// libjpeg-turbo's TurboJPEG API: decode JPEG files (to grayscale for QR codes, to RGB for thumbnails) and
// encode an attachment's thumbnail. Loaded with dlopen on first use
// (CTurboJPEGSupport.c), so only a QR import loads it, not every start of the CLI.
#ifndef CTURBOJPEGSUPPORT_H
#define CTURBOJPEGSUPPORT_H

#include <stddef.h>
#include <turbojpeg.h>

/// 1 when libturbojpeg could be loaded. The functions below load it on first use, from any thread.
int CTurboJPEG_available(void);
/// tjInitDecompress; NULL when libturbojpeg is unavailable.
tjhandle CTurboJPEG_initDecompress(void);
/// tjDestroy.
int CTurboJPEG_destroy(tjhandle handle);
/// tjDecompressHeader3; -1 when libturbojpeg is unavailable.
int CTurboJPEG_decompressHeader(tjhandle handle, const unsigned char *jpeg, unsigned long size, int *width, int *height,
                                int *subsampling, int *colorspace);
/// tjDecompress2; -1 when libturbojpeg is unavailable.
int CTurboJPEG_decompress(tjhandle handle, const unsigned char *jpeg, unsigned long size, unsigned char *destination, int width,
                          int pitch, int height, int pixelFormat, int flags);

/// tjInitCompress; NULL when libturbojpeg is unavailable.
tjhandle CTurboJPEG_initCompress(void);
/// tjCompress2; -1 when libturbojpeg is unavailable. The JPEG is allocated by libturbojpeg: CTurboJPEG_free it.
int CTurboJPEG_compress(tjhandle handle, const unsigned char *source, int width, int pitch, int height, int pixelFormat,
                        unsigned char **jpeg, unsigned long *size, int subsampling, int quality, int flags);
/// tjFree.
void CTurboJPEG_free(unsigned char *buffer);

#endif
