// Quick unlock's PAM exchange: loads libpam with dlopen on first use and runs one conversation that answers
// PAM's prompts with the password the user gave.
#include "CPAMSupport.h"

#include <security/pam_appl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CPAM_API {
    int (*start)(const char *, const char *, const struct pam_conv *, pam_handle_t **);
    int (*authenticate)(pam_handle_t *, int);
    int (*acct_mgmt)(pam_handle_t *, int);
    int (*end)(pam_handle_t *, int);
    const char *(*strerror)(pam_handle_t *, int);
    int loaded;
};

static struct CPAM_API *CPAM_table(void) {
    static struct CPAM_API api;
    static int tried;
    if (!tried) {
        tried = 1;
        void *h = dlopen("libpam.so.0", RTLD_NOW | RTLD_LOCAL);
        if (h) {
            *(void **)&api.start = dlsym(h, "pam_start");
            *(void **)&api.authenticate = dlsym(h, "pam_authenticate");
            *(void **)&api.acct_mgmt = dlsym(h, "pam_acct_mgmt");
            *(void **)&api.end = dlsym(h, "pam_end");
            *(void **)&api.strerror = dlsym(h, "pam_strerror");
            api.loaded = api.start && api.authenticate && api.acct_mgmt && api.end && api.strerror;
        }
    }
    return &api;
}

int CPAM_available(void) { return CPAM_table()->loaded; }

// Answers every hidden prompt with the password the user gave; shows nothing else.
static int CPAM_converse(int count, const struct pam_message **messages, struct pam_response **responses, void *password) {
    if (count <= 0 || count > PAM_MAX_NUM_MSG) return PAM_CONV_ERR;
    struct pam_response *r = (struct pam_response *)calloc((size_t)count, sizeof(struct pam_response));
    if (!r) return PAM_BUF_ERR;
    for (int i = 0; i < count; i++) {
        if (messages[i]->msg_style == PAM_PROMPT_ECHO_OFF || messages[i]->msg_style == PAM_PROMPT_ECHO_ON) {
            r[i].resp = strdup((const char *)password);
            if (!r[i].resp) {
                for (int j = 0; j < i; j++) free(r[j].resp);
                free(r);
                return PAM_BUF_ERR;
            }
        }
    }
    *responses = r;
    return PAM_SUCCESS;
}

int CPAM_authenticate(const char *service, const char *user, const char *password, char *error, size_t errorSize) {
    struct CPAM_API *a = CPAM_table();
    if (!a->loaded) {
        snprintf(error, errorSize, "libpam.so.0 could not be loaded");
        return -1;
    }
    struct pam_conv conversation = {CPAM_converse, (void *)password};
    pam_handle_t *handle = NULL;
    int r = a->start(service, user, &conversation, &handle);
    if (r != PAM_SUCCESS) {
        snprintf(error, errorSize, "PAM could not start the %s service", service);
        return -1;
    }
    r = a->authenticate(handle, PAM_SILENT | PAM_DISALLOW_NULL_AUTHTOK);
    if (r == PAM_SUCCESS) r = a->acct_mgmt(handle, PAM_SILENT | PAM_DISALLOW_NULL_AUTHTOK);
    if (r != PAM_SUCCESS) snprintf(error, errorSize, "%s", a->strerror(handle, r));
    a->end(handle, r);
    return r == PAM_SUCCESS ? 0 : 1;
}
