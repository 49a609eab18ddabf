// OpenSSL's libcrypto: HKDF-SHA256, HMAC and SHA-1. Loaded with dlopen on first use (CCryptoSupport.c), so
// a CLI command that only talks to the agent never loads it (it costs about 0.7 ms of every process start
// when linked). Safe to call from several threads.
#ifndef CCRYPTOSUPPORT_H
#define CCRYPTOSUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// 1 when libcrypto could be loaded with every function used here.
int CCrypto_available(void);

/// HKDF-SHA256 (RFC 5869) through EVP_KDF "HKDF": 1 on success, 0 on failure (libcrypto missing included).
int CCrypto_hkdfSHA256(const uint8_t *key, size_t keyLength, const uint8_t *salt, size_t saltLength,
                       const uint8_t *info, size_t infoLength, uint8_t *out, size_t outLength);

/// HMAC with SHA-1 (1), SHA-256 (2) or SHA-512 (3) into `out` (64 bytes); the length written, 0 on failure.
unsigned int CCrypto_hmac(int algorithm, const void *key, size_t keyLength, const uint8_t *message, size_t messageLength,
                          uint8_t *out);

/// SHA-1 of `data` into `out` (20 bytes): 1 on success, 0 on failure.
int CCrypto_sha1(const uint8_t *data, size_t length, uint8_t *out);
int CCrypto_sha256(const uint8_t *data, size_t length, uint8_t *out);

/// AES-256-CBC with PKCS#7 padding (KeePass files): encrypts (`encrypt` 1) or decrypts `length` bytes into
/// `out` (room for `length` + 16). The bytes written, or -1 on failure (a wrong key's bad padding included).
long CCrypto_aes256CBC(int encrypt, const uint8_t *key, const uint8_t *iv, const uint8_t *input, size_t length, uint8_t *out);

/// KeePass's AES-KDF: encrypts the 32-byte `block` in place `rounds` times with AES-256-ECB under `seed`.
/// 1 on success, 0 on failure.
int CCrypto_aesKDF(const uint8_t *seed, uint8_t *block, uint64_t rounds);

/// AES-256-GCM decryption with a 16-byte tag (Aegis vaults): the bytes written (`length`), or -1 when the tag
/// does not verify or libcrypto fails.
long CCrypto_aes256GCMOpen(const uint8_t *key, const uint8_t *nonce, size_t nonceLength, const uint8_t *input, size_t length,
                           const uint8_t *tag, uint8_t *out);

/// PBKDF2-HMAC-SHA256 (2FAS exports): 1 on success, 0 on failure.
int CCrypto_pbkdf2SHA256(const uint8_t *password, size_t passwordLength, const uint8_t *salt, size_t saltLength, uint32_t rounds,
                         uint8_t *out, size_t outLength);

/// ECDSA P-256 (passkeys): a new key as PKCS#8 DER into `pkcs8` (its length, -1 on failure) and its public
/// point (65 bytes, 0x04 | x | y) into `point`.
long CCrypto_p256Generate(uint8_t *pkcs8, size_t capacity, uint8_t *point);
/// The public point (65 bytes) of a PKCS#8 P-256 key: 1, or 0 when it is not one.
int CCrypto_p256PublicKey(const uint8_t *pkcs8, size_t length, uint8_t *point);
/// An ECDSA-SHA256 signature (DER, at most 72 bytes) of `message`: its length, -1 on failure.
long CCrypto_p256Sign(const uint8_t *pkcs8, size_t length, const uint8_t *message, size_t messageLength, uint8_t *signature);
/// 1 when `signature` (DER) is the key's (SubjectPublicKeyInfo DER) over `message`.
int CCrypto_p256Verify(const uint8_t *spki, size_t spkiLength, const uint8_t *message, size_t messageLength,
                       const uint8_t *signature, size_t signatureLength);

#endif
