/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fgp_sidh_p751.h: SIDH key agreement on fieldgen's p751 field (SIKE round-3
 * parameters SIDHp751), built only on the public fg_p751_* API.
 *
 * WARNING: SIDH IS BROKEN. Castryck and Decru (2022) recover the secret key
 * from a public key in hours on a laptop; later attacks (Maino-Martindale,
 * Robert) extend it, Robert's in polynomial time. NEVER USE THIS FOR SECURITY. It is here only
 * as the workload the p503 and p751 fields were made for: a benchmark of Fp2
 * arithmetic with known answers (PQCrypto-SIDH v3.5.1's vectors).
 *
 * Byte formats (the SIKE specification's, and PQCrypto-SIDH's):
 *   - an Fp2 element a0 + a1*i is a0 || a1, each the canonical value in [0, p)
 *     in 94 little-endian bytes;
 *   - ska: an integer in [0, 2^372), little-endian, FGP_SIDH_P751_SKA_BYTES bytes;
 *   - skb: an integer in [0, 2^378) (2^floor(log2 3^eB)), little-endian,
 *     FGP_SIDH_P751_SKB_BYTES bytes;
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
 * global state besides fieldgen's CPU dispatch word). Stack: about 12 KB in
 * this code (gcc -fstack-usage), plus the field functions'.
 */
#ifndef FGP_SIDH_P751_H
#define FGP_SIDH_P751_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FGP_SIDH_P751_SKA_BYTES 47  /* Alice's secret key */
#define FGP_SIDH_P751_SKB_BYTES 48  /* Bob's secret key */
#define FGP_SIDH_P751_SKA_BITS 372  /* ska < 2^SKA_BITS (eA) */
#define FGP_SIDH_P751_SKB_BITS 378  /* skb < 2^SKB_BITS (floor(log2 3^eB)) */
#define FGP_SIDH_P751_PK_BYTES 564  /* a public key: three Fp2 elements */
#define FGP_SIDH_P751_SS_BYTES 188  /* a shared secret: one Fp2 element */

/* pk = Alice's public key for the secret ska (kernel <PA + [ska]QA>). */
int fgp_sidh_p751_keygen_a(uint8_t pk[FGP_SIDH_P751_PK_BYTES], const uint8_t ska[FGP_SIDH_P751_SKA_BYTES]);
/* pk = Bob's public key for the secret skb (kernel <PB + [skb]QB>). */
int fgp_sidh_p751_keygen_b(uint8_t pk[FGP_SIDH_P751_PK_BYTES], const uint8_t skb[FGP_SIDH_P751_SKB_BYTES]);
/* ss = the shared j-invariant, from Alice's ska and Bob's public key pkb. */
int fgp_sidh_p751_shared_a(uint8_t ss[FGP_SIDH_P751_SS_BYTES], const uint8_t ska[FGP_SIDH_P751_SKA_BYTES],
                           const uint8_t pkb[FGP_SIDH_P751_PK_BYTES]);
/* ss = the shared j-invariant, from Bob's skb and Alice's public key pka. */
int fgp_sidh_p751_shared_b(uint8_t ss[FGP_SIDH_P751_SS_BYTES], const uint8_t skb[FGP_SIDH_P751_SKB_BYTES],
                           const uint8_t pka[FGP_SIDH_P751_PK_BYTES]);

#ifdef __cplusplus
}
#endif
#endif /* FGP_SIDH_P751_H */
