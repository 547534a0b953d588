/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Differential libFuzzer target, compiled once per field with
 * -DFG_FIELD=name -DFG_FIELD_UC=NAME (token pasting, as tests/test_field.c).
 *
 * The input is a sequence of records "op-byte operand...", decoded as
 * described in tests/fuzz/README.md. Every record runs its operation at
 * every ISA level and tuning this CPU and build have (fg_isa_force over c,
 * x86_64, bmi2, adx, ifma, levels above c only when FG_NAME_HAVE_ASM is 1;
 * fg_tune_force over generic, zen, zen4 at each level above c) and
 * compares each one's result with GMP in the field's internal domain and
 * with the first one's. Any mismatch prints the op, level, tuning, aliasing
 * pattern and operands, then calls abort() so libFuzzer saves the input.
 *
 * Where the field has Fp2 (FG_NAME_HAVE_FP2), add and sub records with bit 6
 * set run fg_NAME_fp2_mul and fg_NAME_fp2_sqr instead, on a = a0 + a1 u and
 * b = b0 + b1 u (two more elements read after a0 and b0), against GMP with
 * u^2 = FG_NAME_FP2_NON_RESIDUE.
 *
 * Where the field has the lazy ops (FG_NAME_HAVE_LAZY), every mul and sqr
 * record through the dispatcher (bit 6 clear) also runs mul_lazy or sqr_lazy, on a and b each plus p when a bit of
 * its low limb says so (operands below 2p), and compares the result with the
 * exact Montgomery quotient (a b + m p)/R, below 2p (pseudo-Mersenne fields:
 * the exact reduction without its select, below 2p too), and across the levels.
 *
 * Operands are canonical (reduced mod p) except the wide redc input, which
 * ranges up to the documented bound (t < p*R for Montgomery fields, any
 * 2n-limb t otherwise, including sums of up to min(REDC_SUMS, 8) products),
 * and from_bytes input, which may be >= p (must be rejected). */
#include <gmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg_test_field.h"
#define KMAX (C(REDC_SUMS) < 8 ? (int)C(REDC_SUMS) : 8)
#define MAX_RECORDS 64 /* records decoded per input */
#define MAX_SLOW 2     /* inv/sqrt records per input; later ones run as sqr */

/* ------------------------------------------------------------------ */
/* Input cursor: bytes past the end read as 0, so every input decodes. */
typedef struct {
    const uint8_t *p;
    size_t left;
} cursor;

static uint8_t take(cursor *c)
{
    if (c->left == 0)
        return 0;
    c->left--;
    return *c->p++;
}

/* ------------------------------------------------------------------ */
static mpz_t P, RINV, RMOD, WIDE_MAX, BYTES_LIM; /* BYTES_LIM = 2^(8*NBYTES) */
static mpz_t NEGPINV;                             /* -p^-1 mod 2^(64N): the lazy ops' reference */
static mpz_t z0, z1, z2, z3;                      /* scratch */
/* the (level, tuning) pairs this CPU and build can run */
static struct {
    int level, tune;
} configs[FG_ISA_LEVELS * FG_TUNES];
static int nconfigs;
static uint64_t prev[N]; /* last element result: operand kind 6 */

/* 0 <= z < 2^(64n) */
static void from_mpz(uint64_t *limbs, size_t n, const mpz_t z)
{
    size_t count = 0;
    memset(limbs, 0, n * sizeof(uint64_t));
    if (mpz_sgn(z) < 0 || mpz_sizeinbase(z, 2) > 64 * n) {
        fprintf(stderr, "fuzz_%s: internal: value does not fit %zu limbs\n", STR(FG_FIELD), n);
        abort();
    }
    mpz_export(limbs, &count, -1, sizeof(uint64_t), 0, 0, z);
}

/* ------------------------------------------------------------------ */
/* Operand decoders. */
static const uint64_t danger[13] = {
    0, 1, 2, UINT64_C(0xffffffff), UINT64_C(0x100000000), UINT64_C(0x7fffffffffffffff),
    UINT64_C(0x8000000000000000), UINT64_C(0xfffffffffffffffe), UINT64_C(0xffffffffffffffff),
    UINT64_C(0xffffffff00000000), UINT64_C(0x00000000ffffffff) << 16, UINT64_C(0x5555555555555555),
    UINT64_C(0xaaaaaaaaaaaaaaaa),
};

/* n limbs, limb i from the dangerous set or p[i]-1, p[i], p[i]+1 (index i mod N) */
static void pattern(cursor *c, uint64_t *x, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned pick = take(c) % 16;
        x[i] = pick < 13 ? danger[pick] : F(P)[i % N] + (uint64_t)(pick - 13) - 1;
    }
}

