// OpenSSL's libcrypto headers, for CCryptoSupport, which loads the library with dlopen (so nothing links it).
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <openssl/hmac.h>
#include <openssl/x509.h>
