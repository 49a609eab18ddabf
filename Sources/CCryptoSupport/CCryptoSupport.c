// Loads libcrypto with dlopen once and forwards the calls PassboxCrypto makes (HKDF, HMAC, SHA-1, SHA-256 of large inputs, and AES for
// reading and writing KeePass files).
#include "CCryptoSupport.h"

#include <dlfcn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/sha.h>
#include <pthread.h>

static struct {
    __typeof__(&EVP_KDF_fetch) kdfFetch;
    __typeof__(&EVP_KDF_free) kdfFree;
    __typeof__(&EVP_KDF_CTX_new) kdfContextNew;
    __typeof__(&EVP_KDF_CTX_free) kdfContextFree;
    __typeof__(&EVP_KDF_derive) kdfDerive;
    __typeof__(&OSSL_PARAM_construct_utf8_string) paramString;
    __typeof__(&OSSL_PARAM_construct_octet_string) paramOctets;
    __typeof__(&OSSL_PARAM_construct_end) paramEnd;
    __typeof__(&EVP_sha1) sha1Digest;
    __typeof__(&EVP_sha256) sha256Digest;
    __typeof__(&EVP_sha512) sha512Digest;
    __typeof__(&HMAC) hmac;
    __typeof__(&SHA1) sha1;
    __typeof__(&SHA256) sha256;
    __typeof__(&EVP_CIPHER_CTX_new) cipherNew;
    __typeof__(&EVP_CIPHER_CTX_free) cipherFree;
    __typeof__(&EVP_CipherInit_ex) cipherInit;
    __typeof__(&EVP_CipherUpdate) cipherUpdate;
    __typeof__(&EVP_CipherFinal_ex) cipherFinal;
    __typeof__(&EVP_CIPHER_CTX_set_padding) cipherPadding;
    __typeof__(&EVP_aes_256_cbc) aes256CBC;
    __typeof__(&EVP_aes_256_ecb) aes256ECB;
    __typeof__(&EVP_aes_256_gcm) aes256GCM;
    __typeof__(&EVP_CIPHER_CTX_ctrl) cipherControl;
    __typeof__(&PKCS5_PBKDF2_HMAC) pbkdf2;
    int loaded;
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;

#define LOAD(field, name) \
    if (!(*(void **)&api.field = dlsym(h, name))) { dlclose(h); return; }

static void loadOnce(void) {
    void *h = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    LOAD(kdfFetch, "EVP_KDF_fetch");
    LOAD(kdfFree, "EVP_KDF_free");
    LOAD(kdfContextNew, "EVP_KDF_CTX_new");
    LOAD(kdfContextFree, "EVP_KDF_CTX_free");
    LOAD(kdfDerive, "EVP_KDF_derive");
    LOAD(paramString, "OSSL_PARAM_construct_utf8_string");
    LOAD(paramOctets, "OSSL_PARAM_construct_octet_string");
    LOAD(paramEnd, "OSSL_PARAM_construct_end");
    LOAD(sha1Digest, "EVP_sha1");
    LOAD(sha256Digest, "EVP_sha256");
    LOAD(sha512Digest, "EVP_sha512");
    LOAD(hmac, "HMAC");
    LOAD(sha1, "SHA1");
    LOAD(sha256, "SHA256");
    LOAD(cipherNew, "EVP_CIPHER_CTX_new");
    LOAD(cipherFree, "EVP_CIPHER_CTX_free");
    LOAD(cipherInit, "EVP_CipherInit_ex");
    LOAD(cipherUpdate, "EVP_CipherUpdate");
    LOAD(cipherFinal, "EVP_CipherFinal_ex");
    LOAD(cipherPadding, "EVP_CIPHER_CTX_set_padding");
    LOAD(aes256CBC, "EVP_aes_256_cbc");
    LOAD(aes256ECB, "EVP_aes_256_ecb");
    LOAD(aes256GCM, "EVP_aes_256_gcm");
    LOAD(cipherControl, "EVP_CIPHER_CTX_ctrl");
    LOAD(pbkdf2, "PKCS5_PBKDF2_HMAC");
    api.loaded = 1;
}

int CCrypto_available(void) {
    pthread_once(&once, loadOnce);
    return api.loaded;
}

int CCrypto_hkdfSHA256(const uint8_t *key, size_t keyLength, const uint8_t *salt, size_t saltLength,
                       const uint8_t *info, size_t infoLength, uint8_t *out, size_t outLength) {
    if (!CCrypto_available()) return 0;
    // OpenSSL refuses an empty key, which RFC 5869 allows. HMAC pads keys with zeros to the block size, so
    // one zero byte is the same key as none (Wycheproof's empty-IKM cases pin this).
    static const uint8_t zero = 0;
    static const uint8_t empty = 0;
    EVP_KDF *kdf = api.kdfFetch(NULL, "HKDF", NULL);
    if (!kdf) return 0;
    EVP_KDF_CTX *context = api.kdfContextNew(kdf);
    int ok = 0;
    if (context) {
        char digest[] = "SHA256";
        OSSL_PARAM params[] = {
            api.paramString(OSSL_KDF_PARAM_DIGEST, digest, 0),
            api.paramOctets(OSSL_KDF_PARAM_KEY, (void *)(keyLength ? key : &zero), keyLength ? keyLength : 1),
            api.paramOctets(OSSL_KDF_PARAM_SALT, (void *)(saltLength ? salt : &empty), saltLength),
            api.paramOctets(OSSL_KDF_PARAM_INFO, (void *)(infoLength ? info : &empty), infoLength),
            api.paramEnd(),
        };
        ok = api.kdfDerive(context, out, outLength, params) == 1;
        api.kdfContextFree(context);
    }
    api.kdfFree(kdf);
    return ok;
}

unsigned int CCrypto_hmac(int algorithm, const void *key, size_t keyLength, const uint8_t *message, size_t messageLength,
                          uint8_t *out) {
    if (!CCrypto_available()) return 0;
    const EVP_MD *md = algorithm == 1 ? api.sha1Digest() : algorithm == 2 ? api.sha256Digest() : algorithm == 3 ? api.sha512Digest() : NULL;
    if (!md) return 0;
    static const uint8_t empty = 0;
    unsigned int length = 0;
    if (!api.hmac(md, keyLength ? key : &empty, (int)keyLength, messageLength ? message : &empty, messageLength, out, &length)) return 0;
    return length;
}

int CCrypto_sha1(const uint8_t *data, size_t length, uint8_t *out) {
    if (!CCrypto_available()) return 0;
    static const uint8_t empty = 0;
    return api.sha1(length ? data : &empty, length, out) != NULL;
}

int CCrypto_sha256(const uint8_t *data, size_t length, uint8_t *out) {
    if (!CCrypto_available()) return 0;
    static const uint8_t empty = 0;
    return api.sha256(length ? data : &empty, length, out) != NULL;
}

long CCrypto_aes256CBC(int encrypt, const uint8_t *key, const uint8_t *iv, const uint8_t *input, size_t length, uint8_t *out) {
    if (!CCrypto_available() || length > 0x7fffff00) return -1;
    EVP_CIPHER_CTX *context = api.cipherNew();
    if (!context) return -1;
    long written = -1;
    int part = 0, last = 0;
    static const uint8_t empty = 0;
    if (api.cipherInit(context, api.aes256CBC(), NULL, key, iv, encrypt ? 1 : 0) == 1
        && api.cipherUpdate(context, out, &part, length ? input : &empty, (int)length) == 1
        && api.cipherFinal(context, out + part, &last) == 1) {
        written = (long)part + last;
    }
    api.cipherFree(context);
    return written;
}

int CCrypto_aesKDF(const uint8_t *seed, uint8_t *block, uint64_t rounds) {
    if (!CCrypto_available()) return 0;
    EVP_CIPHER_CTX *context = api.cipherNew();
    if (!context) return 0;
    int ok = api.cipherInit(context, api.aes256ECB(), NULL, seed, NULL, 1) == 1;
    if (ok) api.cipherPadding(context, 0);
    int written = 0;
    for (uint64_t i = 0; ok && i < rounds; i++) {
        ok = api.cipherUpdate(context, block, &written, block, 32) == 1 && written == 32;
    }
    api.cipherFree(context);
    return ok;
}

long CCrypto_aes256GCMOpen(const uint8_t *key, const uint8_t *nonce, size_t nonceLength, const uint8_t *input, size_t length,
                           const uint8_t *tag, uint8_t *out) {
    if (!CCrypto_available() || length > 0x7fffff00 || nonceLength == 0 || nonceLength > 64) return -1;
    EVP_CIPHER_CTX *context = api.cipherNew();
    if (!context) return -1;
    long written = -1;
    int part = 0, last = 0;
    static const uint8_t empty = 0;
    if (api.cipherInit(context, api.aes256GCM(), NULL, NULL, NULL, 0) == 1
        && api.cipherControl(context, EVP_CTRL_GCM_SET_IVLEN, (int)nonceLength, NULL) == 1
        && api.cipherInit(context, NULL, NULL, key, nonce, 0) == 1
        && api.cipherUpdate(context, out, &part, length ? input : &empty, (int)length) == 1
        && api.cipherControl(context, EVP_CTRL_GCM_SET_TAG, 16, (void *)tag) == 1
        && api.cipherFinal(context, out + part, &last) == 1) {
        written = (long)part + last;
    }
    api.cipherFree(context);
    return written;
}

int CCrypto_pbkdf2SHA256(const uint8_t *password, size_t passwordLength, const uint8_t *salt, size_t saltLength, uint32_t rounds,
                         uint8_t *out, size_t outLength) {
    if (!CCrypto_available() || passwordLength > 0x7fffffff || saltLength > 0x7fffffff || rounds == 0 || rounds > 0x7fffffff) return 0;
    static const uint8_t empty = 0;
    return api.pbkdf2((const char *)(passwordLength ? password : &empty), (int)passwordLength, saltLength ? salt : &empty, (int)saltLength,
                      (int)rounds, api.sha256Digest(), (int)outLength, out) == 1;
}
