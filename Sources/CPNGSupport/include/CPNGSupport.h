// libpng's simplified API: decode PNG files to 8-bit grayscale. Loaded with dlopen on first use
// (CPNGSupport.c), so only a QR import loads it, not every start of the CLI.
#ifndef CPNGSUPPORT_H
#define CPNGSUPPORT_H

#include <png.h>

/// 1 when libpng16 could be loaded. The functions below load it on first use, from any thread.
int CPNG_available(void);
/// PNG_IMAGE_VERSION, a macro Swift does not import.
int CPNG_imageVersion(void);
/// png_image_begin_read_from_memory; 0 (failure) when libpng is unavailable.
int CPNG_beginReadFromMemory(png_imagep image, const void *memory, size_t size);
/// png_image_finish_read; 0 (failure) when libpng is unavailable.
int CPNG_finishRead(png_imagep image, png_const_colorp background, void *buffer, png_int_32 rowStride, void *colormap);
/// png_image_free.
void CPNG_free(png_imagep image);

#endif
