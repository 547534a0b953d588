/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * sidh_impl.h: SIDH key generation and shared secrets, written once for any
 * fieldgen field with Fp2 (p = 2^eA * 3^eB - 1, p = 3 mod 4). SIDH IS BROKEN
 * (Castryck-Decru 2022): a benchmark workload only, see fgp_sidh_p503.h.
 *
 * Included by fgp_sidh_<field>.c after it defines:
 *   SIDH_FIELD(x)   the field's names: fg_<field>_##x
 *   SIDH_API(x)     the exported names: fgp_sidh_<field>_##x
 *   SIDH_PARAM(x)   the generated parameters: sidh_<field>_##x (sidh_params_<field>.h)
 *   SIDH_EA, SIDH_SKB_BITS, SIDH_MAX_A, SIDH_MAX_B, SIDH_PTS_A, SIDH_PTS_B
 *   SIDH_SKA_BYTES, SIDH_SKB_BYTES, SIDH_PK_BYTES, SIDH_SS_BYTES, SIDH_FP2_BYTES
 *
 * Curves are Montgomery curves E_(A:C): C y^2 = x^3 + (A/C) x^2 + x kept
 * projectively, points x-only as (X : Z). Alice's curves are carried as
 * (A24+ : C24) = (A + 2C : 4C), Bob's as (A24- : A24+) = (A - 2C : A + 2C),
 * the representations the SIKE specification's isogeny formulas use; those
 * formulas (get_4_isog, eval_4_isog, get_3_isog, eval_3_isog) pick one
 * codomain curve, which is why public keys match PQCrypto-SIDH's byte for
 * byte. Every function below runs in time independent of the values it
 * handles; the only branches are on public data (the party, the strategy,
 * the public-key decoding).
 */
#include <string.h>

typedef SIDH_FIELD(fp2) fp2;
#define F2(op) SIDH_FIELD(fp2_##op)

typedef struct {
    fp2 x, z;
} pt;

enum party { ALICE, BOB };

/* A curve: c[0], c[1] = (A24+, C24) for Alice, (A24-, A24+) for Bob. */
typedef struct {
    fp2 c[2];
} curve;

static void fp2_set_small(fp2 *r, uint64_t v)
{
    SIDH_FIELD(from_u64)(&r->c0, v);
    SIDH_FIELD(zero)(&r->c1);
}

static void pt_cswap(pt *a, pt *b, int cond)
{
    F2(cswap)(&a->x, &b->x, cond);
    F2(cswap)(&a->z, &b->z, cond);
}

/* r = [2]p on (A24+ : C24). 4M + 2S. r may be p. */
static void xdbl(pt *r, const pt *p, const curve *e)
{
    fp2 t0, t1;
    F2(sub)(&t0, &p->x, &p->z);
    F2(add)(&t1, &p->x, &p->z);
    F2(sqr)(&t0, &t0);                 /* (X-Z)^2 */
    F2(sqr)(&t1, &t1);                 /* (X+Z)^2 */
    F2(mul)(&r->z, &e->c[1], &t0);     /* C24 (X-Z)^2 */
    F2(mul)(&r->x, &r->z, &t1);        /* X2 = C24 (X-Z)^2 (X+Z)^2 */
    F2(sub)(&t1, &t1, &t0);            /* 4XZ */
    F2(mul)(&t0, &e->c[0], &t1);       /* A24+ 4XZ */
    F2(add)(&r->z, &r->z, &t0);
    F2(mul)(&r->z, &r->z, &t1);        /* Z2 = 4XZ (C24 (X-Z)^2 + A24+ 4XZ) */
}

