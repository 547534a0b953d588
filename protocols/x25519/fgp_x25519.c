/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* X25519 (RFC 7748) on fg_p25519: the clamped scalar's Montgomery ladder on
 * projective x-coordinates, with fg_p25519_cswap between steps and one
 * inversion at the end; for the base point, a fixed-base multiplication on
 * the birationally equivalent Ed25519 with a committed table. Only the
 * public fg_p25519_* API is used. */
#include "fgp_x25519.h"

#include <string.h>

#include "fg_p25519.h"

#define LADDER_TOP_BIT 254 /* the clamped scalar's highest bit: the ladder runs bits 254..0 */
#define A24 121665u        /* (A - 2) / 4 for Curve25519's A = 486662 (RFC 7748 section 5) */

/* Zero n bytes at p (the stack copies of secrets) through a volatile
 * pointer, so the stores survive; a word at a time when p is aligned (the
 * field elements; the address is public). */
static void wipe(void *p, size_t n)
{
    volatile uint8_t *v = (volatile uint8_t *)p;
    if ((uintptr_t)p % sizeof(uint64_t) == 0) {
        volatile uint64_t *w = (volatile uint64_t *)p;
        for (; n >= sizeof *w; n -= sizeof *w)
            *w++ = 0;
        v = (volatile uint8_t *)w;
    }
    while (n--)
        *v++ = 0;
}

/* RFC 7748's decodeScalar25519: clear bits 0, 1, 2 and 255, set bit 254. */
static void clamp(uint8_t k[FGP_X25519_BYTES], const uint8_t scalar[FGP_X25519_BYTES])
{
    memcpy(k, scalar, FGP_X25519_BYTES);
    k[0] &= 248;
    k[31] &= 127;
    k[31] |= 64;
}

/* The ladder's arithmetic. Where the field has pseudo-Mersenne lazy ops
 * (FG_P25519_HAVE_LAZY on a plain-form field: operands and results any
 * values below 2^256, OpenSSL's fe64 range), the whole ladder runs on them,
 * with no final reduction in any step; cswap takes such values too, and the
 * result is made canonical only at the end (encode_affine). Otherwise the
 * canonical ops. */
#if FG_P25519_HAVE_LAZY && !FG_P25519_MONTGOMERY
#define LADDER_LAZY 1
#define L_ADD fg_p25519_add_lazy
#define L_SUB fg_p25519_sub_lazy
#define L_MUL fg_p25519_mul_lazy
#define L_SQR fg_p25519_sqr_lazy
#define L_MUL_SMALL fg_p25519_mul_small_lazy
#else
#define LADDER_LAZY 0
#define L_ADD fg_p25519_add
#define L_SUB fg_p25519_sub
#define L_MUL fg_p25519_mul
#define L_SQR fg_p25519_sqr
#define L_MUL_SMALL fg_p25519_mul_small
#endif

/* x2/z2 = the u-coordinate of [k] P, P's u-coordinate being x1, by RFC 7748's
 * ladder (5 mul, 4 sqr and one multiplication by a24 per bit). x1 is
 * canonical; x2 and z2 are lazy values when LADDER_LAZY. */
static void ladder(fg_p25519 *x2, fg_p25519 *z2, const uint8_t k[FGP_X25519_BYTES], const fg_p25519 *x1)
{
    fg_p25519 x3, z3, a, aa, b, bb, e, c, d, da, cb;
    int t, swap = 0, bit;

    fg_p25519_one(x2);
    fg_p25519_zero(z2);
    x3 = *x1;
    fg_p25519_one(&z3);
    for (t = LADDER_TOP_BIT; t >= 0; t--) {
        bit = (k[t >> 3] >> (t & 7)) & 1;
        swap ^= bit;
        fg_p25519_cswap(x2, &x3, swap);
        fg_p25519_cswap(z2, &z3, swap);
        swap = bit;

        /* RFC 7748's formulas, ordered so that independent products are
         * adjacent (DA, CB, AA, BB; then x2 beside the (DA -+ CB)^2): the
         * core overlaps neighbouring calls, not distant ones */
        L_ADD(&a, x2, z2);      /* A = x2 + z2 */
        L_SUB(&b, x2, z2);      /* B = x2 - z2 */
        L_ADD(&c, &x3, &z3);    /* C = x3 + z3 */
        L_SUB(&d, &x3, &z3);    /* D = x3 - z3 */
        L_MUL(&da, &d, &a);     /* DA = D * A */
        L_MUL(&cb, &c, &b);     /* CB = C * B */
        L_SQR(&aa, &a);         /* AA = A^2 */
        L_SQR(&bb, &b);         /* BB = B^2 */
        L_ADD(&x3, &da, &cb);
        L_SUB(&z3, &da, &cb);
        L_MUL(x2, &aa, &bb);    /* x2 = AA * BB */
        L_SUB(&e, &aa, &bb);    /* E = AA - BB */
        L_SQR(&z3, &z3);
        L_MUL_SMALL(&a, &e, A24);
        L_SQR(&x3, &x3);        /* x3 = (DA + CB)^2 */
        L_ADD(&a, &a, &aa);     /* AA + a24 * E */
        L_MUL(&z3, &z3, x1);    /* z3 = x1 * (DA - CB)^2 */
        L_MUL(z2, &e, &a);      /* z2 = E * (AA + a24 * E) */
    }
    fg_p25519_cswap(x2, &x3, swap);
    fg_p25519_cswap(z2, &z3, swap);

    wipe(&x3, sizeof x3);
    wipe(&z3, sizeof z3);
    wipe(&a, sizeof a);
    wipe(&aa, sizeof aa);
    wipe(&b, sizeof b);
    wipe(&bb, sizeof bb);
    wipe(&e, sizeof e);
    wipe(&c, sizeof c);
    wipe(&d, sizeof d);
    wipe(&da, sizeof da);
    wipe(&cb, sizeof cb);
}

