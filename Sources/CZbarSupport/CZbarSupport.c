// The QR scan: loads libzbar with dlopen once, then runs its image scanner over a grayscale buffer with only
// the QR symbology enabled and hands each symbol's bytes to the caller.
#include "CZbarSupport.h"

#include <zbar.h>
#include <dlfcn.h>
#include <pthread.h>

struct CZbar_API {
    zbar_image_scanner_t *(*scanner_create)(void);
    void (*scanner_destroy)(zbar_image_scanner_t *);
    int (*scanner_set_config)(zbar_image_scanner_t *, zbar_symbol_type_t, zbar_config_t, int);
    zbar_image_t *(*image_create)(void);
    void (*image_destroy)(zbar_image_t *);
    void (*image_set_format)(zbar_image_t *, unsigned long);
    void (*image_set_size)(zbar_image_t *, unsigned, unsigned);
    void (*image_set_data)(zbar_image_t *, const void *, unsigned long, zbar_image_cleanup_handler_t *);
    int (*scan_image)(zbar_image_scanner_t *, zbar_image_t *);
    const zbar_symbol_t *(*image_first_symbol)(const zbar_image_t *);
    const zbar_symbol_t *(*symbol_next)(const zbar_symbol_t *);
    const char *(*symbol_get_data)(const zbar_symbol_t *);
    unsigned (*symbol_get_data_length)(const zbar_symbol_t *);
    int loaded;
};

static struct CZbar_API CZbar_api;

static void CZbar_loadOnce(void) {
    struct CZbar_API *a = &CZbar_api;
    void *h = dlopen("libzbar.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    *(void **)&a->scanner_create = dlsym(h, "zbar_image_scanner_create");
    *(void **)&a->scanner_destroy = dlsym(h, "zbar_image_scanner_destroy");
    *(void **)&a->scanner_set_config = dlsym(h, "zbar_image_scanner_set_config");
    *(void **)&a->image_create = dlsym(h, "zbar_image_create");
    *(void **)&a->image_destroy = dlsym(h, "zbar_image_destroy");
    *(void **)&a->image_set_format = dlsym(h, "zbar_image_set_format");
    *(void **)&a->image_set_size = dlsym(h, "zbar_image_set_size");
    *(void **)&a->image_set_data = dlsym(h, "zbar_image_set_data");
    *(void **)&a->scan_image = dlsym(h, "zbar_scan_image");
    *(void **)&a->image_first_symbol = dlsym(h, "zbar_image_first_symbol");
    *(void **)&a->symbol_next = dlsym(h, "zbar_symbol_next");
    *(void **)&a->symbol_get_data = dlsym(h, "zbar_symbol_get_data");
    *(void **)&a->symbol_get_data_length = dlsym(h, "zbar_symbol_get_data_length");
    a->loaded = a->scanner_create && a->scanner_destroy && a->scanner_set_config && a->image_create && a->image_destroy &&
                a->image_set_format && a->image_set_size && a->image_set_data && a->scan_image && a->image_first_symbol &&
                a->symbol_next && a->symbol_get_data && a->symbol_get_data_length;
}


int CZbar_available(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, CZbar_loadOnce);
    return CZbar_api.loaded;
}

int CZbar_scanQR(const unsigned char *gray, unsigned width, unsigned height, CZbar_Found found, void *context) {
    struct CZbar_API *a = &CZbar_api;
    if (!CZbar_available()) return -1;
    zbar_image_scanner_t *scanner = a->scanner_create();
    if (!scanner) return 0;
    a->scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
    a->scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1);
    zbar_image_t *image = a->image_create();
    if (!image) {
        a->scanner_destroy(scanner);
        return 0;
    }
    a->image_set_format(image, zbar_fourcc('Y', '8', '0', '0'));
    a->image_set_size(image, width, height);
    // No cleanup handler: the caller's pixel buffer outlives the scan.
    a->image_set_data(image, gray, (unsigned long)width * height, NULL);
    int count = 0;
    if (a->scan_image(scanner, image) > 0) {
        for (const zbar_symbol_t *s = a->image_first_symbol(image); s; s = a->symbol_next(s)) {
            const char *data = a->symbol_get_data(s);
            if (data) {
                found(data, a->symbol_get_data_length(s), context);
                count++;
            }
        }
    }
    a->image_destroy(image);
    a->scanner_destroy(scanner);
    return count;
}

void CZbar_upscale2x(const unsigned char *src, unsigned width, unsigned height, unsigned char *dst) {
    size_t w = width, h = height;
    if (w == 0 || h == 0) return;
    for (size_t y = 0; y < 2 * h; y++) {
        size_t y0 = y / 2, y1 = y0 + (y & 1) < h ? y0 + (y & 1) : h - 1;
        const unsigned char *r0 = src + y0 * w, *r1 = src + y1 * w;
        unsigned char *out = dst + y * 2 * w;
        for (size_t x = 0; x < 2 * w; x++) {
            size_t x0 = x / 2, x1 = x0 + (x & 1) < w ? x0 + (x & 1) : w - 1;
            out[x] = (unsigned char)(((unsigned)r0[x0] + r0[x1] + r1[x0] + r1[x1]) / 4);
        }
    }
}
