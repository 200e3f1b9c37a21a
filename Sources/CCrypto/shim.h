#ifndef EVTOOL_CCRYPTO_SHIM_H
#define EVTOOL_CCRYPTO_SHIM_H
// The SHA256_* calls below are deprecated in OpenSSL 3 in favour of EVP, but still provided:
// they hash with a context on the caller's stack, without EVP's per-digest setup.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/rand.h>

/// EVP_MAX_MD_SIZE is a macro; the SHA-256 digest length as a constant Swift can import.
static inline int evtool_sha256_length(void) { return 32; }

/// SHA-256, fetched once. OpenSSL 3 looks up (fetches) the implementation behind EVP_sha256()
/// on every EVP_DigestInit_ex, which costs more than hashing a small event; an explicitly
/// fetched EVP_MD skips that. OpenSSL 1.1 has no fetching and returns the static method.
static inline const EVP_MD *evtool_sha256_fetch(void) {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    const EVP_MD *fetched = EVP_MD_fetch(NULL, "SHA256", NULL);
    return fetched != NULL ? fetched : EVP_sha256();
#else
    return EVP_sha256();
#endif
}
/// The SHA-256 of `count` bytes at `data` into the 32 bytes at `digest`, with a context on
/// the stack: no EVP context to set up and tear down, which for the short inputs of the hash
/// chain costs more than the hashing itself (measured).
static inline void evtool_sha256(const void *data, size_t count, unsigned char *digest) {
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, data, count);
    SHA256_Final(digest, &context);
}
/// EVP_PKEY_ED25519 is a macro over a macro; the key type of Ed25519 as a function Swift can call.
static inline int evtool_ed25519_type(void) { return EVP_PKEY_ED25519; }
#endif
