/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* P-256 ECDH and ECDSA on fg_p256 and fg_p256n: see fgp_p256.h.
 *
 * Points are projective (X:Y:Z) with x = X/Z, y = Y/Z; the identity is
 * (0:1:0). Every point operation is complete: it is correct for every pair
 * of inputs, the identity and equal or opposite points included, so the
 * scalar multiplications have no special cases and no branches.
 */
#include "fgp_p256.h"

#include <string.h>

#include "fg_p256.h"
#include "fg_p256n.h"
#include "fgp_sha256.h"

#if !FG_P256_MONTGOMERY || FG_P256_LIMBS != 4
#error "fgp_p256_table.h holds fg_p256 values in Montgomery form on 4 limbs: regenerate it for this representation"
#endif
#include "fgp_p256_table.h"

/* Constant-time checks (ct_p256.c) build this file with FGP_P256_CT_CHECK:
 * DECLASSIFY then tells Valgrind that a value derived from a secret is public
 * from there on (a signature's r, a nonce candidate's rejection), as
 * libsecp256k1's secp256k1_declassify does. */
#ifdef FGP_P256_CT_CHECK
#include <valgrind/memcheck.h>
#define DECLASSIFY(p, len) VALGRIND_MAKE_MEM_DEFINED((p), (len))
#else
#define DECLASSIFY(p, len) ((void)(p), (void)(len))
#endif

#define SCALAR_BYTES FGP_P256_SCALAR_BYTES
#define COORD_BYTES FG_P256_BYTES
#define SEC1_UNCOMPRESSED 0x04
#define SEC1_COMPRESSED_EVEN 0x02
#define SEC1_COMPRESSED_ODD 0x03

/* The variable-base window: signed digits of VAR_BITS bits, a table of
 * VAR_ENTRIES + 1 points (0 * P .. VAR_ENTRIES * P). */
#define VAR_BITS 5
#define VAR_WINDOWS ((256 + VAR_BITS - 1) / VAR_BITS) /* 52 */
#define VAR_ENTRIES (1 << (VAR_BITS - 1))             /* 16 */

typedef struct {
    fg_p256 x, y, z;
} point;

typedef struct {
    fg_p256 x, y;
} affine;

/* ---- Point arithmetic: Renes-Costello-Batina 2016, a = -3 ---- */

/* r = p + q, Algorithm 4 (12 M, 2 M by b, 29 additions). Any inputs. */
static void point_add(point *r, const point *p, const point *q)
{
    fg_p256 t0, t1, t2, t3, t4, x3, y3, z3;
    fg_p256_mul(&t0, &p->x, &q->x);
    fg_p256_mul(&t1, &p->y, &q->y);
    fg_p256_mul(&t2, &p->z, &q->z);
    fg_p256_add(&t3, &p->x, &p->y);
    fg_p256_add(&t4, &q->x, &q->y);
    fg_p256_mul(&t3, &t3, &t4);
    fg_p256_add(&t4, &t0, &t1);
    fg_p256_sub(&t3, &t3, &t4);        /* t3 = X1 Y2 + X2 Y1 */
    fg_p256_add(&t4, &p->y, &p->z);
    fg_p256_add(&x3, &q->y, &q->z);
    fg_p256_mul(&t4, &t4, &x3);
    fg_p256_add(&x3, &t1, &t2);
    fg_p256_sub(&t4, &t4, &x3);        /* t4 = Y1 Z2 + Y2 Z1 */
    fg_p256_add(&x3, &p->x, &p->z);
    fg_p256_add(&y3, &q->x, &q->z);
    fg_p256_mul(&x3, &x3, &y3);
    fg_p256_add(&y3, &t0, &t2);
    fg_p256_sub(&y3, &x3, &y3);        /* y3 = X1 Z2 + X2 Z1 */
    fg_p256_mul(&z3, &FGP_P256_B, &t2);
    fg_p256_sub(&x3, &y3, &z3);
    fg_p256_add(&z3, &x3, &x3);
    fg_p256_add(&x3, &x3, &z3);
    fg_p256_sub(&z3, &t1, &x3);
    fg_p256_add(&x3, &t1, &x3);
    fg_p256_mul(&y3, &FGP_P256_B, &y3);
    fg_p256_add(&t1, &t2, &t2);
    fg_p256_add(&t2, &t1, &t2);        /* t2 = 3 Z1 Z2 */
    fg_p256_sub(&y3, &y3, &t2);
    fg_p256_sub(&y3, &y3, &t0);
    fg_p256_add(&t1, &y3, &y3);
    fg_p256_add(&y3, &t1, &y3);
    fg_p256_add(&t1, &t0, &t0);
    fg_p256_add(&t0, &t1, &t0);        /* t0 = 3 X1 X2 */
    fg_p256_sub(&t0, &t0, &t2);
    fg_p256_mul(&t1, &t4, &y3);
    fg_p256_mul(&t2, &t0, &y3);
    fg_p256_mul(&y3, &x3, &z3);
    fg_p256_add(&y3, &y3, &t2);
    fg_p256_mul(&x3, &t3, &x3);
    fg_p256_sub(&r->x, &x3, &t1);
    fg_p256_mul(&z3, &t4, &z3);
    fg_p256_mul(&t1, &t3, &t0);
    fg_p256_add(&r->z, &z3, &t1);
    r->y = y3;
}