/* r = [3]p on (A24- : A24+). 7M + 5S. r may be p. */
static void xtpl(pt *r, const pt *p, const curve *e)
{
    fp2 t0, t1, t2, t3, t4, t5, t6;
    F2(sub)(&t0, &p->x, &p->z);        /* X-Z */
    F2(sqr)(&t2, &t0);                 /* (X-Z)^2 */
    F2(add)(&t1, &p->x, &p->z);        /* X+Z */
    F2(sqr)(&t3, &t1);                 /* (X+Z)^2 */
    F2(add)(&t4, &t0, &t1);            /* 2X */
    F2(sub)(&t0, &t1, &t0);            /* 2Z */
    F2(sqr)(&t1, &t4);                 /* 4X^2 */
    F2(sub)(&t1, &t1, &t3);
    F2(sub)(&t1, &t1, &t2);            /* 4X^2 - (X+Z)^2 - (X-Z)^2 */
    F2(mul)(&t5, &t3, &e->c[1]);       /* A24+ (X+Z)^2 */
    F2(mul)(&t3, &t3, &t5);            /* A24+ (X+Z)^4 */
    F2(mul)(&t6, &t2, &e->c[0]);       /* A24- (X-Z)^2 */
    F2(mul)(&t2, &t2, &t6);            /* A24- (X-Z)^4 */
    F2(sub)(&t3, &t2, &t3);            /* A24- (X-Z)^4 - A24+ (X+Z)^4 */
    F2(sub)(&t2, &t5, &t6);            /* A24+ (X+Z)^2 - A24- (X-Z)^2 */
    F2(mul)(&t1, &t1, &t2);
    F2(add)(&t2, &t3, &t1);
    F2(sqr)(&t2, &t2);
    F2(mul)(&r->x, &t4, &t2);          /* X3 = 2X (t3 + t1)^2 */
    F2(sub)(&t1, &t3, &t1);
    F2(sqr)(&t1, &t1);
    F2(mul)(&r->z, &t0, &t1);          /* Z3 = 2Z (t3 - t1)^2 */
}

/* The codomain of the 4-isogeny with kernel <p>, p of order 4:
 * (A24+ : C24) = (4X^4 : 4Z^4) up to the common factor, as the SIKE
 * specification's get_4_isog; coeff for eval_4. 5S. */
static void get_4_isog(const pt *p, curve *e, fp2 coeff[3])
{
    F2(sub)(&coeff[1], &p->x, &p->z);  /* X - Z */
    F2(add)(&coeff[2], &p->x, &p->z);  /* X + Z */
    F2(sqr)(&coeff[0], &p->z);
    F2(add)(&coeff[0], &coeff[0], &coeff[0]);   /* 2Z^2 */
    F2(sqr)(&e->c[1], &coeff[0]);               /* C24 = 4Z^4 */
    F2(add)(&coeff[0], &coeff[0], &coeff[0]);   /* 4Z^2 */
    F2(sqr)(&e->c[0], &p->x);
    F2(add)(&e->c[0], &e->c[0], &e->c[0]);      /* 2X^2 */
    F2(sqr)(&e->c[0], &e->c[0]);                /* A24+ = 4X^4 */
}

/* q = phi(q) for the 4-isogeny of get_4_isog. 6M + 2S. */
static void eval_4_isog(pt *q, const fp2 coeff[3])
{
    fp2 t0, t1;
    F2(add)(&t0, &q->x, &q->z);
    F2(sub)(&t1, &q->x, &q->z);
    F2(mul)(&q->x, &t0, &coeff[1]);    /* (X+Z)(X4-Z4) */
    F2(mul)(&q->z, &t1, &coeff[2]);    /* (X-Z)(X4+Z4) */
    F2(mul)(&t0, &t0, &t1);
    F2(mul)(&t0, &t0, &coeff[0]);      /* 4Z4^2 (X+Z)(X-Z) */
    F2(add)(&t1, &q->x, &q->z);
    F2(sub)(&q->z, &q->x, &q->z);
    F2(sqr)(&t1, &t1);
    F2(sqr)(&q->z, &q->z);
    F2(add)(&q->x, &t1, &t0);
    F2(sub)(&t0, &q->z, &t0);
    F2(mul)(&q->x, &q->x, &t1);
    F2(mul)(&q->z, &q->z, &t0);
}

/* The codomain of the 3-isogeny with kernel <p>, p of order 3, as
 * (A24- : A24+), the SIKE specification's get_3_isog; coeff for eval_3. 2M + 3S. */
