// Loads libidn2 with dlopen once and forwards the three calls PassboxDomains makes.
#include "CIDN2Support.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

static struct {
    int (*to_ascii_8z)(const char *, char **, int);
    int (*to_unicode_8z8z)(const char *, char **, int);
    void (*free)(void *);
    int loaded;
} CIDN2_api;

static pthread_once_t CIDN2_once = PTHREAD_ONCE_INIT;

static void CIDN2_loadOnce(void) {
    void *h = dlopen("libidn2.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    *(void **)&CIDN2_api.to_ascii_8z = dlsym(h, "idn2_to_ascii_8z");
    *(void **)&CIDN2_api.to_unicode_8z8z = dlsym(h, "idn2_to_unicode_8z8z");
    *(void **)&CIDN2_api.free = dlsym(h, "idn2_free");
    if (!CIDN2_api.to_ascii_8z || !CIDN2_api.to_unicode_8z8z || !CIDN2_api.free) {
        dlclose(h);
        return;
    }
    CIDN2_api.loaded = 1;
}

int CIDN2_available(void) {
    pthread_once(&CIDN2_once, CIDN2_loadOnce);
    return CIDN2_api.loaded;
}

int CIDN2_toASCII(const char *input, char **output, int flags) {
    *output = NULL;
    return CIDN2_available() ? CIDN2_api.to_ascii_8z(input, output, flags) : CIDN2_UNAVAILABLE;
}

int CIDN2_toUnicode(const char *input, char **output, int flags) {
    *output = NULL;
    return CIDN2_available() ? CIDN2_api.to_unicode_8z8z(input, output, flags) : CIDN2_UNAVAILABLE;
}

void CIDN2_free(void *pointer) {
    // A result exists only if libidn2 was loaded, so the pointer comes from its allocator.
    if (pointer && CIDN2_available()) CIDN2_api.free(pointer);
}