/* A canonical element: kind = low 3 bits of the kind byte (README). */
static void element(cursor *c, uint64_t x[N])
{
    uint8_t kb = take(c);
    uint64_t w[N];
    size_t i;
    switch (kb & 7) {
    case 0: /* raw 8N bytes, little-endian limbs */
        for (i = 0; i < 8 * N; i++)
            ((uint8_t *)w)[i] = take(c); /* x86-64 is little-endian; byte order only shapes the value */
        to_mpz(z0, w, N);
        break;
    case 1: /* small */
        mpz_set_ui(z0, take(c));
        break;
    case 2: /* p - 1 - small */
        mpz_sub_ui(z0, P, 1 + take(c));
        break;
    case 3: /* dangerous limbs */
        pattern(c, w, N);
        to_mpz(z0, w, N);
        break;
    case 4: /* p - dangerous limbs (long borrow chains) */
        pattern(c, w, N);
        to_mpz(z0, w, N);
        mpz_sub(z0, P, z0);
        break;
    case 5: /* (2^(64N) - 1) >> shift */
        mpz_set_ui(z0, 1);
        mpz_mul_2exp(z0, z0, 64 * N);
        mpz_sub_ui(z0, z0, 1);
        mpz_fdiv_q_2exp(z0, z0, (kb >> 3) * (64u * N / 32u + 1u));
        break;
    case 6: /* previous result */
        to_mpz(z0, prev, N);
        break;
    default: /* 2^e, or 2^e - 1 (bit 3) */
        mpz_set_ui(z0, 1);
        mpz_mul_2exp(z0, z0, (take(c) + 256u * (kb >> 4)) % (64u * N));
        if (kb & 8)
            mpz_sub_ui(z0, z0, 1);
        break;
    }
    mpz_mod(z0, z0, P);
    from_mpz(x, N, z0);
}

/* A wide redc input t, 0 <= t <= WIDE_MAX. */
static void wide(cursor *c, uint64_t t[2 * N])
{
    uint8_t kb = take(c);
    uint64_t w[2 * N], a[N], b[N];
    size_t i;
    int k;
    switch (kb & 7) {
    case 0: /* raw 16N bytes reduced mod WIDE_MAX + 1 */
        for (i = 0; i < 16 * N; i++)
            ((uint8_t *)w)[i] = take(c);
        to_mpz(z1, w, 2 * N);
        mpz_add_ui(z2, WIDE_MAX, 1);
        mpz_mod(z1, z1, z2);
        break;
    case 1: /* the bound - 1 - small */
        mpz_sub_ui(z1, WIDE_MAX, take(c));
        break;
    case 2: /* limb-wise sum (with carries) of k <= min(REDC_SUMS, 8) products */
        k = 1 + take(c) % KMAX;
        mpz_set_ui(z1, 0);
        while (k-- > 0) {
            element(c, a);
            element(c, b);
            to_mpz(z2, a, N);
            to_mpz(z3, b, N);
            mpz_addmul(z1, z2, z3);
        }
        break;
    case 3: /* dangerous limbs, reduced mod WIDE_MAX + 1 */
        pattern(c, w, 2 * N);
        to_mpz(z1, w, 2 * N);
        mpz_add_ui(z2, WIDE_MAX, 1);
        mpz_mod(z1, z1, z2);
        break;
    case 4: /* k * (p-1)^2: the largest sum of k products */
        k = 1 + take(c) % KMAX;
        mpz_sub_ui(z1, P, 1);
        mpz_mul(z1, z1, z1);
        mpz_mul_ui(z1, z1, (unsigned long)k);
        break;
    case 5: /* the bound - 1 - dangerous limbs */
        pattern(c, w, N);
        to_mpz(z2, w, N);
        mpz_sub(z1, WIDE_MAX, z2);
        break;
    case 6: /* small */
        mpz_set_ui(z1, take(c));
        break;
    default: /* prev * element */
        element(c, a);
        to_mpz(z1, prev, N);
        to_mpz(z2, a, N);
        mpz_mul(z1, z1, z2);
        break;
    }
    if (mpz_cmp(z1, WIDE_MAX) > 0) {
        fprintf(stderr, "fuzz_%s: a sum of %d products exceeds the documented redc bound "
                        "(REDC_SUMS = %llu is wrong)\n",
                STR(FG_FIELD), KMAX, (unsigned long long)C(REDC_SUMS));
        abort();
    }
    from_mpz(t, 2 * N, z1);
}

static void decode(mpz_t v, const uint8_t bytes[NBYTES])
{
    mpz_import(v, NBYTES, C(BYTE_ORDER_BIG) ? 1 : -1, 1, 1, 0, bytes);
}

/* plain value of an internal element / internal element of a plain value */
static void plain(mpz_t r, const uint64_t *a)
{
    to_mpz(r, a, N);
    mpz_mul(r, r, RINV);
    mpz_mod(r, r, P);
}

static void internal(uint64_t *a, const mpz_t v)
{
    mpz_mul(z3, v, RMOD);
    mpz_mod(z3, z3, P);
    from_mpz(a, N, z3);
}

/* from_bytes input: raw, just above p, just below p, or an element's encoding */
static void byte_operand(cursor *c, uint8_t in[NBYTES])
{
    uint8_t kb = take(c);
    uint64_t x[N];
    size_t i;
    switch (kb & 3) {
    case 0:
        for (i = 0; i < NBYTES; i++)
            in[i] = take(c);
        return;
    case 1: /* p + s, or the all-ones string when p + s does not fit */
        mpz_add_ui(z1, P, take(c));
        if (mpz_cmp(z1, BYTES_LIM) >= 0)
            mpz_sub_ui(z1, BYTES_LIM, 1);
        break;
    case 2:
        mpz_sub_ui(z1, P, 1 + take(c));
        if (mpz_sgn(z1) < 0)
            mpz_set_ui(z1, 0);
        break;
    default:
        element(c, x);
        plain(z1, x);
        break;
    }
    encode(in, z1);
}