/* out = the canonical encoding of x2 / z2 (0 when z2 = 0, as RFC 7748's
 * x2 * z2^(p-2) gives). With LADDER_LAZY x2 and z2 are lazy values: z2 is
 * made canonical for the inversion; mul takes the lazy x2 and returns a
 * canonical product. */
static void encode_affine(uint8_t out[FGP_X25519_BYTES], const fg_p25519 *x2, const fg_p25519 *z2)
{
    fg_p25519 zinv, r;
#if LADDER_LAZY
    fg_p25519 zc;
    fg_p25519_canon(&zc, z2);
    (void)fg_p25519_inv(&zinv, &zc); /* 0 and zinv = 0 when z2 = 0: public either way, not read */
    wipe(&zc, sizeof zc);
#else
    (void)fg_p25519_inv(&zinv, z2); /* 0 and zinv = 0 when z2 = 0: public either way, not read */
#endif
    fg_p25519_mul(&r, x2, &zinv);
    fg_p25519_to_bytes(out, &r);
    wipe(&zinv, sizeof zinv);
    wipe(&r, sizeof r);
}

int fgp_x25519(uint8_t out[FGP_X25519_BYTES], const uint8_t scalar[FGP_X25519_BYTES],
               const uint8_t u[FGP_X25519_BYTES])
{
    uint8_t k[FGP_X25519_BYTES], ub[FGP_X25519_BYTES];
    fg_p25519 x1, x2, z2;
    unsigned acc = 0;
    size_t i;

    clamp(k, scalar);
    memcpy(ub, u, FGP_X25519_BYTES);
    ub[31] &= 127; /* RFC 7748: the top bit of u is masked */
    /* u in [0, 2^255) reduced mod p: values in [p, 2^255) are accepted (RFC 7748 section 5) */
    (void)fg_p25519_from_bytes_wide(&x1, ub, FGP_X25519_BYTES);
    ladder(&x2, &z2, k, &x1);
    encode_affine(out, &x2, &z2);

    for (i = 0; i < FGP_X25519_BYTES; i++)
        acc |= out[i];
    wipe(k, sizeof k);
    wipe(ub, sizeof ub);
    wipe(&x1, sizeof x1);
    wipe(&x2, sizeof x2);
    wipe(&z2, sizeof z2);
    return (int)(((acc - 1u) >> 8) & 1u) ^ 1; /* acc in [0, 255]: 0 iff acc == 0, no branch */
}

/* ---- fixed base: k * B on Ed25519, then its Montgomery u-coordinate ----
 * X25519(k, 9) is the u-coordinate of k * B, B Ed25519's base point (whose
 * image under u = (1 + y) / (1 - y) is u = 9). With k in signed radix 16,
 * k = sum e_i 16^i, e_i in [-8, 8], k * B = sum e_i (16^i B): 64 additions of
 * table entries (gen_base_table.py), no doublings, each entry chosen by
 * fg_p25519_select (every entry of its window read, whatever the digit) and
 * negated by a conditional swap and move. Ed25519's addition is complete, so
 * the neutral entry and every sum take the same formulas. */
#if FG_P25519_MONTGOMERY || FG_P25519_LIMBS != 4
#error "fgp_x25519_base_table.h holds plain 4-limb values of p25519 (gen_base_table.py)"
#endif
#include "fgp_x25519_base_table.h"

#define RADIX_BITS 4
#define DIGIT_HALF 8 /* digits in [-8, 8] */

/* An Ed25519 point in extended coordinates: x = X/Z, y = Y/Z, x y = T/Z. */
typedef struct {
    fg_p25519 x, y, z, t;
} ext_point;

