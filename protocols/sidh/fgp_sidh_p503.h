/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fgp_sidh_p503.h: SIDH key agreement on fieldgen's p503 field (SIKE round-3
 * parameters SIDHp503), built only on the public fg_p503_* API.
 *
 * WARNING: SIDH IS BROKEN. Castryck and Decru (2022) recover the secret key
 * from a public key in hours on a laptop; later attacks (Maino-Martindale,
 * Robert) extend it, Robert's in polynomial time. NEVER USE THIS FOR SECURITY. It is here only
 * as the workload the p503 and p751 fields were made for: a benchmark of Fp2
 * arithmetic with known answers (PQCrypto-SIDH v3.5.1's vectors).
 *
 * Byte formats (the SIKE specification's, and PQCrypto-SIDH's):
 *   - an Fp2 element a0 + a1*i is a0 || a1, each the canonical value in [0, p)
 *     in 63 little-endian bytes;
 *   - ska: an integer in [0, 2^250), little-endian, FGP_SIDH_P503_SKA_BYTES bytes;
 *   - skb: an integer in [0, 2^252) (2^floor(log2 3^eB)), little-endian,
 *     FGP_SIDH_P503_SKB_BYTES bytes;
 *   - a public key: three affine x-coordinates x(phi(P)) || x(phi(Q)) ||
 *     x(phi(P - Q)) of the other party's basis on the image curve;
 *   - a shared secret: the j-invariant of the final curve, one Fp2 element.
 *
 * Every function returns 1 on success and 0 on invalid input, and then writes
 * zeros to its whole output. Invalid: a secret key out of its range (a bit set
 * at or above bit SKA_BITS / SKB_BITS); a public key with a coordinate >= p, or
 * with x(P) * x(Q) * x(P - Q) = 0 (no such curve). The output may not overlap
 * the inputs. Constant time in the secret key (no branch or memory index on it;
 * whether it is in range is computed without a branch, and only the return
 * value tells); public keys are public. No heap allocation; thread-safe (no
 * global state besides fieldgen's CPU dispatch word). Stack: about 8 KB in this
 * code (gcc -fstack-usage), plus the field functions'.
 */
#ifndef FGP_SIDH_P503_H
#define FGP_SIDH_P503_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FGP_SIDH_P503_SKA_BYTES 32  /* Alice's secret key */
#define FGP_SIDH_P503_SKB_BYTES 32  /* Bob's secret key */
#define FGP_SIDH_P503_SKA_BITS 250  /* ska < 2^SKA_BITS (eA) */
#define FGP_SIDH_P503_SKB_BITS 252  /* skb < 2^SKB_BITS (floor(log2 3^eB)) */
#define FGP_SIDH_P503_PK_BYTES 378  /* a public key: three Fp2 elements */
#define FGP_SIDH_P503_SS_BYTES 126  /* a shared secret: one Fp2 element */

/* pk = Alice's public key for the secret ska (kernel <PA + [ska]QA>). */
int fgp_sidh_p503_keygen_a(uint8_t pk[FGP_SIDH_P503_PK_BYTES], const uint8_t ska[FGP_SIDH_P503_SKA_BYTES]);
/* pk = Bob's public key for the secret skb (kernel <PB + [skb]QB>). */
int fgp_sidh_p503_keygen_b(uint8_t pk[FGP_SIDH_P503_PK_BYTES], const uint8_t skb[FGP_SIDH_P503_SKB_BYTES]);
/* ss = the shared j-invariant, from Alice's ska and Bob's public key pkb. */
int fgp_sidh_p503_shared_a(uint8_t ss[FGP_SIDH_P503_SS_BYTES], const uint8_t ska[FGP_SIDH_P503_SKA_BYTES],
                           const uint8_t pkb[FGP_SIDH_P503_PK_BYTES]);
/* ss = the shared j-invariant, from Bob's skb and Alice's public key pka. */
int fgp_sidh_p503_shared_b(uint8_t ss[FGP_SIDH_P503_SS_BYTES], const uint8_t skb[FGP_SIDH_P503_SKB_BYTES],
                           const uint8_t pka[FGP_SIDH_P503_PK_BYTES]);

#ifdef __cplusplus
}
#endif
#endif /* FGP_SIDH_P503_H */
