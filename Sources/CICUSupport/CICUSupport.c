// The spoof checker's three calls, with ICU's status codes turned into NULL or -1. libicui18n is loaded with
// dlopen once; its soname and the version suffix of its symbols (uspoof_open_72) come from the ICU headers
// this is built against, the same pair the linker used to pick.
#include "CICUSupport.h"

#include <dlfcn.h>
#include <pthread.h>
#include <unicode/uspoof.h>

// Expands a renamed ICU entry point (uspoof_open → uspoof_open_72) before quoting it.
#define CICU_QUOTE(x) #x
#define CICU_SYMBOL(x) CICU_QUOTE(x)
#define CICU_SONAME "libicui18n.so." CICU_SYMBOL(U_ICU_VERSION_MAJOR_NUM)

static struct {
    USpoofChecker *(*open)(UErrorCode *);
    void (*close)(USpoofChecker *);
    int32_t (*skeleton_utf8)(const USpoofChecker *, uint32_t, const char *, int32_t, char *, int32_t, UErrorCode *);
    int loaded;
} CICU_api;

static pthread_once_t CICU_once = PTHREAD_ONCE_INIT;

static void CICU_loadOnce(void) {
    void *h = dlopen(CICU_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    *(void **)&CICU_api.open = dlsym(h, CICU_SYMBOL(uspoof_open));
    *(void **)&CICU_api.close = dlsym(h, CICU_SYMBOL(uspoof_close));
    *(void **)&CICU_api.skeleton_utf8 = dlsym(h, CICU_SYMBOL(uspoof_getSkeletonUTF8));
    if (!CICU_api.open || !CICU_api.close || !CICU_api.skeleton_utf8) {
        dlclose(h);
        return;
    }
    CICU_api.loaded = 1;
}

int CICU_available(void) {
    pthread_once(&CICU_once, CICU_loadOnce);
    return CICU_api.loaded;
}

void *CICU_openSpoofChecker(void) {
    if (!CICU_available()) return 0;
    UErrorCode status = U_ZERO_ERROR;
    USpoofChecker *checker = CICU_api.open(&status);
    return U_FAILURE(status) ? 0 : checker;
}

void CICU_closeSpoofChecker(void *checker) {
    if (checker && CICU_available()) CICU_api.close((USpoofChecker *)checker);
}

int32_t CICU_skeleton(void *checker, const char *text, int32_t length, char *out, int32_t capacity) {
    if (!checker || !CICU_available()) return -1;
    UErrorCode status = U_ZERO_ERROR;
    // The type argument is unused by ICU and must be 0.
    int32_t n = CICU_api.skeleton_utf8((const USpoofChecker *)checker, 0, text, length, out, capacity, &status);
    return U_FAILURE(status) ? -1 : n;
}