/* r = p + q for an affine q (Z2 = 1), Algorithm 5 (11 M, 2 M by b, 23
 * additions). Complete for every p and every affine q; q cannot be the
 * identity (the comb's digits are never zero). */
static void point_add_affine(point *r, const point *p, const affine *q)
{
    fg_p256 t0, t1, t2, t3, t4, x3, y3, z3;
    fg_p256_mul(&t0, &p->x, &q->x);
    fg_p256_mul(&t1, &p->y, &q->y);
    fg_p256_add(&t3, &q->x, &q->y);
    fg_p256_add(&t4, &p->x, &p->y);
    fg_p256_mul(&t3, &t3, &t4);
    fg_p256_add(&t4, &t0, &t1);
    fg_p256_sub(&t3, &t3, &t4);        /* t3 = X1 y2 + x2 Y1 */
    fg_p256_mul(&t4, &q->y, &p->z);
    fg_p256_add(&t4, &t4, &p->y);      /* t4 = Y1 + y2 Z1 */
    fg_p256_mul(&y3, &q->x, &p->z);
    fg_p256_add(&y3, &y3, &p->x);      /* y3 = X1 + x2 Z1 */
    fg_p256_mul(&z3, &FGP_P256_B, &p->z);
    fg_p256_sub(&x3, &y3, &z3);
    fg_p256_add(&z3, &x3, &x3);
    fg_p256_add(&x3, &x3, &z3);
    fg_p256_sub(&z3, &t1, &x3);
    fg_p256_add(&x3, &t1, &x3);
    fg_p256_mul(&y3, &FGP_P256_B, &y3);
    fg_p256_add(&t1, &p->z, &p->z);
    fg_p256_add(&t2, &t1, &p->z);      /* t2 = 3 Z1 */
    fg_p256_sub(&y3, &y3, &t2);
    fg_p256_sub(&y3, &y3, &t0);
    fg_p256_add(&t1, &y3, &y3);
    fg_p256_add(&y3, &t1, &y3);
    fg_p256_add(&t1, &t0, &t0);
    fg_p256_add(&t0, &t1, &t0);        /* t0 = 3 X1 x2 */
    fg_p256_sub(&t0, &t0, &t2);
    fg_p256_mul(&t1, &t4, &y3);
    fg_p256_mul(&t2, &t0, &y3);
    fg_p256_mul(&y3, &x3, &z3);
    fg_p256_add(&y3, &y3, &t2);
    fg_p256_mul(&x3, &t3, &x3);
    fg_p256_sub(&r->x, &x3, &t1);
    fg_p256_mul(&z3, &t4, &z3);
    fg_p256_mul(&t1, &t3, &t0);
    fg_p256_add(&r->z, &z3, &t1);
    r->y = y3;
}

