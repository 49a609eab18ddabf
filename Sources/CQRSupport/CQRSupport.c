// QR codes for the terminal (see CQRSupport.h): libqrencode loaded with dlopen once.
#include "CQRSupport.h"

#include <dlfcn.h>
#include <pthread.h>
#include <qrencode.h>
#include <stdlib.h>

static QRcode *(*encodeString)(const char *, int, QRecLevel, QRencodeMode, int);
static void (*freeCode)(QRcode *);

static void CQR_loadOnce(void) {
    void *h = dlopen("libqrencode.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    encodeString = (QRcode * (*)(const char *, int, QRecLevel, QRencodeMode, int)) dlsym(h, "QRcode_encodeString");
    freeCode = (void (*)(QRcode *))dlsym(h, "QRcode_free");
    if (!encodeString || !freeCode) encodeString = NULL;
}

unsigned char *CQR_encode(const char *text, int *width) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, CQR_loadOnce);
    if (!encodeString) return NULL;
    QRcode *code = encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1);
    if (!code) return NULL;
    int n = code->width;
    unsigned char *modules = malloc((size_t)n * (size_t)n);
    if (modules) {
        for (int i = 0; i < n * n; i++) modules[i] = code->data[i] & 1;
        *width = n;
    }
    freeCode(code);
    return modules;
}
