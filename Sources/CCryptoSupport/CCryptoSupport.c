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
#include <string.h>
#include <openssl/x509.h>
#include <openssl/crypto.h>

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
    __typeof__(&EVP_PKEY_CTX_new_from_name) pkeyContextNew;
    __typeof__(&EVP_PKEY_CTX_free) pkeyContextFree;
    __typeof__(&EVP_PKEY_keygen_init) keygenInit;
    __typeof__(&EVP_PKEY_CTX_set_group_name) setGroup;
    __typeof__(&EVP_PKEY_generate) generate;
    __typeof__(&EVP_PKEY_free) pkeyFree;
    __typeof__(&EVP_PKEY2PKCS8) toPKCS8;
    __typeof__(&i2d_PKCS8_PRIV_KEY_INFO) encodePKCS8;
    __typeof__(&PKCS8_PRIV_KEY_INFO_free) pkcs8Free;
    __typeof__(&d2i_AutoPrivateKey) decodePrivate;
    __typeof__(&d2i_PUBKEY) decodePublic;
    __typeof__(&EVP_PKEY_get_group_name) groupName;
    __typeof__(&EVP_PKEY_get_octet_string_param) octetParam;
    __typeof__(&EVP_MD_CTX_new) mdNew;
    __typeof__(&EVP_MD_CTX_free) mdFree;
    __typeof__(&EVP_DigestSignInit) signInit;
    __typeof__(&EVP_DigestSign) sign;
    __typeof__(&EVP_DigestVerifyInit) verifyInit;
    __typeof__(&EVP_DigestVerify) verify;
    __typeof__(&CRYPTO_free) cryptoFree;
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
    LOAD(pkeyContextNew, "EVP_PKEY_CTX_new_from_name");
    LOAD(pkeyContextFree, "EVP_PKEY_CTX_free");
    LOAD(keygenInit, "EVP_PKEY_keygen_init");
    LOAD(setGroup, "EVP_PKEY_CTX_set_group_name");
    LOAD(generate, "EVP_PKEY_generate");
    LOAD(pkeyFree, "EVP_PKEY_free");
    LOAD(toPKCS8, "EVP_PKEY2PKCS8");
    LOAD(encodePKCS8, "i2d_PKCS8_PRIV_KEY_INFO");
    LOAD(pkcs8Free, "PKCS8_PRIV_KEY_INFO_free");
    LOAD(decodePrivate, "d2i_AutoPrivateKey");
    LOAD(decodePublic, "d2i_PUBKEY");
    LOAD(groupName, "EVP_PKEY_get_group_name");
    LOAD(octetParam, "EVP_PKEY_get_octet_string_param");
    LOAD(mdNew, "EVP_MD_CTX_new");
    LOAD(mdFree, "EVP_MD_CTX_free");
    LOAD(signInit, "EVP_DigestSignInit");
    LOAD(sign, "EVP_DigestSign");
    LOAD(verifyInit, "EVP_DigestVerifyInit");
    LOAD(verify, "EVP_DigestVerify");
    LOAD(cryptoFree, "CRYPTO_free");
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

// ECDSA P-256 with SHA-256 (passkeys). A key is held as PKCS#8 DER between calls; OpenSSL's copy is freed
// (and its private scalar cleared) before each call returns.

static int isP256(EVP_PKEY *key) {
    char name[32] = {0};
    size_t length = 0;
    if (api.groupName(key, name, sizeof name, &length) != 1) return 0;
    return strcmp(name, "prime256v1") == 0 || strcmp(name, "P-256") == 0;
}

static EVP_PKEY *privateKey(const uint8_t *pkcs8, size_t length) {
    if (length == 0 || length > 4096) return NULL;
    const unsigned char *p = pkcs8;
    EVP_PKEY *key = api.decodePrivate(NULL, &p, (long)length);
    if (key && (p != pkcs8 + length || !isP256(key))) {
        api.pkeyFree(key);
        return NULL;
    }
    return key;
}

static int publicPoint(EVP_PKEY *key, uint8_t *point) {
    size_t written = 0;
    return api.octetParam(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point, 65, &written) == 1 && written == 65 && point[0] == 4;
}

long CCrypto_p256Generate(uint8_t *pkcs8, size_t capacity, uint8_t *point) {
    if (!CCrypto_available()) return -1;
    EVP_PKEY_CTX *context = api.pkeyContextNew(NULL, "EC", NULL);
    if (!context) return -1;
    EVP_PKEY *key = NULL;
    long written = -1;
    if (api.keygenInit(context) == 1 && api.setGroup(context, "P-256") == 1 && api.generate(context, &key) == 1 && publicPoint(key, point)) {
        PKCS8_PRIV_KEY_INFO *info = api.toPKCS8(key);
        if (info) {
            unsigned char *der = NULL;
            int length = api.encodePKCS8(info, &der);
            if (length > 0 && (size_t)length <= capacity) {
                memcpy(pkcs8, der, (size_t)length);
                written = length;
            }
            if (der) {
                memset(der, 0, length > 0 ? (size_t)length : 0);
                api.cryptoFree(der, __FILE__, __LINE__);
            }
            api.pkcs8Free(info);
        }
    }
    if (key) api.pkeyFree(key);
    api.pkeyContextFree(context);
    return written;
}

int CCrypto_p256PublicKey(const uint8_t *pkcs8, size_t length, uint8_t *point) {
    if (!CCrypto_available()) return 0;
    EVP_PKEY *key = privateKey(pkcs8, length);
    if (!key) return 0;
    int ok = publicPoint(key, point);
    api.pkeyFree(key);
    return ok;
}

long CCrypto_p256Sign(const uint8_t *pkcs8, size_t length, const uint8_t *message, size_t messageLength, uint8_t *signature) {
    if (!CCrypto_available()) return -1;
    EVP_PKEY *key = privateKey(pkcs8, length);
    if (!key) return -1;
    EVP_MD_CTX *context = api.mdNew();
    long written = -1;
    size_t size = 72;
    static const uint8_t empty = 0;
    if (context && api.signInit(context, NULL, api.sha256Digest(), NULL, key) == 1
        && api.sign(context, signature, &size, messageLength ? message : &empty, messageLength) == 1) {
        written = (long)size;
    }
    if (context) api.mdFree(context);
    api.pkeyFree(key);
    return written;
}

int CCrypto_p256Verify(const uint8_t *spki, size_t spkiLength, const uint8_t *message, size_t messageLength,
                       const uint8_t *signature, size_t signatureLength) {
    if (!CCrypto_available() || spkiLength > 1024) return 0;
    const unsigned char *p = spki;
    EVP_PKEY *key = api.decodePublic(NULL, &p, (long)spkiLength);
    if (!key) return 0;
    int ok = 0;
    EVP_MD_CTX *context = p == spki + spkiLength && isP256(key) ? api.mdNew() : NULL;
    static const uint8_t empty = 0;
    if (context && api.verifyInit(context, NULL, api.sha256Digest(), NULL, key) == 1) {
        ok = api.verify(context, signature, signatureLength, messageLength ? message : &empty, messageLength) == 1;
    }
    if (context) api.mdFree(context);
    api.pkeyFree(key);
    return ok;
}