/* r = 2 p, Algorithm 6 (8 M, 3 S, 2 M by b, 21 additions). Any input. */
static void point_dbl(point *r, const point *p)
{
    fg_p256 t0, t1, t2, t3, x3, y3, z3;
    fg_p256_sqr(&t0, &p->x);
    fg_p256_sqr(&t1, &p->y);
    fg_p256_sqr(&t2, &p->z);
    fg_p256_mul(&t3, &p->x, &p->y);
    fg_p256_add(&t3, &t3, &t3);
    fg_p256_mul(&z3, &p->x, &p->z);
    fg_p256_add(&z3, &z3, &z3);
    fg_p256_mul(&y3, &FGP_P256_B, &t2);
    fg_p256_sub(&y3, &y3, &z3);
    fg_p256_add(&x3, &y3, &y3);
    fg_p256_add(&y3, &x3, &y3);
    fg_p256_sub(&x3, &t1, &y3);
    fg_p256_add(&y3, &t1, &y3);
    fg_p256_mul(&y3, &x3, &y3);
    fg_p256_mul(&x3, &x3, &t3);
    fg_p256_add(&t3, &t2, &t2);
    fg_p256_add(&t2, &t2, &t3);        /* t2 = 3 Z^2 */
    fg_p256_mul(&z3, &FGP_P256_B, &z3);
    fg_p256_sub(&z3, &z3, &t2);
    fg_p256_sub(&z3, &z3, &t0);
    fg_p256_add(&t3, &z3, &z3);
    fg_p256_add(&z3, &z3, &t3);
    fg_p256_add(&t3, &t0, &t0);
    fg_p256_add(&t0, &t3, &t0);        /* t0 = 3 X^2 */
    fg_p256_sub(&t0, &t0, &t2);
    fg_p256_mul(&t0, &t0, &z3);
    fg_p256_add(&y3, &y3, &t0);
    fg_p256_mul(&t0, &p->y, &p->z);
    fg_p256_add(&t0, &t0, &t0);        /* t0 = 2 Y Z */
    fg_p256_mul(&z3, &t0, &z3);
    fg_p256_sub(&r->x, &x3, &z3);
    fg_p256_mul(&z3, &t0, &t1);
    fg_p256_add(&z3, &z3, &z3);
    fg_p256_add(&r->z, &z3, &z3);
    r->y = y3;
}

static void point_identity(point *r)
{
    fg_p256_zero(&r->x);
    fg_p256_one(&r->y);
    fg_p256_zero(&r->z);
}

static void point_from_affine(point *r, const affine *a)
{
    r->x = a->x;
    r->y = a->y;
    fg_p256_one(&r->z);
}

/* y = cond ? -y : y, without a branch. */
static void cond_neg(fg_p256 *y, int cond)
{
    fg_p256 n;
    fg_p256_neg(&n, y);
    fg_p256_cmov(y, &n, cond);
}

/* (x, y) = p in affine coordinates. Returns 0 (and zeros) for the identity.
 * Constant time (fg_p256_inv is); the return value may be secret. */
static int point_to_affine(affine *a, const point *p)
{
    fg_p256 zi;
    int ok = fg_p256_inv(&zi, &p->z);
    fg_p256_mul(&a->x, &p->x, &zi);
    fg_p256_mul(&a->y, &p->y, &zi);
    return ok;
}

/* ---- Scalars ---- */

/* Bit window [pos, pos + bits) of the 32-byte big-endian k (bits above 255 are 0). */
static unsigned scalar_window(const uint8_t k[SCALAR_BYTES], unsigned pos, unsigned bits)
{
    unsigned v = 0;
    for (unsigned b = 0; b < bits && pos + b < 256; b++) {
        unsigned bit = pos + b;
        v |= (unsigned)((k[SCALAR_BYTES - 1 - bit / 8] >> (bit % 8)) & 1) << b;
    }
    return v;
}

/* Signed recoding: k = sum over i < windows of d[i] 2^(bits i), every digit
 * but the last in [-2^(bits-1), 2^(bits-1)), the last in [0, 2^(bits-1)]:
 * it holds the top 256 - bits (windows - 1) bits of k plus a carry, which
 * fits for any 32-byte k (RECODE_FITS below). The digits are stored as
 * magnitude and sign. Branch-free: carries and signs come from arithmetic on
 * the window values. */
#define RECODE_FITS(bits, windows) \
    ((windows) * (bits) >= 256 && (1u << (256 - (bits) * ((windows) - 1))) <= (1u << ((bits) - 1)))
typedef char recode_fits_var[RECODE_FITS(VAR_BITS, VAR_WINDOWS) ? 1 : -1];
static void scalar_recode(uint8_t mag[], uint8_t neg[], const uint8_t k[SCALAR_BYTES], unsigned bits, unsigned windows)
{
    unsigned carry = 0, half = 1u << (bits - 1);
    for (unsigned i = 0; i < windows; i++) {
        unsigned t = scalar_window(k, bits * i, bits) + carry; /* in [0, 2^bits] */
        unsigned c = (t + half) >> bits;                       /* t >= half */
        if (i == windows - 1)
            c = 0;                                             /* public: the last digit keeps t */
        unsigned d = t - (c << bits);                          /* two's complement of the digit */
        unsigned s = (d >> (8 * sizeof d - 1)) & 1;            /* d < 0 */
        mag[i] = (uint8_t)((d ^ (0u - s)) + s);                /* |d| */
        neg[i] = (uint8_t)s;
        carry = c;
    }
}