/* from_bytes_wide input: two length bytes, little-endian (len = that mod
 * (2 NBYTES + 2): up to one above the longest accepted, which must return 0
 * and r = 0), then a kind byte: bit 0 set, all ones; clear, raw bytes (up
 * to 2 NBYTES of them) */
static size_t wide_byte_operand(cursor *c, uint8_t in[2 * NBYTES])
{
    size_t len = take(c), i;
    int ones;
    len = (len | (size_t)take(c) << 8) % (2 * NBYTES + 2);
    ones = take(c) & 1;
    for (i = 0; i < len && i < 2 * NBYTES; i++)
        in[i] = ones ? 0xff : take(c);
    return len;
}

/* ------------------------------------------------------------------ */
enum {
    OP_MUL, OP_SQR, OP_MUL_WIDE, OP_SQR_WIDE, OP_REDC, OP_ADD, OP_SUB, OP_NEG,
    OP_INV, OP_SQRT, OP_FROM_BYTES, OP_TO_BYTES, OP_EQ, OP_IS_ZERO, OP_CMOV, OP_CSWAP, NOPS
};
static const char *const op_names[NOPS] = {
    "mul", "sqr", "mul_wide", "sqr_wide", "redc", "add", "sub", "neg",
    "inv", "sqrt", "from_bytes", "to_bytes", "eq", "is_zero", "cmov", "cswap",
};

typedef struct {
    int op, alias, bit6, same;
    uint64_t a[2 * N], b[N]; /* a holds the wide t for redc, a0 and a1 for Fp2 */
    uint64_t b1[N];          /* Fp2: b's c1 */
    uint8_t in[2 * NBYTES];   /* from_bytes: NBYTES; from_bytes_wide: len */
    size_t len;
} record;

typedef struct {
    uint64_t v[2 * N], w[N]; /* w: second output (cswap) */
    uint64_t lz[N];          /* mul and sqr records: the lazy op's result (0 without lazy ops) */
    uint8_t bytes[NBYTES];
    int flag;
} result;

static void show(const char *what, const void *limbs, size_t n)
{
    size_t i;
    fprintf(stderr, "  %-5s = 0x", what);
    for (i = n; i-- > 0;)
        fprintf(stderr, "%016llx", (unsigned long long)((const uint64_t *)limbs)[i]);
    fputc('\n', stderr);
}

static void show_bytes(const char *what, const uint8_t *b)
{
    size_t i;
    fprintf(stderr, "  %-5s = ", what);
    for (i = 0; i < NBYTES; i++)
        fprintf(stderr, "%02x", b[i]);
    fputc('\n', stderr);
}

/* Fp2 records: add and sub with bit 6, where the field has Fp2 */
static int is_fp2(const record *rc)
{
    return C(HAVE_FP2) && rc->bit6 && (rc->op == OP_ADD || rc->op == OP_SUB);
}

static void mismatch(const record *rc, int cfg, const char *what, const result *got, const result *want)
{
    fprintf(stderr, "\nfuzz_%s: MISMATCH op=%s level=%s tune=%s alias=%d bit6=%d same=%d: %s\n", STR(FG_FIELD),
            rc->op == OP_IS_ZERO && rc->bit6 ? "is_square" : rc->op == OP_NEG && rc->bit6 ? "mul_small" :
            rc->op == OP_FROM_BYTES && rc->bit6 ? "from_bytes_wide" : is_fp2(rc) && rc->op == OP_ADD ? "fp2_mul" :
            is_fp2(rc) ? "fp2_sqr" : op_names[rc->op],
            fg_isa_name((fg_isa)configs[cfg].level), fg_tune_name((fg_tune)configs[cfg].tune),
            rc->alias, rc->bit6, rc->same, what);
    if (rc->op == OP_FROM_BYTES && rc->bit6) {
        size_t i;
        fprintf(stderr, "  len   = %zu\n  in    = ", rc->len);
        for (i = 0; i < rc->len && i < sizeof rc->in; i++)
            fprintf(stderr, "%02x", rc->in[i]);
        fputc('\n', stderr);
    } else if (rc->op == OP_FROM_BYTES)
        show_bytes("in", rc->in);
    else
        show(is_fp2(rc) ? "a0 a1" : "a", rc->a, rc->op == OP_REDC || is_fp2(rc) ? 2 * N : N);
    show(is_fp2(rc) ? "b0" : "b", rc->b, N);
    if (is_fp2(rc))
        show("b1", rc->b1, N);
    show("got", got->v, 2 * N);
    if (want)
        show("want", want->v, 2 * N);
    fprintf(stderr, "  got flag %d, want %d\n", got->flag, want ? want->flag : -1);
    if (rc->op == OP_TO_BYTES) {
        show_bytes("got", got->bytes);
        if (want)
            show_bytes("want", want->bytes);
    }
    if (rc->op == OP_CSWAP) {
        show("got2", got->w, N);
        if (want)
            show("want2", want->w, N);
    }
    if (C(HAVE_LAZY) && (rc->op == OP_MUL || rc->op == OP_SQR) && !rc->bit6) {
        show("lazy", got->lz, N);
        if (want)
            show("wantl", want->lz, N);
    }
    abort();
}