static void get_3_isog(const pt *p, curve *e, fp2 coeff[2])
{
    fp2 t0, t1, t2, t3, t4;
    F2(sub)(&coeff[0], &p->x, &p->z);  /* X - Z */
    F2(sqr)(&t0, &coeff[0]);           /* (X-Z)^2 */
    F2(add)(&coeff[1], &p->x, &p->z);  /* X + Z */
    F2(sqr)(&t1, &coeff[1]);           /* (X+Z)^2 */
    F2(add)(&t2, &t0, &t1);
    F2(add)(&t3, &coeff[0], &coeff[1]);
    F2(sqr)(&t3, &t3);                 /* 4X^2 */
    F2(sub)(&t3, &t3, &t2);            /* 4X^2 - (X+Z)^2 - (X-Z)^2 */
    F2(add)(&t2, &t1, &t3);            /* 4X^2 - (X-Z)^2 */
    F2(add)(&t3, &t3, &t0);            /* 4X^2 - (X+Z)^2 */
    F2(add)(&t4, &t0, &t3);
    F2(add)(&t4, &t4, &t4);
    F2(add)(&t4, &t1, &t4);            /* 8X^2 - (X+Z)^2 + 2(X-Z)^2 */
    F2(mul)(&e->c[0], &t2, &t4);       /* A24- */
    F2(add)(&t4, &t1, &t2);
    F2(add)(&t4, &t4, &t4);
    F2(add)(&t4, &t0, &t4);            /* 8X^2 + 2(X+Z)^2 - (X-Z)^2 */
    F2(mul)(&e->c[1], &t3, &t4);       /* A24+ */
}

/* q = phi(q) for the 3-isogeny of get_3_isog. 4M + 2S. */
static void eval_3_isog(pt *q, const fp2 coeff[2])
{
    fp2 t0, t1, t2;
    F2(add)(&t0, &q->x, &q->z);
    F2(sub)(&t1, &q->x, &q->z);
    F2(mul)(&t0, &coeff[0], &t0);      /* (X3-Z3)(X+Z) */
    F2(mul)(&t1, &coeff[1], &t1);      /* (X3+Z3)(X-Z) */
    F2(add)(&t2, &t0, &t1);
    F2(sub)(&t0, &t1, &t0);
    F2(sqr)(&t2, &t2);
    F2(sqr)(&t0, &t0);
    F2(mul)(&q->x, &q->x, &t2);
    F2(mul)(&q->z, &q->z, &t0);
}

/* One step of the three-point ladder: p = [2]p and q = p + q, given
 * d = p - q (projective), on the affine curve with a2 = A + 2 (C = 1, so
 * C24 = 4). 7M + 4S. p, q, d distinct. */
static void xdbladd(pt *p, pt *q, const pt *d, const fp2 *a2)
{
    fp2 t0, t1, t2;
    F2(add)(&t0, &p->x, &p->z);
    F2(sub)(&t1, &p->x, &p->z);
    F2(sqr)(&p->x, &t0);               /* (XP+ZP)^2 */
    F2(sub)(&t2, &q->x, &q->z);
    F2(add)(&q->x, &q->x, &q->z);
    F2(mul)(&t0, &t0, &t2);            /* (XP+ZP)(XQ-ZQ) */
    F2(sqr)(&p->z, &t1);               /* (XP-ZP)^2 */
    F2(mul)(&t1, &t1, &q->x);          /* (XP-ZP)(XQ+ZQ) */
    F2(sub)(&t2, &p->x, &p->z);        /* 4 XP ZP */
    F2(add)(&p->z, &p->z, &p->z);
    F2(add)(&p->z, &p->z, &p->z);      /* 4 (XP-ZP)^2 */
    F2(mul)(&p->x, &p->x, &p->z);      /* X2P = 4 (XP+ZP)^2 (XP-ZP)^2 */
    F2(mul)(&q->x, a2, &t2);           /* (A+2) 4XZ */
    F2(sub)(&q->z, &t0, &t1);
    F2(add)(&p->z, &p->z, &q->x);
    F2(add)(&q->x, &t0, &t1);
    F2(mul)(&p->z, &p->z, &t2);        /* Z2P = 4XZ (4 (XP-ZP)^2 + (A+2) 4XZ) */
    F2(sqr)(&q->z, &q->z);
    F2(sqr)(&q->x, &q->x);
    F2(mul)(&q->z, &q->z, &d->x);      /* ZPQ' = X_d (...)^2 */
    F2(mul)(&q->x, &q->x, &d->z);      /* XPQ' = Z_d (...)^2 */
}

/* r = x(P + [k]Q) from affine xp, xq, xpq = x(P - Q) on y^2 = x^3 + A x^2 + x,
 * k the nbits-bit little-endian key (secret: only cswap depends on it).
 * Bits from the least significant; r0 = [2^i]Q, and of r, r2 one is
 * P + [k mod 2^i]Q, the other that minus r0, kept apart by the swaps. */