/* The comb's regular recoding (Joye and Tunstall's odd digits): an odd k is
 * sum over i < windows of d[i] 2^(bits i) with every d[i] odd, so never 0:
 * with k_0 = k and k_(i+1) = (k_i >> bits) | 1, d[i] = (k_i mod 2^(bits+1)) -
 * 2^bits in (-2^bits, 2^bits) (then k_i = d[i] + 2^bits k_(i+1)), and the last
 * digit is k_(windows-1) itself, the top bits of k with bit 0 set, which
 * stays below 2^bits (COMB_FITS). k_i's low bits + 1 are k's window at bits i
 * with bit 0 set, so no carry crosses windows. Stored as the table index
 * (|d| - 1) / 2 and the sign. Branch-free. */
#define COMB_FITS (FGP_P256_COMB_WINDOWS * FGP_P256_COMB_BITS >= 256 && \
                   256 - FGP_P256_COMB_BITS * (FGP_P256_COMB_WINDOWS - 1) <= FGP_P256_COMB_BITS)
typedef char comb_fits[COMB_FITS ? 1 : -1];
static void comb_recode(uint8_t idx[FGP_P256_COMB_WINDOWS], uint8_t neg[FGP_P256_COMB_WINDOWS], const uint8_t k[SCALAR_BYTES])
{
    const unsigned bits = FGP_P256_COMB_BITS, top = 1u << bits;
    for (unsigned i = 0; i < FGP_P256_COMB_WINDOWS; i++) {
        unsigned u = scalar_window(k, bits * i, bits + 1) | 1; /* k_i mod 2^(bits+1) */
        unsigned s = ((u >> bits) & 1) ^ 1;                    /* d < 0 */
        unsigned m;
        if (i == FGP_P256_COMB_WINDOWS - 1)
            s = 0, m = u;                                      /* public: the last digit is k_i */
        else
            m = ((u - top) ^ (0u - s)) + s;                    /* |u - 2^bits| */
        idx[i] = (uint8_t)(m >> 1);
        neg[i] = (uint8_t)s;
    }
}

/* kb = k if k is odd, else n - k (odd, since n is); returns 1 if k was even,
 * when (n - k) G = -(k G). For k in [1, n-1]; constant time. */
static int make_odd(uint8_t kb[SCALAR_BYTES], const uint8_t k[SCALAR_BYTES])
{
    fg_p256n s, ns;
    uint8_t nk[SCALAR_BYTES];
    int even = 1 - (k[SCALAR_BYTES - 1] & 1);
    uint8_t mask = (uint8_t)(0u - (unsigned)even);
    fg_p256n_from_bytes(&s, k);
    fg_p256n_neg(&ns, &s);
    fg_p256n_to_bytes(nk, &ns);
    for (unsigned i = 0; i < SCALAR_BYTES; i++)
        kb[i] = (uint8_t)((k[i] & ~mask) | (nk[i] & mask));
    return even;
}

/* 1 if k is in [1, n-1], else 0; constant time (the result is the only
 * thing that may leak). s = k mod n as an fg_p256n value, or 1 when k is
 * out of range, so that callers can compute on through without a branch. */
static int scalar_parse(fg_p256n *s, const uint8_t k[SCALAR_BYTES])
{
    fg_p256n one;
    int ok = fg_p256n_from_bytes(s, k);
    ok &= 1 - fg_p256n_is_zero(s);
    fg_p256n_one(&one);
    fg_p256n_cmov(s, &one, 1 - ok);
    return ok;
}

/* ---- Scalar multiplications ---- */

/* r = k * G for k in [1, n-1], constant time in k: the comb of
 * fgp_p256_table.h over the odd recoding of k or n - k, one mixed addition
 * per digit (the first digit's point starts the sum) and no doublings, no
 * zero digit; each lookup reads every entry of its window. */
static void mul_base(point *r, const uint8_t k[SCALAR_BYTES])
{
    uint8_t kb[SCALAR_BYTES], idx[FGP_P256_COMB_WINDOWS], neg[FGP_P256_COMB_WINDOWS];
    int even = make_odd(kb, k);
    comb_recode(idx, neg, kb);
    for (unsigned i = 0; i < FGP_P256_COMB_WINDOWS; i++) {
        affine a;
        fg_p256_select(&a.x, FGP_P256_COMB[i][0], FGP_P256_COMB_ENTRIES, idx[i]);
        fg_p256_select(&a.y, FGP_P256_COMB[i][1], FGP_P256_COMB_ENTRIES, idx[i]);
        cond_neg(&a.y, neg[i]);
        if (i == 0)
            point_from_affine(r, &a);
        else
            point_add_affine(r, r, &a);
    }
    cond_neg(&r->y, even);
    memset(kb, 0, sizeof kb);
}

