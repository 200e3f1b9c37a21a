#ifndef EVTOOL_CCRYPTO_SHIM_H
#define EVTOOL_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/opensslv.h>

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
#endif
