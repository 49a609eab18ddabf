// The HTTP requests and the one kind of mail Passbox makes: loads libcurl with dlopen once, and sets its options here because
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call.
#include "CCurlSupport.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

struct CCurl_API {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    int loaded;
};

static struct CCurl_API CCurl_api;

static void CCurl_loadOnce(void) {
    void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    CCurl_api.global_init = (CURLcode (*)(long))dlsym(h, "curl_global_init");
    CCurl_api.easy_init = (CURL * (*)(void)) dlsym(h, "curl_easy_init");
    CCurl_api.easy_setopt = (CURLcode (*)(CURL *, CURLoption, ...))dlsym(h, "curl_easy_setopt");
    CCurl_api.easy_perform = (CURLcode (*)(CURL *))dlsym(h, "curl_easy_perform");
    CCurl_api.easy_getinfo = (CURLcode (*)(CURL *, CURLINFO, ...))dlsym(h, "curl_easy_getinfo");
    CCurl_api.easy_cleanup = (void (*)(CURL *))dlsym(h, "curl_easy_cleanup");
    CCurl_api.easy_strerror = (const char *(*)(CURLcode))dlsym(h, "curl_easy_strerror");
    CCurl_api.slist_append = (struct curl_slist * (*)(struct curl_slist *, const char *)) dlsym(h, "curl_slist_append");
    CCurl_api.slist_free_all = (void (*)(struct curl_slist *))dlsym(h, "curl_slist_free_all");
    if (!CCurl_api.global_init || !CCurl_api.easy_init || !CCurl_api.easy_setopt || !CCurl_api.easy_perform ||
        !CCurl_api.easy_getinfo || !CCurl_api.easy_cleanup || !CCurl_api.easy_strerror || !CCurl_api.slist_append ||
        !CCurl_api.slist_free_all)
        return;
    if (CCurl_api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return;
    CCurl_api.loaded = 1;
}

int CCurl_available(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, CCurl_loadOnce);
    return CCurl_api.loaded;
}


/// A transfer's handle, or NULL with the reason in `error` (libcurl not loadable, or no handle).
static CURL *CCurl_begin(char *error) {
    error[0] = 0;
    if (!CCurl_available()) {
        strcpy(error, "libcurl.so.4 could not be loaded");
        return NULL;
    }
    CURL *curl = CCurl_api.easy_init();
    if (!curl) strcpy(error, "libcurl could not start a transfer");
    return curl;
}

/// Ends a transfer: curl's description of a failure into `error` (unless its error buffer has one), the
/// list and handle freed. Returns 0, or curl's code.
static int CCurl_finish(CURL *curl, struct curl_slist *list, CURLcode code, char *error) {
    if (code != CURLE_OK && error[0] == 0) {
        strncpy(error, CCurl_api.easy_strerror(code), CURL_ERROR_SIZE - 1);
        error[CURL_ERROR_SIZE - 1] = 0;
    }
    CCurl_api.slist_free_all(list);
    CCurl_api.easy_cleanup(curl);
    return code == CURLE_OK ? 0 : (int)code;
}

int CCurl_get(const char *url, const char *const *headers, int headerCount, long timeoutSeconds,
              CCurl_Sink sink, void *context, long *status, char *error) {
    return CCurl_request("GET", url, headers, headerCount, NULL, 0, timeoutSeconds, sink, context, status, error);
}

int CCurl_request(const char *method, const char *url, const char *const *headers, int headerCount, const void *body,
                  size_t bodyLength, long timeoutSeconds, CCurl_Sink sink, void *context, long *status, char *error) {
    CURL *curl = CCurl_begin(error);
    if (!curl) return -1;
    struct curl_slist *list = NULL;
    for (int i = 0; i < headerCount; i++) list = CCurl_api.slist_append(list, headers[i]);
    CCurl_api.easy_setopt(curl, CURLOPT_URL, url);
    CCurl_api.easy_setopt(curl, CURLOPT_HTTPHEADER, list);
    CCurl_api.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    CCurl_api.easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    CCurl_api.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    CCurl_api.easy_setopt(curl, CURLOPT_TIMEOUT, timeoutSeconds);
    CCurl_api.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, timeoutSeconds);
    CCurl_api.easy_setopt(curl, CURLOPT_WRITEFUNCTION, sink);
    CCurl_api.easy_setopt(curl, CURLOPT_WRITEDATA, context);
    CCurl_api.easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    if (body) {
        CCurl_api.easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)bodyLength);
        CCurl_api.easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    }
    if (strcmp(method, "GET") != 0 && strcmp(method, "POST") != 0) CCurl_api.easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    CURLcode code = CCurl_api.easy_perform(curl);
    if (code == CURLE_OK) CCurl_api.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
    return CCurl_finish(curl, list, code, error);
}

int CCurl_errorSize(void) { return CURL_ERROR_SIZE; }

struct CCurl_Upload {
    const unsigned char *bytes;
    size_t left;
};

static size_t CCurl_readUpload(char *out, size_t size, size_t count, void *context) {
    struct CCurl_Upload *upload = context;
    size_t n = size * count < upload->left ? size * count : upload->left;
    memcpy(out, upload->bytes, n);
    upload->bytes += n;
    upload->left -= n;
    return n;
}

int CCurl_sendMail(const char *url, const char *from, const char *const *recipients, int recipientCount, const char *user,
                   const char *password, const void *message, size_t length, long timeoutSeconds, int requireTLS, char *error) {
    CURL *curl = CCurl_begin(error);
    if (!curl) return -1;
    struct curl_slist *list = NULL;
    for (int i = 0; i < recipientCount; i++) list = CCurl_api.slist_append(list, recipients[i]);
    struct CCurl_Upload upload = {message, length};
    CCurl_api.easy_setopt(curl, CURLOPT_URL, url);
    CCurl_api.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
    CCurl_api.easy_setopt(curl, CURLOPT_MAIL_FROM, from);
    CCurl_api.easy_setopt(curl, CURLOPT_MAIL_RCPT, list);
    if (user) CCurl_api.easy_setopt(curl, CURLOPT_USERNAME, user);
    if (password) CCurl_api.easy_setopt(curl, CURLOPT_PASSWORD, password);
    if (requireTLS) CCurl_api.easy_setopt(curl, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
    CCurl_api.easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    CCurl_api.easy_setopt(curl, CURLOPT_READFUNCTION, CCurl_readUpload);
    CCurl_api.easy_setopt(curl, CURLOPT_READDATA, &upload);
    CCurl_api.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    CCurl_api.easy_setopt(curl, CURLOPT_TIMEOUT, timeoutSeconds);
    CCurl_api.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, timeoutSeconds);
    CCurl_api.easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    return CCurl_finish(curl, list, CCurl_api.easy_perform(curl), error);
}