static void ladder3pt(pt *r, const fp2 *xp, const fp2 *xq, const fp2 *xpq, const uint8_t *k, int nbits,
                      const fp2 *a)
{
    pt r0, r2;
    fp2 a2, two;
    int i, prev = 0;
    fp2_set_small(&two, 2);
    F2(add)(&a2, a, &two);
    r0.x = *xq;
    F2(one)(&r0.z);
    r->x = *xp;
    F2(one)(&r->z);
    r2.x = *xpq;
    F2(one)(&r2.z);
    for (i = 0; i < nbits; i++) {
        int bit = (k[i >> 3] >> (i & 7)) & 1;
        pt_cswap(r, &r2, bit ^ prev);
        prev = bit;
        xdbladd(&r0, &r2, r, &a2);
    }
    pt_cswap(r, &r2, prev);
}

/* The strategy's multiplication step: [4]r for Alice (two xDBL), [3]r for Bob. */
static void mul_steps(enum party who, pt *r, const curve *e, unsigned steps)
{
    unsigned i;
    for (i = 0; i < steps; i++) {
        if (who == ALICE) {
            xdbl(r, r, e);
            xdbl(r, r, e);
        } else {
            xtpl(r, r, e);
        }
    }
}

static void get_isog(enum party who, const pt *k, curve *e, fp2 coeff[3])
{
    if (who == ALICE)
        get_4_isog(k, e, coeff);
    else
        get_3_isog(k, e, coeff);
}

static void eval_isog(enum party who, pt *q, const fp2 coeff[3])
{
    if (who == ALICE)
        eval_4_isog(q, coeff);
    else
        eval_3_isog(q, coeff);
}

#define SIDH_PTS_MAX (SIDH_PTS_A > SIDH_PTS_B ? SIDH_PTS_A : SIDH_PTS_B)

/* Walks the isogeny of kernel <r> (order 4^MAX_A or 3^MAX_B) by the
 * generated optimal strategy: e becomes the codomain, and the nphi points
 * phi[] are pushed through (phi may be NULL when nphi is 0). r is consumed. */
static void walk(enum party who, pt *r, curve *e, pt *phi, size_t nphi)
{
    const uint16_t *strat = who == ALICE ? SIDH_PARAM(strat_a) : SIDH_PARAM(strat_b);
    const unsigned max = who == ALICE ? SIDH_MAX_A : SIDH_MAX_B;
    pt pts[SIDH_PTS_MAX];
    unsigned idx[SIDH_PTS_MAX];
    unsigned row, index = 0, npts = 0, ii = 0, i;
    fp2 coeff[3];
    for (row = 1; row < max; row++) {
        while (index < max - row) {
            pts[npts] = *r;
            idx[npts++] = index;
            mul_steps(who, r, e, strat[ii]);
            index += strat[ii++];
        }
        get_isog(who, r, e, coeff);
        for (i = 0; i < npts; i++)
            eval_isog(who, &pts[i], coeff);
        for (i = 0; i < nphi; i++)
            eval_isog(who, &phi[i], coeff);
        *r = pts[--npts];
        index = idx[npts];
    }
    get_isog(who, r, e, coeff);
    for (i = 0; i < nphi; i++)
        eval_isog(who, &phi[i], coeff);
}

/* jinv = 256 (A^2 - 3C^2)^3 / (C^4 (A^2 - 4C^2)) of E_(A:C): one inversion. */
static void j_inv(fp2 *jinv, const fp2 *a, const fp2 *c)
{
    fp2 t0, t1, num;
    F2(sqr)(jinv, a);                  /* A^2 */
    F2(sqr)(&t1, c);                   /* C^2 */
    F2(add)(&t0, &t1, &t1);
    F2(sub)(&t0, jinv, &t0);
    F2(sub)(&t0, &t0, &t1);            /* A^2 - 3C^2 */
    F2(sub)(jinv, &t0, &t1);           /* A^2 - 4C^2 */
    F2(sqr)(&t1, &t1);                 /* C^4 */
    F2(mul)(jinv, jinv, &t1);          /* C^4 (A^2 - 4C^2) */
    F2(add)(&t0, &t0, &t0);
    F2(add)(&t0, &t0, &t0);            /* 4 (A^2 - 3C^2) */
    F2(sqr)(&t1, &t0);
    F2(mul)(&num, &t0, &t1);           /* 64 (A^2 - 3C^2)^3 */
    F2(add)(&num, &num, &num);
    F2(add)(&num, &num, &num);         /* 256 (A^2 - 3C^2)^3 */
    F2(inv)(jinv, jinv);
    F2(mul)(jinv, jinv, &num);
}