/* Raw kernels of one level, for the unaligned-pointer calls. */
typedef struct {
    void (*mul)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*sqr)(uint64_t *, const uint64_t *);
    void (*mul_wide)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*sqr_wide)(uint64_t *, const uint64_t *);
    void (*redc)(uint64_t *, const uint64_t *);
} kernels;

static const kernels kernel_table[FG_ISA_LEVELS] = {
    { K(mul, c), K(sqr, c), K(mul_wide, c), K(sqr_wide, c), K(redc, c) },
#if C(HAVE_ASM) && FG_HAVE_X86_64_ASM
    { K(mul, x86_64), K(sqr, x86_64), K(mul_wide, x86_64), K(sqr_wide, x86_64), K(redc, x86_64) },
    { K(mul, bmi2), K(sqr, bmi2), K(mul_wide, bmi2), K(sqr_wide, bmi2), K(redc, bmi2) },
    { K(mul, adx), K(sqr, adx), K(mul_wide, adx), K(sqr_wide, adx), K(redc, adx) },
    { K(mul, adx), K(sqr, adx), K(mul_wide, adx), K(sqr_wide, adx), K(redc, adx) }, /* ifma */
#endif
};

#if C(HAVE_LAZY)
/* The lazy op's operands of a mul or sqr record: a and b (b := a as for the
 * op), each plus p when bit 0 (a) or bit 1 (b) of its low limb is set: values
 * below 2p, canonical or not. */
static void lazy_operands(const record *rc, uint64_t xa[N], uint64_t yb[N])
{
    const uint64_t *b = (rc->same || rc->alias == 3) ? rc->a : rc->b;
    to_mpz(z0, rc->a, N);
    if (rc->a[0] & 1)
        mpz_add(z0, z0, P);
    from_mpz(xa, N, z0);
    to_mpz(z0, b, N);
    if ((b[0] >> 1) & 1)
        mpz_add(z0, z0, P);
    from_mpz(yb, N, z0);
}

/* mul_lazy / sqr_lazy of a mul or sqr record, through the dispatcher, with the
 * record's aliasing (r == a for 1 and 3, r == b for 2; b := a for 3). */
static void run_lazy(const record *rc, uint64_t out[N])
{
    FE x, y;
    int al = rc->alias;
    lazy_operands(rc, x.limb, y.limb);
    if (rc->op == OP_SQR) {
        if (al == 1 || al == 3) {
            F(sqr_lazy)(&x, &x);
            memcpy(out, x.limb, 8 * N);
        } else {
            F(sqr_lazy)(&y, &x);
            memcpy(out, y.limb, 8 * N);
        }
    } else if (al == 3) {
        F(mul_lazy)(&x, &x, &x);
        memcpy(out, x.limb, 8 * N);
    } else if (al == 1) {
        F(mul_lazy)(&x, &x, &y);
        memcpy(out, x.limb, 8 * N);
    } else if (al == 2) {
        F(mul_lazy)(&y, &x, &y);
        memcpy(out, y.limb, 8 * N);
    } else {
        FE r;
        F(mul_lazy)(&r, &x, &y);
        memcpy(out, r.limb, 8 * N);
    }
}
#endif

#if C(HAVE_FP2)
#define FE2 F(fp2) /* the type fg_NAME_fp2 */
/* fp2_mul (add record) or fp2_sqr (sub record) through the dispatcher, with
 * the record's aliasing: 1 r == a, 2 r == b, 3 r == a == b (b := a); sqr:
 * r == a for 1 and 3. Output: c0 then c1 in out->v. */
static void run_fp2(const record *rc, result *out)
{
    FE2 x, y, r, *pr = &r;
    int al = rc->alias, same = rc->same || al == 3;
    memcpy(x.c0.limb, rc->a, 8 * N);
    memcpy(x.c1.limb, rc->a + N, 8 * N);
    memcpy(y.c0.limb, same ? rc->a : rc->b, 8 * N);
    memcpy(y.c1.limb, same ? rc->a + N : rc->b1, 8 * N);
    if (al == 1 || al == 3)
        pr = &x;
    else if (al == 2)
        pr = &y;
    if (rc->op == OP_ADD)
        F(fp2_mul)(pr, &x, al == 3 ? &x : &y);
    else
        F(fp2_sqr)(pr, &x);
    memcpy(out->v, pr->c0.limb, 8 * N);
    memcpy(out->v + N, pr->c1.limb, 8 * N);
}
#endif

/* Run the record's op at the current level. Aliasing (rc->alias):
 * 0 distinct buffers, 1 r == a, 2 r == b, 3 r == a == b (b := a).
 * Wide ops alias t's low half with a (mul_wide/sqr_wide) or r with t's low
 * half (redc). bit6 on mul/sqr/mul_wide/sqr_wide/redc calls the level's raw
 * kernel directly; at assembly levels with every pointer misaligned (byte
 * offset 1 + alias). C kernels are called aligned: misaligned uint64_t access
 * is undefined behaviour in C, which UBSan would report. */
