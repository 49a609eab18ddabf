// Loads libturbojpeg with dlopen once and forwards the calls PassboxImaging makes.
#include "CTurboJPEGSupport.h"

#include <dlfcn.h>
#include <pthread.h>

static struct {
    tjhandle (*init_decompress)(void);
    int (*destroy)(tjhandle);
    int (*decompress_header3)(tjhandle, const unsigned char *, unsigned long, int *, int *, int *, int *);
    int (*decompress2)(tjhandle, const unsigned char *, unsigned long, unsigned char *, int, int, int, int, int);
    tjhandle (*init_compress)(void);
    int (*compress2)(tjhandle, const unsigned char *, int, int, int, int, unsigned char **, unsigned long *, int, int, int);
    void (*free)(unsigned char *);
    int loaded;
} CTurboJPEG_api;

static pthread_once_t CTurboJPEG_once = PTHREAD_ONCE_INIT;

static void CTurboJPEG_loadOnce(void) {
    void *h = dlopen("libturbojpeg.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    *(void **)&CTurboJPEG_api.init_decompress = dlsym(h, "tjInitDecompress");
    *(void **)&CTurboJPEG_api.destroy = dlsym(h, "tjDestroy");
    *(void **)&CTurboJPEG_api.decompress_header3 = dlsym(h, "tjDecompressHeader3");
    *(void **)&CTurboJPEG_api.decompress2 = dlsym(h, "tjDecompress2");
    *(void **)&CTurboJPEG_api.init_compress = dlsym(h, "tjInitCompress");
    *(void **)&CTurboJPEG_api.compress2 = dlsym(h, "tjCompress2");
    *(void **)&CTurboJPEG_api.free = dlsym(h, "tjFree");
    if (!CTurboJPEG_api.init_decompress || !CTurboJPEG_api.destroy || !CTurboJPEG_api.decompress_header3 ||
        !CTurboJPEG_api.decompress2 || !CTurboJPEG_api.init_compress || !CTurboJPEG_api.compress2 || !CTurboJPEG_api.free) {
        dlclose(h);
        return;
    }
    CTurboJPEG_api.loaded = 1;
}

int CTurboJPEG_available(void) {
    pthread_once(&CTurboJPEG_once, CTurboJPEG_loadOnce);
    return CTurboJPEG_api.loaded;
}

tjhandle CTurboJPEG_initDecompress(void) { return CTurboJPEG_available() ? CTurboJPEG_api.init_decompress() : NULL; }

int CTurboJPEG_destroy(tjhandle handle) { return CTurboJPEG_available() && handle ? CTurboJPEG_api.destroy(handle) : -1; }

int CTurboJPEG_decompressHeader(tjhandle handle, const unsigned char *jpeg, unsigned long size, int *width, int *height,
                                int *subsampling, int *colorspace) {
    if (!CTurboJPEG_available() || !handle) return -1;
    return CTurboJPEG_api.decompress_header3(handle, jpeg, size, width, height, subsampling, colorspace);
}

int CTurboJPEG_decompress(tjhandle handle, const unsigned char *jpeg, unsigned long size, unsigned char *destination, int width,
                          int pitch, int height, int pixelFormat, int flags) {
    if (!CTurboJPEG_available() || !handle) return -1;
    return CTurboJPEG_api.decompress2(handle, jpeg, size, destination, width, pitch, height, pixelFormat, flags);
}

tjhandle CTurboJPEG_initCompress(void) { return CTurboJPEG_available() ? CTurboJPEG_api.init_compress() : NULL; }

int CTurboJPEG_compress(tjhandle handle, const unsigned char *source, int width, int pitch, int height, int pixelFormat,
                        unsigned char **jpeg, unsigned long *size, int subsampling, int quality, int flags) {
    if (!CTurboJPEG_available() || !handle) return -1;
    return CTurboJPEG_api.compress2(handle, source, width, pitch, height, pixelFormat, jpeg, size, subsampling, quality, flags);
}

void CTurboJPEG_free(unsigned char *buffer) {
    if (CTurboJPEG_available() && buffer) CTurboJPEG_api.free(buffer);
}