/* r = k * p for any 32-byte k, constant time in k: a table
 * of 0 p .. 16 p, then 5 doublings and one complete addition per signed 5-bit
 * digit, each lookup reading every entry. */
static void mul_var(point *r, const uint8_t k[SCALAR_BYTES], const point *p)
{
    fg_p256 tx[VAR_ENTRIES + 1], ty[VAR_ENTRIES + 1], tz[VAR_ENTRIES + 1];
    uint8_t mag[VAR_WINDOWS], neg[VAR_WINDOWS];
    point t, q;

    point_identity(&t);
    tx[0] = t.x, ty[0] = t.y, tz[0] = t.z;
    tx[1] = p->x, ty[1] = p->y, tz[1] = p->z;
    for (unsigned j = 2; j <= VAR_ENTRIES; j++) { /* j P = 2 (j/2) P, or (j-1) P + P */
        point prev = {tx[j / 2], ty[j / 2], tz[j / 2]};
        if (j % 2 == 0) {
            point_dbl(&t, &prev);
        } else {
            prev = (point){tx[j - 1], ty[j - 1], tz[j - 1]};
            point_add(&t, &prev, p);
        }
        tx[j] = t.x, ty[j] = t.y, tz[j] = t.z;
    }

    scalar_recode(mag, neg, k, VAR_BITS, VAR_WINDOWS);
    point_identity(r);
    for (unsigned i = VAR_WINDOWS; i-- > 0;) {
        for (unsigned d = 0; d < VAR_BITS && i != VAR_WINDOWS - 1; d++)
            point_dbl(r, r);
        fg_p256_select(&q.x, tx, VAR_ENTRIES + 1, mag[i]);
        fg_p256_select(&q.y, ty, VAR_ENTRIES + 1, mag[i]);
        fg_p256_select(&q.z, tz, VAR_ENTRIES + 1, mag[i]);
        cond_neg(&q.y, neg[i]);
        point_add(r, r, &q);
    }
}

/* ---- Variable time, for verify (public scalars and points) ---- */

static int all_zero(const uint8_t *p, size_t len)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < len; i++)
        acc |= p[i];
    return acc == 0;
}

/* The wNAF of verify's u2: odd digits of magnitude < 2^(WNAF_BITS-1), each
 * followed by at least WNAF_BITS - 1 zeros; a table of the odd multiples
 * 1 P, 3 P, .., (2^(WNAF_BITS-1) - 1) P. */
#define WNAF_BITS 5
#define WNAF_ODD (1 << (WNAF_BITS - 2)) /* 8 odd multiples */
#define WNAF_DIGITS 257                  /* a 256-bit scalar's wNAF has at most 257 digits */

/* digits[i] for i < 257, k = sum digits[i] 2^i. Variable time. */
static void wnaf_recode(int8_t digits[WNAF_DIGITS], const uint8_t kb[SCALAR_BYTES])
{
    uint64_t k[5] = {0};
    for (unsigned i = 0; i < SCALAR_BYTES; i++)
        k[(SCALAR_BYTES - 1 - i) / 8] |= (uint64_t)kb[i] << (8 * ((SCALAR_BYTES - 1 - i) % 8));
    for (unsigned i = 0; i < WNAF_DIGITS; i++) {
        int d = 0;
        if (k[0] & 1) {
            d = (int)(k[0] & ((1u << WNAF_BITS) - 1));
            if (d >= 1 << (WNAF_BITS - 1))
                d -= 1 << WNAF_BITS;
            /* k -= d: d odd, |d| < 16; the low WNAF_BITS bits become 0 */
            uint64_t sub = (uint64_t)(d < 0 ? -d : d), c;
            if (d > 0) {
                c = k[0] < sub;
                k[0] -= sub;
                for (unsigned j = 1; j < 5 && c; j++)
                    c = k[j]-- == 0;
            } else {
                k[0] += sub;
                c = k[0] < sub;
                for (unsigned j = 1; j < 5 && c; j++)
                    c = ++k[j] == 0;
            }
        }
        digits[i] = (int8_t)d;
        for (unsigned j = 0; j < 4; j++)
            k[j] = k[j] >> 1 | k[j + 1] << 63;
        k[4] >>= 1;
    }
}