static void run(const record *rc, int level, result *out)
{
    /* one buffer, so that r, a, b can overlap; union keeps it aligned */
    union {
        uint64_t q[8 * N + 1];
        uint8_t b[8 * (8 * N + 1)];
    } buf;
    FE *x = (FE *)(void *)&buf.q[0], *y = (FE *)(void *)&buf.q[2 * N], *r = (FE *)(void *)&buf.q[4 * N];
    uint64_t *t = &buf.q[4 * N]; /* 2N limbs */
    int al = rc->alias;
    memset(out, 0, sizeof *out);
    memcpy(x->limb, rc->a, sizeof x->limb);
    memcpy(y->limb, (rc->same || al == 3) ? rc->a : rc->b, sizeof y->limb);

    if (rc->bit6 && rc->op <= OP_REDC) {
        const kernels *k = &kernel_table[level];
        size_t off = level == FG_ISA_C ? 0 : 1 + (size_t)al; /* bytes */
        uint8_t *base = buf.b + off;
        uint64_t *pa = (uint64_t *)(void *)base, *pb = (uint64_t *)(void *)(base + 16 * N),
                 *pr = (uint64_t *)(void *)(base + 32 * N);
        memcpy(pa, rc->a, (rc->op == OP_REDC ? 2 : 1) * 8 * N);
        memcpy(pb, (rc->same || al == 3) ? rc->a : rc->b, 8 * N);
        if (al == 1 || al == 3)
            pr = pa;
        else if (al == 2 && rc->op != OP_REDC)
            pr = pb;
        switch (rc->op) {
        case OP_MUL: k->mul(pr, pa, al == 3 ? pa : pb); break;
        case OP_SQR: k->sqr(pr, pa); break;
        case OP_MUL_WIDE: k->mul_wide(pr, pa, al == 3 ? pa : pb); break;
        case OP_SQR_WIDE: k->sqr_wide(pr, pa); break;
        default: k->redc(pr, pa); break;
        }
        memcpy(out->v, pr, (rc->op == OP_MUL_WIDE || rc->op == OP_SQR_WIDE ? 2 : 1) * 8 * N);
        return;
    }

#if C(HAVE_FP2)
    if (is_fp2(rc)) {
        run_fp2(rc, out);
        return;
    }
#endif
#if C(HAVE_LAZY)
    if (rc->op == OP_MUL || rc->op == OP_SQR)
        run_lazy(rc, out->lz);
#endif
    if (al == 1 || al == 3)
        r = x;
    else if (al == 2)
        r = y;
    switch (rc->op) {
    case OP_MUL:
        F(mul)(r, x, al == 3 ? x : y);
        memcpy(out->v, r->limb, 8 * N);
        break;
    case OP_SQR:
        F(sqr)(r, x);
        memcpy(out->v, r->limb, 8 * N);
        break;
    case OP_MUL_WIDE:
    case OP_SQR_WIDE:
        /* alias 1/3: t's low half is a; alias 2: t's low half is b */
        if (al == 1 || al == 3)
            t = x->limb;
        else if (al == 2)
            t = y->limb;
        if (rc->op == OP_MUL_WIDE)
            F(mul_wide)(t, x, al == 3 ? x : y);
        else
            F(sqr_wide)(t, x);
        memcpy(out->v, t, 16 * N);
        break;
    case OP_REDC:
        memcpy(t, rc->a, 16 * N);
        F(redc)(al ? (FE *)(void *)t : x, t); /* alias: r is t's low half */
        memcpy(out->v, al ? t : x->limb, 8 * N);
        break;
    case OP_ADD:
        F(add)(r, x, al == 3 ? x : y);
        memcpy(out->v, r->limb, 8 * N);
        break;
    case OP_SUB:
        F(sub)(r, x, al == 3 ? x : y);
        memcpy(out->v, r->limb, 8 * N);
        break;
    case OP_NEG:
        if (rc->bit6) /* mul_small by a constant from b's low word */
            F(mul_small)(r, x, (uint32_t)rc->b[0]);
        else
            F(neg)(r, x);
        memcpy(out->v, r->limb, 8 * N);
        break;
    case OP_INV:
        out->flag = F(inv)(r, x);
        memcpy(out->v, r->limb, 8 * N);
        break;
    case OP_SQRT:
        out->flag = F(sqrt)(r, x);
        memcpy(out->v, r->limb, 8 * N);
        break;
    case OP_FROM_BYTES: /* alias: the bytes sit in r itself */
        if (rc->bit6) { /* from_bytes_wide; alias: the first 8n bytes sit in r */
            uint8_t in[2 * NBYTES + 1];
            memset(in, 0, sizeof in);
            memcpy(in, rc->in, rc->len < 2 * NBYTES ? rc->len : 2 * NBYTES);
            memset(r->limb, 0xa5, 8 * N);
            if (al && rc->len <= 8 * N) {
                memcpy(r->limb, in, rc->len);
                out->flag = F(from_bytes_wide)(r, (const uint8_t *)r->limb, rc->len);
            } else {
                out->flag = F(from_bytes_wide)(r, in, rc->len);
            }
            memcpy(out->v, r->limb, 8 * N);
            break;
        }
        if (al) {
            memset(r->limb, 0xa5, 8 * N);
            memcpy(r->limb, rc->in, NBYTES);
            out->flag = F(from_bytes)(r, (const uint8_t *)r->limb);
        } else {
            uint8_t in[NBYTES];
            memcpy(in, rc->in, NBYTES);
            memset(r->limb, 0xa5, 8 * N);
            out->flag = F(from_bytes)(r, in);
        }
        memcpy(out->v, r->limb, 8 * N);
        break;
    case OP_TO_BYTES: /* alias: out is a's own storage */
        if (al) {
            F(to_bytes)((uint8_t *)x->limb, x);
            memcpy(out->bytes, x->limb, NBYTES);
        } else {
            F(to_bytes)(out->bytes, x);
        }
        break;
    case OP_EQ:
        out->flag = F(eq)(x, al == 3 ? x : y);
        break;
    case OP_IS_ZERO: /* bit 6: is_square instead */
        out->flag = rc->bit6 ? F(is_square)(x) : F(is_zero)(x);
        break;
    case OP_CMOV: /* r starts as b; r = cond ? a : r; alias: r == a */
        if (al == 1 || al == 3) {
            F(cmov)(x, x, rc->bit6);
            memcpy(out->v, x->limb, 8 * N);
        } else {
            F(cmov)(y, x, rc->bit6);
            memcpy(out->v, y->limb, 8 * N);
        }
        break;
    default: /* OP_CSWAP; alias: a == b (a no-op either way) */
        if (al == 1 || al == 3) {
            F(cswap)(x, x, rc->bit6);
            memcpy(out->v, x->limb, 8 * N);
            memcpy(out->w, x->limb, 8 * N);
        } else {
            F(cswap)(x, y, rc->bit6);
            memcpy(out->v, x->limb, 8 * N);
            memcpy(out->w, y->limb, 8 * N);
        }
        break;
    }
}

