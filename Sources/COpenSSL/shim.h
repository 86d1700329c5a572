// libcrypto of OpenSSL 3 (Debian's libssl-dev, pkg-config libcrypto): SHA-256, HMAC, RSA and
// ECDSA signature checks, constant-time comparison.
#ifndef JOURNEY_COPENSSL_SHIM_H
#define JOURNEY_COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

// The key types as plain constants (the macros name other macros).
static const int journey_evp_pkey_rsa = EVP_PKEY_RSA;
static const int journey_evp_pkey_ec = EVP_PKEY_EC;

#endif
