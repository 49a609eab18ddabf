// Loads libzxcvbn with dlopen once and forwards the two calls PassboxCore's strength estimate makes.
#include "CZxcvbnSupport.h"

#include <dlfcn.h>
#include <pthread.h>

static struct {
    double (*match)(const char *, const char *[], ZxcMatch_t **);
    void (*free_info)(ZxcMatch_t *);
    int loaded;
} CZxcvbn_api;

static pthread_once_t CZxcvbn_once = PTHREAD_ONCE_INIT;

static void CZxcvbn_loadOnce(void) {
    void *h = dlopen("libzxcvbn.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    *(void **)&CZxcvbn_api.match = dlsym(h, "ZxcvbnMatch");
    *(void **)&CZxcvbn_api.free_info = dlsym(h, "ZxcvbnFreeInfo");
    if (!CZxcvbn_api.match || !CZxcvbn_api.free_info) {
        dlclose(h);
        return;
    }
    CZxcvbn_api.loaded = 1;
}

int CZxcvbn_available(void) {
    pthread_once(&CZxcvbn_once, CZxcvbn_loadOnce);
    return CZxcvbn_api.loaded;
}

double CZxcvbn_match(const char *password, const char *userDictionary[], ZxcMatch_t **info) {
    if (info) *info = NULL;
    return CZxcvbn_available() ? CZxcvbn_api.match(password, userDictionary, info) : -1;
}

void CZxcvbn_freeInfo(ZxcMatch_t *info) {
    if (info && CZxcvbn_available()) CZxcvbn_api.free_info(info);
}
