// A QR code's modules from libqrencode (loaded with dlopen on first use), for drawing it in a terminal.
#ifndef CQRSUPPORT_H
#define CQRSUPPORT_H

/// The modules of `text` encoded at error-correction level M: `*width` × `*width` bytes, 1 for dark, in a
/// malloc'ed buffer the caller frees; NULL when libqrencode is missing or the text does not fit.
unsigned char *CQR_encode(const char *text, int *width);

#endif
