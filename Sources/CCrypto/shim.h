// OpenSSL's libcrypto: HKDF through EVP_KDF and HMAC through EVP_MAC (OSSL_PARAM builders are macros in places).
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <openssl/hmac.h>
