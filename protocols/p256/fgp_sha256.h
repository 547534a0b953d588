/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), internal to fgp_p256:
 * what RFC 6979's deterministic nonces need, nothing more. Not installed.
 * Constant time: no branch or memory index depends on the data or the key
 * (only on the lengths, which are public). Nothing allocates. */
#ifndef FGP_SHA256_H
#define FGP_SHA256_H
#include <stddef.h>
#include <stdint.h>

#define FGP_SHA256_BYTES 32  /* digest size */
#define FGP_SHA256_BLOCK 64  /* block size */

typedef struct {
    uint32_t h[8];                      /* chaining state */
    uint8_t buf[FGP_SHA256_BLOCK];      /* pending bytes, buf_len of them */
    size_t buf_len;
    uint64_t total;                     /* bytes absorbed */
} fgp_sha256_ctx;

void fgp_sha256_init(fgp_sha256_ctx *c);
void fgp_sha256_update(fgp_sha256_ctx *c, const uint8_t *in, size_t len);
void fgp_sha256_final(uint8_t out[FGP_SHA256_BYTES], fgp_sha256_ctx *c); /* c is wiped */

/* Tests: on = 1 runs the portable C compression even where the CPU has the
 * SHA extensions (used otherwise); not thread-safe, call before any hashing. */
void fgp_sha256_force_portable(int on);

/* An HMAC-SHA-256 key: the inner and outer states after the padded key's
 * block, so that each message under the same key costs its own blocks only. */
typedef struct {
    fgp_sha256_ctx inner, outer;
} fgp_hmac_key;

/* k = the HMAC state of key[0..len) (len <= FGP_SHA256_BLOCK: RFC 6979's keys are 32 bytes). */
void fgp_hmac_sha256_key(fgp_hmac_key *k, const uint8_t *key, size_t len);
/* out = HMAC-SHA-256(k, the concatenation of the n parts parts[i][0..lens[i])). */
void fgp_hmac_sha256(uint8_t out[FGP_SHA256_BYTES], const fgp_hmac_key *k,
                     const uint8_t *const *parts, const size_t *lens, size_t n);
#endif