/* a = (1 - xP xQ - xP xR - xQ xR)^2 / (4 xP xQ xR) - xP - xQ - xR, the
 * coefficient of the curve on which xR = x(P - Q). Returns 0 (public) when
 * xP xQ xR = 0. */
static int get_a(fp2 *a, const fp2 *xp, const fp2 *xq, const fp2 *xr)
{
    fp2 t0, t1, one;
    int ok;
    F2(one)(&one);
    F2(add)(&t1, xp, xq);              /* xP + xQ */
    F2(mul)(&t0, xp, xq);              /* xP xQ */
    F2(mul)(a, xr, &t1);
    F2(add)(a, a, &t0);
    F2(sub)(a, a, &one);               /* xP xQ + xP xR + xQ xR - 1 */
    F2(mul)(&t0, &t0, xr);
    F2(add)(&t0, &t0, &t0);
    F2(add)(&t0, &t0, &t0);            /* 4 xP xQ xR */
    F2(add)(&t1, &t1, xr);
    F2(sqr)(a, a);
    ok = F2(inv)(&t0, &t0);
    F2(mul)(a, a, &t0);
    F2(sub)(a, a, &t1);
    return ok;
}

/* 1 if the little-endian key of nbytes bytes is below 2^nbits, else 0,
 * without a branch on it. */
static int key_in_range(const uint8_t *k, size_t nbytes, int nbits)
{
    unsigned top = k[nbytes - 1] & (0xffu & ~((1u << (nbits - 8 * ((int)nbytes - 1))) - 1u));
    return (int)((top - 1u) >> (8 * sizeof(unsigned) - 1));
}

/* out[0..n) &= ok ? 0xff : 0 (ok in {0, 1}, not branched on). */
static void mask_bytes(uint8_t *out, size_t n, int ok)
{
    uint8_t m = (uint8_t)(0u - (unsigned)ok);
    size_t i;
    for (i = 0; i < n; i++)
        out[i] &= m;
}

/* The kernel generator P + [k]Q of one party, the key masked to its range
 * (the range check is the caller's). */
static void kernel_point(enum party who, pt *r, const fp2 *xp, const fp2 *xq, const fp2 *xr, const fp2 *a,
                         const uint8_t *key)
{
    uint8_t k[SIDH_SKB_BYTES > SIDH_SKA_BYTES ? SIDH_SKB_BYTES : SIDH_SKA_BYTES];
    const size_t nbytes = who == ALICE ? SIDH_SKA_BYTES : SIDH_SKB_BYTES;
    const int nbits = who == ALICE ? SIDH_EA : SIDH_SKB_BITS;
    memcpy(k, key, nbytes);
    k[nbytes - 1] &= (uint8_t)((1u << (nbits - 8 * ((int)nbytes - 1))) - 1u);
    ladder3pt(r, xp, xq, xr, k, nbits, a);
    memset(k, 0, sizeof k);
}

static void decode_basis(fp2 x[3], const uint8_t *const enc[3])
{
    int i;
    for (i = 0; i < 3; i++)
        F2(from_bytes)(&x[i], enc[i]); /* the generated constants are canonical */
}

/* Both key generations: the own basis (own[]) gives the kernel, the other
 * party's (other[]) is pushed through and encoded affine. */
