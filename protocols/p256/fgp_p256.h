/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fgp_p256: P-256 (NIST P-256, secp256r1) ECDH and ECDSA on fieldgen's fields
 * fg_p256 (coordinates mod p) and fg_p256n (scalars mod the group order n).
 *
 * Formats (SEC 1 v2):
 *   private keys and scalars  32 bytes, big-endian integers;
 *   points                    65 bytes uncompressed (0x04 || x || y) or 33 bytes
 *                             compressed (0x02 | (y & 1), then x); outputs are
 *                             always uncompressed;
 *   digests                   32 bytes (e.g. SHA-256 of the message), read as
 *                             a big-endian integer and reduced mod n;
 *   signatures                r || s, 32 bytes each, big-endian.
 *
 * Every function returns 1 on success and 0 on invalid input, and then writes
 * zeros to its whole output. A private key (or scalar) is valid in [1, n-1];
 * 0, n and anything larger are rejected, never reduced. A point is valid when
 * it has one of the two lengths and prefixes above, its coordinates are below
 * p and it lies on the curve; the point at infinity (the 1-byte 0x00) is
 * rejected. Whether an input is valid is the only thing the return value says.
 *
 * Constant time: no branch and no memory index depends on a private key, a
 * scalar or a nonce (checked under Valgrind, protocols/p256/ct_p256.c). Public
 * data (points, digests, signatures, validity) may steer branches; verify is
 * variable time, since all its inputs are public. Nothing allocates; every
 * function is thread-safe and reentrant. Outputs may not overlap inputs.
 *
 * The arithmetic: points in projective coordinates (X:Y:Z) with the complete
 * addition and doubling formulas of Renes, Costello and Batina ("Complete
 * addition formulas for prime order elliptic curves", EUROCRYPT 2016,
 * Algorithms 4-6 for a = -3); docs/protocols.md ("P-256") describes the scalar
 * multiplications and their tables.
 */
#ifndef FGP_P256_H
#define FGP_P256_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define FGP_P256_SCALAR_BYTES 32       /* private keys, scalars, ECDH secrets, digests */
#define FGP_P256_POINT_BYTES 65        /* uncompressed SEC1 point */
#define FGP_P256_COMPRESSED_BYTES 33   /* compressed SEC1 point */
#define FGP_P256_SIGNATURE_BYTES 64    /* r || s */

/* pub = priv * G, uncompressed. 0 if priv is 0 or >= n. */
int fgp_p256_public_key(uint8_t pub[65], const uint8_t priv[32]);

/* secret = the x-coordinate of priv * peer, 32 bytes big-endian (SEC1's ECDH
 * primitive; what EVP_PKEY_derive returns). 0 if priv is 0 or >= n, or peer
 * (peer_len bytes) is not a valid point. */
int fgp_p256_ecdh(uint8_t secret[32], const uint8_t priv[32], const uint8_t *peer, size_t peer_len);

/* sig = the ECDSA signature (r, s) of digest under priv, with the nonce of
 * RFC 6979 section 3.2 (HMAC-SHA-256; deterministic: the same inputs give the
 * same signature, equal to RFC 6979's for its test vectors); a candidate nonce
 * outside [1, n-1], or one giving r = 0 or s = 0, is skipped for the next, as
 * the RFC says. s is not normalized to the low half. 0 if priv is 0 or >= n. */
int fgp_p256_ecdsa_sign(uint8_t sig[64], const uint8_t digest[32], const uint8_t priv[32]);

/* 1 if sig is a valid ECDSA signature of digest under the public key pub
 * (pub_len bytes, uncompressed or compressed); 0 if it is not, if r or s is
 * 0 or >= n, or if pub is not a valid point. Variable time (public inputs).
 * Writes nothing. */
int fgp_p256_ecdsa_verify(const uint8_t sig[64], const uint8_t digest[32], const uint8_t *pub, size_t pub_len);

/* EC point multiplication for benchmarks and tests (issue 55's "k*G" and
 * "k*P"): out = k * G by the fixed-base comb that signing uses (this is
 * fgp_p256_public_key), and out = k * point by the variable-base window that
 * ECDH uses, both uncompressed and constant time in k. 0 if k is 0 or >= n,
 * or point (len bytes) is not valid. */
int fgp_p256_mul_base(uint8_t out[65], const uint8_t k[32]);
int fgp_p256_mul(uint8_t out[65], const uint8_t k[32], const uint8_t *point, size_t len);

#ifdef __cplusplus
}
#endif
#endif