/* GMP reference. Returns 0 for sqrt of a square (any root is accepted;
 * checked by squaring, and the levels must agree with each other). */
static int reference(const record *rc, result *want)
{
    const uint64_t *b = (rc->same || rc->alias == 3) ? rc->a : rc->b;
    memset(want, 0, sizeof *want);
    to_mpz(z1, rc->a, rc->op == OP_REDC ? 2 * N : N);
    to_mpz(z2, b, N);
#if C(HAVE_LAZY)
    if ((rc->op == OP_MUL || rc->op == OP_SQR) && !rc->bit6) {
        /* the exact quotient (x y + m p)/R, m = -x y / p mod R, below 2p */
        uint64_t xa[N], yb[N];
        lazy_operands(rc, xa, yb);
        to_mpz(z0, xa, N);
        to_mpz(z3, rc->op == OP_SQR || rc->alias == 3 ? xa : yb, N);
        mpz_mul(z0, z0, z3);
#if C(MONTGOMERY)
        mpz_mul(z3, z0, NEGPINV);
        mpz_tdiv_r_2exp(z3, z3, 64 * N);
        mpz_addmul(z0, z3, P);
        mpz_tdiv_q_2exp(z0, z0, 64 * N);
#else
        {   /* pseudo-Mersenne 2^k - c: the reduction without its select,
             * w = lo + hi (2^(64N) mod p), then (w mod 2^k) + (w >> k) c */
            unsigned long k = (unsigned long)mpz_sizeinbase(P, 2);
            mpz_t m;
            mpz_init(m);
            mpz_ui_pow_ui(m, 2, 64 * N);
            mpz_mod(m, m, P);
            mpz_tdiv_q_2exp(z3, z0, 64 * N);
            mpz_tdiv_r_2exp(z0, z0, 64 * N);
            mpz_addmul(z0, z3, m);
            mpz_ui_pow_ui(m, 2, k);
            mpz_sub(m, m, P);
            mpz_tdiv_q_2exp(z3, z0, k);
            mpz_tdiv_r_2exp(z0, z0, k);
            mpz_addmul(z0, z3, m);
            mpz_clear(m);
        }
#endif
        mpz_mul_2exp(z3, P, 1);
        if (mpz_cmp(z0, z3) >= 0) {
            fprintf(stderr, "fuzz_%s: internal: a lazy quotient is not below 2p\n", STR(FG_FIELD));
            abort();
        }
        from_mpz(want->lz, N, z0);
    }
#endif
#if C(HAVE_FP2)
    if (is_fp2(rc)) {
        /* (a0 + a1 u)(b0 + b1 u) = a0 b0 + nr a1 b1 + (a0 b1 + a1 b0) u, each / R */
        const uint64_t *b1 = (rc->same || rc->alias == 3) ? rc->a + N : rc->b1;
        mpz_t a1, bb1;
        mpz_inits(a1, bb1, NULL);
        to_mpz(z1, rc->a, N);
        to_mpz(a1, rc->a + N, N);
        if (rc->op == OP_SUB) { /* sqr: b = a */
            mpz_set(z2, z1);
            mpz_set(bb1, a1);
        } else {
            to_mpz(bb1, b1, N);
        }
        mpz_mul(z0, a1, bb1);
        mpz_mul_si(z0, z0, (long)C(FP2_NON_RESIDUE));
        mpz_addmul(z0, z1, z2);
        mpz_mul(z0, z0, RINV);
        mpz_mod(z0, z0, P);
        from_mpz(want->v, N, z0);
        mpz_mul(z0, z1, bb1);
        mpz_addmul(z0, a1, z2);
        mpz_mul(z0, z0, RINV);
        mpz_mod(z0, z0, P);
        from_mpz(want->v + N, N, z0);
        mpz_clears(a1, bb1, NULL);
        return 1;
    }
#endif
    switch (rc->op) {
    case OP_MUL: mpz_mul(z0, z1, z2); goto redc_;
    case OP_SQR: mpz_mul(z0, z1, z1); goto redc_;
    case OP_REDC: mpz_set(z0, z1);
    redc_:
        mpz_mul(z0, z0, RINV);
        mpz_mod(z0, z0, P);
        from_mpz(want->v, N, z0);
        break;
    case OP_MUL_WIDE: mpz_mul(z0, z1, z2); from_mpz(want->v, 2 * N, z0); break;
    case OP_SQR_WIDE: mpz_mul(z0, z1, z1); from_mpz(want->v, 2 * N, z0); break;
    case OP_ADD: mpz_add(z0, z1, z2); mpz_mod(z0, z0, P); from_mpz(want->v, N, z0); break;
    case OP_SUB: mpz_sub(z0, z1, z2); mpz_mod(z0, z0, P); from_mpz(want->v, N, z0); break;
    case OP_NEG:
        if (rc->bit6)
            mpz_mul_ui(z0, z1, (uint32_t)rc->b[0]);
        else
            mpz_neg(z0, z1);
        mpz_mod(z0, z0, P);
        from_mpz(want->v, N, z0);
        break;
    case OP_INV:
        plain(z0, rc->a);
        want->flag = mpz_sgn(z0) != 0;
        if (want->flag) {
            mpz_invert(z0, z0, P);
            internal(want->v, z0);
        }
        break;
    case OP_SQRT:
        plain(z0, rc->a);
        want->flag = mpz_sgn(z0) == 0 || mpz_legendre(z0, P) == 1;
        return !want->flag; /* non-square: exact answer 0 */
    case OP_FROM_BYTES:
        if (rc->bit6) { /* from_bytes_wide: v mod p, or 0 and r = 0 above 2 NBYTES */
            want->flag = rc->len <= 2 * NBYTES;
            if (want->flag) {
                mpz_import(z0, rc->len, C(BYTE_ORDER_BIG) ? 1 : -1, 1, 1, 0, rc->in);
                mpz_mod(z0, z0, P);
                internal(want->v, z0);
            }
            break;
        }
        decode(z0, rc->in);
        want->flag = mpz_cmp(z0, P) < 0;
        if (want->flag)
            internal(want->v, z0);
        break;
    case OP_TO_BYTES: plain(z0, rc->a); encode(want->bytes, z0); break;
    case OP_EQ: want->flag = mpz_cmp(z1, z2) == 0; break;
    case OP_IS_ZERO:
        if (rc->bit6) { /* is_square: the Legendre symbol, 0 counted as a square */
            plain(z0, rc->a);
            want->flag = mpz_sgn(z0) == 0 || mpz_legendre(z0, P) == 1;
        } else {
            want->flag = mpz_sgn(z1) == 0;
        }
        break;
    case OP_CMOV:
        if (rc->alias == 1 || rc->alias == 3)
            memcpy(want->v, rc->a, 8 * N);
        else
            memcpy(want->v, rc->bit6 ? rc->a : b, 8 * N);
        break;
    default: /* OP_CSWAP */
        if (rc->alias == 1 || rc->alias == 3) {
            memcpy(want->v, rc->a, 8 * N);
            memcpy(want->w, rc->a, 8 * N);
        } else {
            memcpy(want->v, rc->bit6 ? b : rc->a, 8 * N);
            memcpy(want->w, rc->bit6 ? rc->a : b, 8 * N);
        }
        break;
    }
    return 1;
}