/* r = u1 G + u2 q for u1, u2 in [0, n-1], variable time: the comb with
 * direct lookups for u1 G, a wNAF with doublings for u2 q. */
static void mul_double_vartime(point *r, const uint8_t u1[SCALAR_BYTES], const uint8_t u2[SCALAR_BYTES], const point *q)
{
    uint8_t kb[SCALAR_BYTES], idx[FGP_P256_COMB_WINDOWS], neg[FGP_P256_COMB_WINDOWS];
    int8_t digits[WNAF_DIGITS];
    point odd[WNAF_ODD], q2, acc, base;
    int top;

    point_identity(&base);
    if (!all_zero(u1, SCALAR_BYTES)) { /* u1 = 0 when the digest is 0 mod n */
        int even = make_odd(kb, u1);
        comb_recode(idx, neg, kb);
        for (unsigned i = 0; i < FGP_P256_COMB_WINDOWS; i++) {
            affine a = {FGP_P256_COMB[i][0][idx[i]], FGP_P256_COMB[i][1][idx[i]]};
            if (neg[i])
                fg_p256_neg(&a.y, &a.y);
            point_add_affine(&base, &base, &a);
        }
        if (even)
            fg_p256_neg(&base.y, &base.y);
    }

    odd[0] = *q;
    point_dbl(&q2, q);
    for (unsigned j = 1; j < WNAF_ODD; j++)
        point_add(&odd[j], &odd[j - 1], &q2);
    wnaf_recode(digits, u2);
    for (top = WNAF_DIGITS - 1; top >= 0 && digits[top] == 0; top--)
        ;
    point_identity(&acc);
    for (int i = top; i >= 0; i--) {
        if (i != top)
            point_dbl(&acc, &acc);
        if (digits[i] != 0) {
            point t = odd[(digits[i] < 0 ? -digits[i] : digits[i]) / 2];
            if (digits[i] < 0)
                fg_p256_neg(&t.y, &t.y);
            point_add(&acc, &acc, &t);
        }
    }
    point_add(r, &base, &acc);
}

/* ---- SEC1 encodings ---- */

/* rhs = x^3 - 3 x + b. */
static void curve_rhs(fg_p256 *rhs, const fg_p256 *x)
{
    fg_p256 t, x3;
    fg_p256_sqr(&t, x);
    fg_p256_mul(&t, &t, x);
    fg_p256_add(&x3, x, x);
    fg_p256_add(&x3, &x3, x);
    fg_p256_sub(&t, &t, &x3);
    fg_p256_add(rhs, &t, &FGP_P256_B);
}

/* Decode a SEC1 point (public data: branches are fine). 1 and p if valid. */
static int point_decode(point *p, const uint8_t *in, size_t len)
{
    affine a;
    fg_p256 rhs, y2;
    if (in == NULL)
        return 0;
    if (len == FGP_P256_POINT_BYTES && in[0] == SEC1_UNCOMPRESSED) {
        if (!fg_p256_from_bytes(&a.x, in + 1) || !fg_p256_from_bytes(&a.y, in + 1 + COORD_BYTES))
            return 0;
        curve_rhs(&rhs, &a.x);
        fg_p256_sqr(&y2, &a.y);
        if (!fg_p256_eq(&y2, &rhs))
            return 0;
    } else if (len == FGP_P256_COMPRESSED_BYTES && (in[0] == SEC1_COMPRESSED_EVEN || in[0] == SEC1_COMPRESSED_ODD)) {
        uint8_t yb[COORD_BYTES];
        if (!fg_p256_from_bytes(&a.x, in + 1))
            return 0;
        curve_rhs(&rhs, &a.x);
        if (!fg_p256_sqrt(&a.y, &rhs))
            return 0;
        fg_p256_to_bytes(yb, &a.y);
        if ((yb[COORD_BYTES - 1] & 1) != (in[0] & 1))
            fg_p256_neg(&a.y, &a.y); /* y != 0: P-256 has no point of order 2 */
    } else {
        return 0;
    }
    point_from_affine(p, &a);
    return 1;
}

static void affine_encode(uint8_t out[FGP_P256_POINT_BYTES], const affine *a)
{
    out[0] = SEC1_UNCOMPRESSED;
    fg_p256_to_bytes(out + 1, &a->x);
    fg_p256_to_bytes(out + 1 + COORD_BYTES, &a->y);
}