/* e[0..63]: k = sum e[i] 16^i with e[i] in [-8, 8], without branches (each
 * carry is 0 or 1, and every intermediate is non-negative). */
static void recode(signed char e[FGP_X25519_BASE_WINDOWS], const uint8_t k[FGP_X25519_BYTES])
{
    int i, carry = 0, v;
    for (i = 0; i < FGP_X25519_BYTES; i++) {
        e[2 * i] = (signed char)(k[i] & 15);
        e[2 * i + 1] = (signed char)(k[i] >> RADIX_BITS);
    }
    for (i = 0; i < FGP_X25519_BASE_WINDOWS - 1; i++) {
        v = e[i] + carry;                   /* in [0, 16] */
        carry = (v + DIGIT_HALF) >> RADIX_BITS; /* 1 if v >= 8 */
        e[i] = (signed char)(v - (carry << RADIX_BITS));
    }
    e[FGP_X25519_BASE_WINDOWS - 1] = (signed char)(e[FGP_X25519_BASE_WINDOWS - 1] + carry); /* k < 2^255: <= 8 */
}

/* r += digit * 16^window * B (mixed addition, 7 mul: a = -1 twisted Edwards,
 * the table entry affine with 2 d x y precomputed). With LADDER_LAZY r's
 * coordinates are lazy values, the table's (and so xy2d, negated by the
 * canonical neg) canonical. */
static void add_base_multiple(ext_point *r, int window, int digit)
{
    fg_p25519 ypx, ymx, xy2d, m, a, b, c, d, e, f, g, h;
    unsigned neg = (unsigned)digit >> (sizeof(unsigned) * 8 - 1); /* 1 if digit < 0 */
    size_t abs_digit = (size_t)(((unsigned)digit ^ (0u - neg)) + neg);

    fg_p25519_select(&ypx, base_ypx[window], FGP_X25519_BASE_DIGITS, abs_digit);
    fg_p25519_select(&ymx, base_ymx[window], FGP_X25519_BASE_DIGITS, abs_digit);
    fg_p25519_select(&xy2d, base_xy2d[window], FGP_X25519_BASE_DIGITS, abs_digit);
    fg_p25519_cswap(&ypx, &ymx, (int)neg); /* -(x, y) = (-x, y) */
    fg_p25519_neg(&m, &xy2d);
    fg_p25519_cmov(&xy2d, &m, (int)neg);

    L_SUB(&a, &r->y, &r->x);
    L_ADD(&b, &r->y, &r->x);
    L_MUL(&a, &a, &ymx);   /* A = (Y - X)(y - x) */
    L_MUL(&b, &b, &ypx);   /* B = (Y + X)(y + x) */
    L_MUL(&c, &r->t, &xy2d); /* C = T 2 d x y */
    L_ADD(&d, &r->z, &r->z); /* D = 2 Z */
    L_SUB(&e, &b, &a);
    L_SUB(&f, &d, &c);
    L_ADD(&g, &d, &c);
    L_ADD(&h, &b, &a);
    L_MUL(&r->x, &e, &f);
    L_MUL(&r->y, &g, &h);
    L_MUL(&r->t, &e, &h);
    L_MUL(&r->z, &f, &g);

    wipe(&ypx, sizeof ypx);
    wipe(&ymx, sizeof ymx);
    wipe(&xy2d, sizeof xy2d);
    wipe(&m, sizeof m);
    wipe(&a, sizeof a);
    wipe(&b, sizeof b);
    wipe(&c, sizeof c);
    wipe(&d, sizeof d);
    wipe(&e, sizeof e);
    wipe(&f, sizeof f);
    wipe(&g, sizeof g);
    wipe(&h, sizeof h);
}

void fgp_x25519_base(uint8_t out[FGP_X25519_BYTES], const uint8_t scalar[FGP_X25519_BYTES])
{
    uint8_t k[FGP_X25519_BYTES];
    signed char e[FGP_X25519_BASE_WINDOWS];
    ext_point r;
    fg_p25519 num, den;
    int i;

    clamp(k, scalar);
    recode(e, k);
    fg_p25519_zero(&r.x); /* the neutral point (0, 1) */
    fg_p25519_one(&r.y);
    fg_p25519_one(&r.z);
    fg_p25519_zero(&r.t);
    for (i = 0; i < FGP_X25519_BASE_WINDOWS; i++)
        add_base_multiple(&r, i, e[i]);
    /* u = (1 + y) / (1 - y) = (Z + Y) / (Z - Y) */
    L_ADD(&num, &r.z, &r.y);
    L_SUB(&den, &r.z, &r.y);
    encode_affine(out, &num, &den);

    wipe(k, sizeof k);
    wipe(e, sizeof e);
    wipe(&r, sizeof r);
    wipe(&num, sizeof num);
    wipe(&den, sizeof den);
}
