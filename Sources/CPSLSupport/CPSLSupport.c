// Loads libpsl with dlopen once and forwards the three calls PassboxDomains makes.
#include "CPSLSupport.h"

#include <dlfcn.h>
#include <pthread.h>

static struct {
    psl_ctx_t *(*latest)(const char *);
    const psl_ctx_t *(*builtin)(void);
    const char *(*registrable_domain)(const psl_ctx_t *, const char *);
    int loaded;
} CPSL_api;

static pthread_once_t CPSL_once = PTHREAD_ONCE_INIT;

static void CPSL_loadOnce(void) {
    void *h = dlopen("libpsl.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    *(void **)&CPSL_api.latest = dlsym(h, "psl_latest");
    *(void **)&CPSL_api.builtin = dlsym(h, "psl_builtin");
    *(void **)&CPSL_api.registrable_domain = dlsym(h, "psl_registrable_domain");
    if (!CPSL_api.latest || !CPSL_api.builtin || !CPSL_api.registrable_domain) {
        dlclose(h);
        return;
    }
    CPSL_api.loaded = 1;
}

int CPSL_available(void) {
    pthread_once(&CPSL_once, CPSL_loadOnce);
    return CPSL_api.loaded;
}

psl_ctx_t *CPSL_latest(const char *fname) { return CPSL_available() ? CPSL_api.latest(fname) : NULL; }

const psl_ctx_t *CPSL_builtin(void) { return CPSL_available() ? CPSL_api.builtin() : NULL; }

const char *CPSL_registrableDomain(const psl_ctx_t *psl, const char *domain) {
    return CPSL_available() && psl ? CPSL_api.registrable_domain(psl, domain) : NULL;
}