/* out[i] &= mask for i < len (mask 0x00 or 0xff): invalid input's zeros, no branch. */
static void mask_bytes(uint8_t *out, size_t len, int ok)
{
    uint8_t mask = (uint8_t)(0u - (unsigned)ok);
    for (size_t i = 0; i < len; i++)
        out[i] &= mask;
}

/* The working copy of a private key: k itself if valid, else 1 (so the
 * computation runs on without a branch and its output is masked away). */
static int scalar_bytes(uint8_t kb[SCALAR_BYTES], const uint8_t k[SCALAR_BYTES])
{
    fg_p256n s;
    int ok = scalar_parse(&s, k);
    fg_p256n_to_bytes(kb, &s);
    return ok;
}

/* ---- The API ---- */

int fgp_p256_mul_base(uint8_t out[65], const uint8_t k[32])
{
    uint8_t kb[SCALAR_BYTES];
    point r;
    affine a;
    int ok = scalar_bytes(kb, k);
    mul_base(&r, kb);
    ok &= point_to_affine(&a, &r);
    affine_encode(out, &a);
    mask_bytes(out, FGP_P256_POINT_BYTES, ok);
    memset(kb, 0, sizeof kb);
    return ok;
}

int fgp_p256_public_key(uint8_t pub[65], const uint8_t priv[32])
{
    return fgp_p256_mul_base(pub, priv);
}

/* r = k * (the point at in), affine; 0 for an invalid k or point, or the identity. */
static int mul_point(affine *a, const uint8_t k[32], const uint8_t *in, size_t len)
{
    uint8_t kb[SCALAR_BYTES];
    point p, r;
    int ok = scalar_bytes(kb, k);
    if (!point_decode(&p, in, len)) { /* public */
        memset(kb, 0, sizeof kb);
        fg_p256_zero(&a->x);
        fg_p256_zero(&a->y);
        return 0;
    }
    mul_var(&r, kb, &p);
    ok &= point_to_affine(a, &r);
    memset(kb, 0, sizeof kb);
    return ok;
}

int fgp_p256_mul(uint8_t out[65], const uint8_t k[32], const uint8_t *point, size_t len)
{
    affine a;
    int ok = mul_point(&a, k, point, len);
    affine_encode(out, &a);
    mask_bytes(out, FGP_P256_POINT_BYTES, ok);
    return ok;
}

int fgp_p256_ecdh(uint8_t secret[32], const uint8_t priv[32], const uint8_t *peer, size_t peer_len)
{
    affine a;
    int ok = mul_point(&a, priv, peer, peer_len);
    fg_p256_to_bytes(secret, &a.x);
    mask_bytes(secret, SCALAR_BYTES, ok);
    return ok;
}

/* ---- ECDSA ---- */

/* RFC 6979 section 3.2's HMAC_DRBG state: the key K and the value V. */
typedef struct {
    fgp_hmac_key k;
    uint8_t v[FGP_SHA256_BYTES];
} rfc6979;

/* Steps d-g: K = HMAC_K(V || sep || x || h1) and V = HMAC_K(V), for sep 0, then 1
 * (x and h1 the private key and the reduced digest, 32 bytes each). */
static void rfc6979_init(rfc6979 *st, const uint8_t x[SCALAR_BYTES], const uint8_t h1[SCALAR_BYTES])
{
    uint8_t key[FGP_SHA256_BYTES];
    memset(st->v, 0x01, sizeof st->v);
    st->k = FGP_P256_RFC6979_K0; /* steps b-c: K = 32 zero bytes, its HMAC state precomputed */
    for (uint8_t sep = 0; sep <= 1; sep++) {
        const uint8_t *parts[4] = {st->v, &sep, x, h1};
        const size_t lens[4] = {sizeof st->v, 1, SCALAR_BYTES, SCALAR_BYTES};
        const uint8_t *vpart[1] = {st->v};
        const size_t vlen[1] = {sizeof st->v};
        fgp_hmac_sha256(key, &st->k, parts, lens, 4);
        fgp_hmac_sha256_key(&st->k, key, sizeof key);
        fgp_hmac_sha256(st->v, &st->k, vpart, vlen, 1);
    }
    memset(key, 0, sizeof key);
}

/* Step h: the next candidate T = V = HMAC_K(V) (qlen = hlen = 256: one block). */
static void rfc6979_next(uint8_t t[SCALAR_BYTES], rfc6979 *st)
{
    const uint8_t *vpart[1] = {st->v};
    const size_t vlen[1] = {sizeof st->v};
    fgp_hmac_sha256(st->v, &st->k, vpart, vlen, 1);
    memcpy(t, st->v, SCALAR_BYTES);
}

