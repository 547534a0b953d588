/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen protocols: X25519 (RFC 7748, section 5) on the generated field
 * fg_p25519 (p = 2^255 - 19), built only on its public fg_p25519_* API.
 *
 * Byte strings are RFC 7748's: 32 bytes, little-endian. Neither function
 * allocates, and neither branches on or indexes memory by the scalar or the
 * u-coordinate: the time taken is independent of both (checked under
 * Valgrind with the scalar and u marked undefined: ct_x25519.c beside this header). Outputs may
 * alias inputs. */
#ifndef FGP_X25519_H
#define FGP_X25519_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FGP_X25519_BYTES 32 /* scalars, u-coordinates and shared secrets */

/* out = X25519(scalar, u): the u-coordinate of [k] P on Curve25519, where
 * k is the scalar clamped as RFC 7748 says (bits 0, 1, 2 and 255 cleared,
 * bit 254 set) and P is a point with u-coordinate u.
 *
 * u is decoded as RFC 7748 requires: bit 255 (the top bit of u[31]) is
 * ignored, and a value in [p, 2^255) is accepted and reduced mod p; every
 * 32-byte string is valid input (points on the twist included, as the RFC
 * allows). The output is canonical, in [0, p).
 *
 * Returns 1, or 0 if out is all zero (u is a point of small order, or the
 * zero value: the Diffie-Hellman check of RFC 7748 section 6.1, which
 * OpenSSL's X25519 derive reports as a failure). out is written either way.
 * The return value is public; computing it takes no branch on out. */
int fgp_x25519(uint8_t out[FGP_X25519_BYTES], const uint8_t scalar[FGP_X25519_BYTES],
               const uint8_t u[FGP_X25519_BYTES]);

/* out = X25519(scalar, 9): the public key of the private key scalar (the
 * base point's u = 9), clamped as above. Never all zero. */
void fgp_x25519_base(uint8_t out[FGP_X25519_BYTES], const uint8_t scalar[FGP_X25519_BYTES]);

#ifdef __cplusplus
}
#endif
#endif /* FGP_X25519_H */
