#ifndef EVTOOL_CCRYPTO_SHIM_H
#define EVTOOL_CCRYPTO_SHIM_H
#include <openssl/evp.h>

/// EVP_MAX_MD_SIZE is a macro; the SHA-256 digest length as a constant Swift can import.
static inline int evtool_sha256_length(void) { return 32; }
#endif