/* Step h.3 on rejection: K = HMAC_K(V || 0x00), V = HMAC_K(V). */
static void rfc6979_reseed(rfc6979 *st)
{
    uint8_t key[FGP_SHA256_BYTES], zero = 0;
    const uint8_t *parts[2] = {st->v, &zero};
    const size_t lens[2] = {sizeof st->v, 1};
    const uint8_t *vpart[1] = {st->v};
    const size_t vlen[1] = {sizeof st->v};
    fgp_hmac_sha256(key, &st->k, parts, lens, 2);
    fgp_hmac_sha256_key(&st->k, key, sizeof key);
    fgp_hmac_sha256(st->v, &st->k, vpart, vlen, 1);
    memset(key, 0, sizeof key);
}

int fgp_p256_ecdsa_sign(uint8_t sig[64], const uint8_t digest[32], const uint8_t priv[32])
{
    fg_p256n d, z, k, kinv, r, s, t;
    uint8_t xb[SCALAR_BYTES], hb[SCALAR_BYTES], kb[SCALAR_BYTES], rb[COORD_BYTES];
    rfc6979 st;
    int ok = scalar_parse(&d, priv);

    fg_p256n_from_bytes_wide(&z, digest, SCALAR_BYTES); /* bits2octets: the digest mod n */
    fg_p256n_to_bytes(xb, &d);
    fg_p256n_to_bytes(hb, &z);
    rfc6979_init(&st, xb, hb);
    for (;;) {
        point kg;
        affine a;
        int k_ok, done;
        rfc6979_next(kb, &st);
        k_ok = scalar_parse(&k, kb);
        DECLASSIFY(&k_ok, sizeof k_ok); /* a rejected candidate is skipped in public, as the RFC does */
        if (!k_ok) {
            rfc6979_reseed(&st);
            continue;
        }
        mul_base(&kg, kb);
        point_to_affine(&a, &kg); /* kG != identity: k in [1, n-1] */
        fg_p256_to_bytes(rb, &a.x);
        fg_p256n_from_bytes_wide(&r, rb, COORD_BYTES); /* r = x mod n */
        fg_p256n_inv(&kinv, &k);
        fg_p256n_mul(&t, &r, &d);
        fg_p256n_add(&t, &t, &z);
        fg_p256n_mul(&s, &kinv, &t);                   /* s = k^-1 (z + r d) */
        fg_p256n_to_bytes(sig, &r);
        fg_p256n_to_bytes(sig + SCALAR_BYTES, &s);
        done = (1 - fg_p256n_is_zero(&r)) & (1 - fg_p256n_is_zero(&s));
        DECLASSIFY(&done, sizeof done);                /* a retry shows r or s was 0, as the RFC does */
        if (done)
            break;
        rfc6979_reseed(&st);
    }
    mask_bytes(sig, FGP_P256_SIGNATURE_BYTES, ok);
    memset(&st, 0, sizeof st);
    memset(kb, 0, sizeof kb);
    memset(xb, 0, sizeof xb);
    return ok;
}

int fgp_p256_ecdsa_verify(const uint8_t sig[64], const uint8_t digest[32], const uint8_t *pub, size_t pub_len)
{
    fg_p256n r, s, w, z, u1, u2, xr;
    uint8_t u1b[SCALAR_BYTES], u2b[SCALAR_BYTES], xb[COORD_BYTES];
    point q, sum;
    affine res;

    if (!fg_p256n_from_bytes(&r, sig) || fg_p256n_is_zero(&r))
        return 0;
    if (!fg_p256n_from_bytes(&s, sig + SCALAR_BYTES) || fg_p256n_is_zero(&s))
        return 0;
    if (!point_decode(&q, pub, pub_len))
        return 0;
    fg_p256n_from_bytes_wide(&z, digest, SCALAR_BYTES);
    fg_p256n_inv(&w, &s);
    fg_p256n_mul(&u1, &z, &w);
    fg_p256n_mul(&u2, &r, &w);
    fg_p256n_to_bytes(u1b, &u1);
    fg_p256n_to_bytes(u2b, &u2);
    mul_double_vartime(&sum, u1b, u2b, &q);
    if (!point_to_affine(&res, &sum))
        return 0; /* u1 G + u2 Q = identity */
    fg_p256_to_bytes(xb, &res.x);
    fg_p256n_from_bytes_wide(&xr, xb, COORD_BYTES);
    return fg_p256n_eq(&xr, &r);
}
