// Loads libpng16 with dlopen once and forwards the three simplified-API calls PassboxImaging makes.
#include "CPNGSupport.h"

#include <dlfcn.h>
#include <pthread.h>

static struct {
    int (*begin_read_from_memory)(png_imagep, png_const_voidp, size_t);
    int (*finish_read)(png_imagep, png_const_colorp, void *, png_int_32, void *);
    void (*free)(png_imagep);
    int loaded;
} CPNG_api;

static pthread_once_t CPNG_once = PTHREAD_ONCE_INIT;

static void CPNG_loadOnce(void) {
    void *h = dlopen("libpng16.so.16", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    *(void **)&CPNG_api.begin_read_from_memory = dlsym(h, "png_image_begin_read_from_memory");
    *(void **)&CPNG_api.finish_read = dlsym(h, "png_image_finish_read");
    *(void **)&CPNG_api.free = dlsym(h, "png_image_free");
    if (!CPNG_api.begin_read_from_memory || !CPNG_api.finish_read || !CPNG_api.free) {
        dlclose(h);
        return;
    }
    CPNG_api.loaded = 1;
}

int CPNG_available(void) {
    pthread_once(&CPNG_once, CPNG_loadOnce);
    return CPNG_api.loaded;
}

int CPNG_imageVersion(void) { return PNG_IMAGE_VERSION; }

int CPNG_beginReadFromMemory(png_imagep image, const void *memory, size_t size) {
    return CPNG_available() ? CPNG_api.begin_read_from_memory(image, memory, size) : 0;
}

int CPNG_finishRead(png_imagep image, png_const_colorp background, void *buffer, png_int_32 rowStride, void *colormap) {
    return CPNG_available() ? CPNG_api.finish_read(image, background, buffer, rowStride, colormap) : 0;
}

void CPNG_free(png_imagep image) {
    if (CPNG_available()) CPNG_api.free(image);
}