static int same_result(const result *x, const result *y)
{
    return memcmp(x->v, y->v, sizeof x->v) == 0 && memcmp(x->w, y->w, sizeof x->w) == 0 &&
           memcmp(x->lz, y->lz, sizeof x->lz) == 0 &&
           memcmp(x->bytes, y->bytes, sizeof x->bytes) == 0 && x->flag == y->flag;
}

/* ------------------------------------------------------------------ */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    int l, t;
    (void)argc;
    (void)argv;
    mpz_inits(P, RINV, RMOD, WIDE_MAX, BYTES_LIM, NEGPINV, z0, z1, z2, z3, NULL);
    fgt_model(P, RINV, RMOD, WIDE_MAX);
    mpz_set_ui(z0, 1);
    mpz_mul_2exp(z0, z0, 64 * N);
    mpz_invert(NEGPINV, P, z0);
    mpz_sub(NEGPINV, z0, NEGPINV);
    mpz_set_ui(BYTES_LIM, 1);
    mpz_mul_2exp(BYTES_LIM, BYTES_LIM, 8 * NBYTES);
    /* the (level, tuning) pairs this CPU and build can run for this field;
     * level c once (no kernel there depends on the tuning) */
    nconfigs = 0;
    for (l = FG_ISA_C; l < FG_ISA_LEVELS; l++) {
        if (l > FG_ISA_C && !(C(HAVE_ASM) && FG_HAVE_X86_64_ASM))
            break;
        for (t = 0; t < FG_TUNES; t++) {
            if (fg_isa_force((fg_isa)l) && fg_tune_force((fg_tune)t) && (l > FG_ISA_C || nconfigs == 0)) {
                configs[nconfigs].level = l;
                configs[nconfigs++].tune = t;
            }
        }
    }
    if (nconfigs == 0) { /* compile-time dispatch on a level this CPU lacks */
        fprintf(stderr, "fuzz_%s: no ISA level can be forced (best %s)\n", STR(FG_FIELD), fg_isa_name(fg_isa_best()));
        abort();
    }
    fprintf(stderr, "fuzz_%s: %d limbs, %s, REDC_SUMS %llu (fuzzing sums of up to %d)%s; levels and tunings:", STR(FG_FIELD), N,
            C(MONTGOMERY) ? "montgomery" : "pseudo-mersenne", (unsigned long long)C(REDC_SUMS), KMAX,
            C(HAVE_FP2) ? ", Fp2" : "");
    for (l = 0; l < nconfigs; l++)
        fprintf(stderr, " %s/%s", fg_isa_name((fg_isa)configs[l].level), fg_tune_name((fg_tune)configs[l].tune));
    fprintf(stderr, "\n");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cursor c = { data, size };
    int records = 0, slow = 0;
    memset(prev, 0, sizeof prev);
    while (c.left > 0 && records++ < MAX_RECORDS) {
        uint8_t ob = take(&c);
        record rc;
        result want, got[FG_ISA_LEVELS * FG_TUNES];
        int exact, l;
        memset(&rc, 0, sizeof rc);
        rc.op = ob % NOPS;
        rc.alias = (ob >> 4) & 3;
        rc.bit6 = (ob >> 6) & 1;
        rc.same = (ob >> 7) & 1;
        /* inv and sqrt are exponentiations (hundreds of multiplications), is_square
         * a binary GCD of 2 log2(p) steps: at most MAX_SLOW per input run as such,
         * later ones as sqr */
        if ((rc.op == OP_INV || rc.op == OP_SQRT || (rc.op == OP_IS_ZERO && rc.bit6)) && slow++ >= MAX_SLOW)
            rc.op = OP_SQR;
        if (rc.op == OP_REDC)
            wide(&c, rc.a);
        else if (rc.op == OP_FROM_BYTES && rc.bit6)
            rc.len = wide_byte_operand(&c, rc.in);
        else if (rc.op == OP_FROM_BYTES)
            byte_operand(&c, rc.in);
        else {
            element(&c, rc.a);
            element(&c, rc.b);
            if (is_fp2(&rc)) {
                element(&c, rc.a + N);
                element(&c, rc.b1);
            }
        }
        exact = reference(&rc, &want);
        for (l = 0; l < nconfigs; l++) {
            if (!fg_isa_force((fg_isa)configs[l].level) || !fg_tune_force((fg_tune)configs[l].tune)) {
                fprintf(stderr, "fuzz_%s: fg_isa_force(%s) or fg_tune_force(%s) failed\n", STR(FG_FIELD),
                        fg_isa_name((fg_isa)configs[l].level), fg_tune_name((fg_tune)configs[l].tune));
                abort();
            }
            run(&rc, configs[l].level, &got[l]);
            if (exact && !same_result(&got[l], &want))
                mismatch(&rc, l, "differs from GMP", &got[l], &want);
            if (!exact) { /* sqrt of a square: flag 1 and root^2 == a */
                if (got[l].flag != 1)
                    mismatch(&rc, l, "sqrt of a square returned 0", &got[l], &want);
                to_mpz(z0, got[l].v, N);
                if (mpz_cmp(z0, P) >= 0)
                    mismatch(&rc, l, "sqrt root not canonical", &got[l], NULL);
                plain(z0, got[l].v);
                mpz_mul(z0, z0, z0);
                mpz_mod(z0, z0, P);
                plain(z1, rc.a);
                if (mpz_cmp(z0, z1) != 0)
                    mismatch(&rc, l, "sqrt root squared is not a", &got[l], NULL);
            }
            if (l > 0 && !same_result(&got[l], &got[0]))
                mismatch(&rc, l, "differs from the first level (c)", &got[l], &got[0]);
        }
        /* chain: the next "previous result" operand */
        if (rc.op != OP_EQ && rc.op != OP_IS_ZERO && rc.op != OP_TO_BYTES && rc.op != OP_MUL_WIDE &&
            rc.op != OP_SQR_WIDE)
            memcpy(prev, got[0].v, sizeof prev);
    }
    return 0;
}