static int keygen(enum party who, uint8_t *pk, const uint8_t *key)
{
    static const uint8_t *const basis_a[3] = {SIDH_PARAM(xPA), SIDH_PARAM(xQA), SIDH_PARAM(xRA)};
    static const uint8_t *const basis_b[3] = {SIDH_PARAM(xPB), SIDH_PARAM(xQB), SIDH_PARAM(xRB)};
    const size_t nbytes = who == ALICE ? SIDH_SKA_BYTES : SIDH_SKB_BYTES;
    const int nbits = who == ALICE ? SIDH_EA : SIDH_SKB_BITS;
    const int ok = key_in_range(key, nbytes, nbits);
    fp2 own[3], other[3], a, z[3], scratch[3];
    pt r, phi[3];
    curve e;
    int i;
    decode_basis(own, who == ALICE ? basis_a : basis_b);
    decode_basis(other, who == ALICE ? basis_b : basis_a);
    fp2_set_small(&a, 6); /* E0: A = 6, C = 1 */
    if (who == ALICE) {
        fp2_set_small(&e.c[0], 8); /* A24+ = A + 2C */
        fp2_set_small(&e.c[1], 4); /* C24 = 4C */
    } else {
        fp2_set_small(&e.c[0], 4); /* A24- = A - 2C */
        fp2_set_small(&e.c[1], 8); /* A24+ = A + 2C */
    }
    kernel_point(who, &r, &own[0], &own[1], &own[2], &a, key);
    for (i = 0; i < 3; i++) {
        phi[i].x = other[i];
        F2(one)(&phi[i].z);
    }
    walk(who, &r, &e, phi, 3);
    for (i = 0; i < 3; i++)
        z[i] = phi[i].z;
    F2(inv_batch)(z, z, 3, scratch);
    for (i = 0; i < 3; i++) {
        F2(mul)(&phi[i].x, &phi[i].x, &z[i]);
        F2(to_bytes)(pk + i * SIDH_FP2_BYTES, &phi[i].x);
    }
    mask_bytes(pk, SIDH_PK_BYTES, ok);
    return ok;
}

/* Both shared secrets: the peer's public key gives the curve (get_a) and
 * the basis for the own kernel; the final curve's j-invariant is the secret. */
static int shared(enum party who, uint8_t *ss, const uint8_t *key, const uint8_t *pk)
{
    const size_t nbytes = who == ALICE ? SIDH_SKA_BYTES : SIDH_SKB_BYTES;
    const int nbits = who == ALICE ? SIDH_EA : SIDH_SKB_BITS;
    const int ok = key_in_range(key, nbytes, nbits);
    fp2 x[3], a, two, four, ja, jc, j;
    pt r;
    curve e;
    int i, valid = 1;
    for (i = 0; i < 3; i++)
        valid &= F2(from_bytes)(&x[i], pk + i * SIDH_FP2_BYTES);
    if (valid) /* public data */
        valid = get_a(&a, &x[0], &x[1], &x[2]);
    if (!valid) {
        memset(ss, 0, SIDH_SS_BYTES);
        return 0;
    }
    fp2_set_small(&two, 2);
    fp2_set_small(&four, 4);
    if (who == ALICE) {
        F2(add)(&e.c[0], &a, &two);    /* A24+ = A + 2 */
        e.c[1] = four;                 /* C24 = 4 */
    } else {
        F2(sub)(&e.c[0], &a, &two);    /* A24- = A - 2 */
        F2(add)(&e.c[1], &a, &two);    /* A24+ = A + 2 */
    }
    kernel_point(who, &r, &x[0], &x[1], &x[2], &a, key);
    walk(who, &r, &e, NULL, 0);
    if (who == ALICE) {                /* (4A : 4C) = (4 A24+ - 2 C24 : C24) */
        F2(add)(&ja, &e.c[0], &e.c[0]);
        F2(sub)(&ja, &ja, &e.c[1]);
        F2(add)(&ja, &ja, &ja);
        jc = e.c[1];
    } else {                           /* (4A : 4C) = (2 (A24+ + A24-) : A24+ - A24-) */
        F2(add)(&ja, &e.c[1], &e.c[0]);
        F2(add)(&ja, &ja, &ja);
        F2(sub)(&jc, &e.c[1], &e.c[0]);
    }
    j_inv(&j, &ja, &jc);
    F2(to_bytes)(ss, &j);
    mask_bytes(ss, SIDH_SS_BYTES, ok);
    return ok;
}

int SIDH_API(keygen_a)(uint8_t pk[SIDH_PK_BYTES], const uint8_t ska[SIDH_SKA_BYTES])
{
    return keygen(ALICE, pk, ska);
}

int SIDH_API(keygen_b)(uint8_t pk[SIDH_PK_BYTES], const uint8_t skb[SIDH_SKB_BYTES])
{
    return keygen(BOB, pk, skb);
}

int SIDH_API(shared_a)(uint8_t ss[SIDH_SS_BYTES], const uint8_t ska[SIDH_SKA_BYTES], const uint8_t pkb[SIDH_PK_BYTES])
{
    return shared(ALICE, ss, ska, pkb);
}

int SIDH_API(shared_b)(uint8_t ss[SIDH_SS_BYTES], const uint8_t skb[SIDH_SKB_BYTES], const uint8_t pka[SIDH_PK_BYTES])
{
    return shared(BOB, ss, skb, pka);
}
