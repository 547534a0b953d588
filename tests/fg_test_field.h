/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Shared by the per-field test programs (test_field, ct_field, test_abi,
 * fuzz_field). Compiled with -DFG_FIELD=name -DFG_FIELD_UC=NAME, it includes
 * that field's header and names its API generically:
 *   FE        the element type fg_NAME        F(op)  fg_NAME_op
 *   C(name)   the macro FG_NAME_name          N      limbs, NBYTES bytes
 * plus a splitmix64 generator and, after <gmp.h>, the GMP model of the
 * field's internal domain (R = 2^(64N) for Montgomery fields, else 1). */
#ifndef FG_TEST_FIELD_H
#define FG_TEST_FIELD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fg_cpu.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define STR_(a) #a
#define STR(a) STR_(a)
#include STR(CAT(fg_, FG_FIELD).h)

#define FE CAT(fg_, FG_FIELD)
#define F(op) CAT(CAT(fg_, FG_FIELD), CAT(_, op))
#define K(op, level) CAT(F(op), CAT(_, level))
#define C(name) CAT(CAT(FG_, FG_FIELD_UC), CAT(_, name))
#define N C(LIMBS)
#define NBYTES C(BYTES)

static uint64_t rng_state;
static inline uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A random canonical element: random bytes, their top byte halved
 * until from_bytes accepts them (public set-up, not constant time). */
static inline void fgt_element(FE *x)
{
    uint8_t b[NBYTES];
    size_t i;
    for (i = 0; i < sizeof b; i++)
        b[i] = (uint8_t)rnd();
    for (i = 0; !F(from_bytes)(x, b); i++)
        b[C(BYTE_ORDER_BIG) ? i % sizeof b : sizeof b - 1 - i % sizeof b] >>= 1;
}

#ifdef __GNU_MP__
static inline void to_mpz(mpz_t z, const uint64_t *limbs, size_t n)
{
    mpz_import(z, n, -1, sizeof(uint64_t), 0, 0, limbs);
}

/* bytes = v (0 <= v < 2^(8*len), len <= WIDE_BYTES) as len bytes in the
 * field's byte order */
static inline void encode_len(uint8_t *bytes, size_t len, const mpz_t v)
{
    uint8_t be[C(WIDE_BYTES)];
    size_t count = 0, j;
    memset(be, 0, sizeof be);
    mpz_export(be, &count, 1, 1, 1, 0, v);
    memmove(be + len - count, be, count);
    memset(be, 0, len - count);
    for (j = 0; j < len; j++)
        bytes[j] = C(BYTE_ORDER_BIG) ? be[j] : be[len - 1 - j];
}

/* bytes = v (0 <= v < 2^(8*NBYTES)) in the field's byte order */
static inline void encode(uint8_t bytes[NBYTES], const mpz_t v)
{
    encode_len(bytes, NBYTES, v);
}

/* p, R^-1 mod p, R mod p, and the largest input redc admits (p*R - 1 for
 * Montgomery fields, 2^(128N) - 1 otherwise); the caller mpz_inits them. */
static inline void fgt_model(mpz_t p, mpz_t rinv, mpz_t rmod, mpz_t wide_max)
{
    to_mpz(p, F(P), N);
#if C(MONTGOMERY)
    mpz_set_ui(rmod, 1);
    mpz_mul_2exp(rmod, rmod, 64 * N);
    mpz_mul(wide_max, rmod, p);
    mpz_sub_ui(wide_max, wide_max, 1);
    mpz_mod(rmod, rmod, p);
    mpz_invert(rinv, rmod, p);
#else
    mpz_set_ui(rmod, 1);
    mpz_set_ui(rinv, 1);
    mpz_set_ui(wide_max, 1);
    mpz_mul_2exp(wide_max, wide_max, 128 * N);
    mpz_sub_ui(wide_max, wide_max, 1);
#endif
}
#endif

#endif /* FG_TEST_FIELD_H */
