// libzbar: QR code scanning of grayscale images. Loaded with dlopen on first use (CZbarSupport.c): linking it
// would load it (with X11, D-Bus and Video4Linux, which it needs) at every start of the CLI, about 2 ms each time.
#ifndef CZBARSUPPORT_H
#define CZBARSUPPORT_H

/// Called once per QR code found, with its raw bytes.
typedef void (*CZbar_Found)(const char *data, unsigned length, void *context);

/// 1 when libzbar could be loaded (it is loaded now, once).
int CZbar_available(void);

/// Scans an 8-bit grayscale image for QR codes. Returns the number found, or -1 when libzbar cannot be loaded.
int CZbar_scanQR(const unsigned char *gray, unsigned width, unsigned height, CZbar_Found found, void *context);

/// Writes the image at twice its width and height into dst (4 × width × height bytes), each new pixel the mean of
/// its up to four neighbours (bilinear): the reader's second look. Here in C, not in Swift, as a debug build's
/// Swift loop over a page's 2 million pixels took a third of a printed backup's restore.
void CZbar_upscale2x(const unsigned char *src, unsigned width, unsigned height, unsigned char *dst);

#endif
