/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Per-field test program, compiled once per field with -DFG_FIELD=name
 * -DFG_FIELD_UC=NAME. Every check compares against GMP (or the Python
 * reference's known answers) in the field's internal domain.
 *
 *   test_field_NAME --level L --suite diff [--count N] [--seed S]
 *   test_field_NAME --level L --suite kat --kat FILE
 *
 * Exit 0: all checks passed; 1: a check failed; 77: level L not available on
 * this CPU/build (CTest reports it as skipped); 2: usage error. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h> /* before gmp.h, which declares gmp_fprintf only after it */
#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "fg_test_field.h"

/* The forced level's own kernels, called directly as well: the dispatcher may
 * route an op to another level's kernel (FG_NAME_OP_AT_LEVEL_USES), and every
 * kernel the header exports must still be right. */
struct kernels {
    void (*mul)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*sqr)(uint64_t *, const uint64_t *);
    void (*mul_wide)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*sqr_wide)(uint64_t *, const uint64_t *);
    void (*redc)(uint64_t *, const uint64_t *);
};
#define KERNELS(L) {F(mul_##L), F(sqr_##L), F(mul_wide_##L), F(sqr_wide_##L), F(redc_##L)}
static const struct kernels level_kernels[] = {
    KERNELS(c),
#if C(HAVE_ASM)
    KERNELS(x86_64), KERNELS(bmi2), KERNELS(adx),
#endif
#if C(HAVE_AARCH64_ASM)
    KERNELS(aarch64), /* level 1 on AArch64 (runtime/fg_cpu.h) */
#endif
};
#if C(HAVE_ASM)
/* Under --tune zen at adx (and ifma): adx's Zen forms where the field has them
 * (FG_NAME_OP_HAVE_ADX_ZEN), the adx kernels elsewhere. */
static const struct kernels zen_kernels = {
#if C(MUL_HAVE_ADX_ZEN)
    F(mul_adx_zen),
#else
    F(mul_adx),
#endif
#if C(SQR_HAVE_ADX_ZEN)
    F(sqr_adx_zen),
#else
    F(sqr_adx),
#endif
#if C(MUL_WIDE_HAVE_ADX_ZEN)
    F(mul_wide_adx_zen),
#else
    F(mul_wide_adx),
#endif
#if C(SQR_WIDE_HAVE_ADX_ZEN)
    F(sqr_wide_adx_zen),
#else
    F(sqr_wide_adx),
#endif
#if C(REDC_HAVE_ADX_ZEN)
    F(redc_adx_zen),
#else
    F(redc_adx),
#endif
};
#endif
static struct kernels K; /* set from --level (and --tune) */

#if C(HAVE_LAZY)
/* The lazy mul and sqr (FG_NAME_HAVE_LAZY) of each level, and under --tune
 * zen at adx their Zen forms where the field has them. */
struct lazy_kernels {
    void (*mul)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*sqr)(uint64_t *, const uint64_t *);
};
#define LAZY_KERNELS(L) {F(mul_lazy_##L), F(sqr_lazy_##L)}
static const struct lazy_kernels lazy_level_kernels[] = {
    LAZY_KERNELS(c),
#if C(HAVE_ASM)
    LAZY_KERNELS(x86_64), LAZY_KERNELS(bmi2), LAZY_KERNELS(adx),
#endif
#if C(HAVE_AARCH64_ASM)
    LAZY_KERNELS(aarch64),
#endif
};
#if C(HAVE_ASM)
static const struct lazy_kernels lazy_zen_kernels = {
#if C(MUL_LAZY_HAVE_ADX_ZEN)
    F(mul_lazy_adx_zen),
#else
    F(mul_lazy_adx),
#endif
#if C(SQR_LAZY_HAVE_ADX_ZEN)
    F(sqr_lazy_adx_zen),
#else
    F(sqr_lazy_adx),
#endif
};
#endif
static struct lazy_kernels KL;
#endif

/* ------------------------------------------------------------------ */
static mpz_t P, RINV, RMOD, WIDE_MAX; /* p, R^-1 mod p, R mod p, largest redc input */
static unsigned long failures, checks;
static const char *field_name = STR(FG_FIELD);

static void fail(const char *fmt, ...)
{
    va_list ap;
    if (failures++ < 20) {
        fprintf(stderr, "FAIL [%s %s]: ", field_name, fg_isa_name(fg_isa_active()));
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
}

/* Writes z (0 <= z < 2^(64n)) into n limbs. */
static void from_mpz(uint64_t *limbs, size_t n, const mpz_t z)
{
    size_t count = 0;
    memset(limbs, 0, n * sizeof(uint64_t));
    if (mpz_sizeinbase(z, 2) > 64 * n && mpz_sgn(z) != 0) {
        fprintf(stderr, "internal: value does not fit %zu limbs\n", n);
        exit(2);
    }
    mpz_export(limbs, &count, -1, sizeof(uint64_t), 0, 0, z);
}

static void show(const char *what, const uint64_t *limbs, size_t n)
{
    size_t i;
    fprintf(stderr, "  %s = 0x", what);
    for (i = n; i-- > 0;)
        fprintf(stderr, "%016llx", (unsigned long long)limbs[i]);
    fputc('\n', stderr);
}

/* Compare n limbs with the expected value z; report op and operands on mismatch. */
static int expect(const char *op, const uint64_t *got, const mpz_t want, size_t n,
                  const uint64_t *a, const uint64_t *b)
{
    uint64_t w[2 * N];
    checks++;
    from_mpz(w, n, want);
    if (memcmp(w, got, n * sizeof(uint64_t)) == 0)
        return 1;
    fail("%s", op);
    if (failures <= 20) {
        if (a) show("a", a, N);
        if (b) show("b", b, N);
        show("got ", got, n);
        show("want", w, n);
    }
    return 0;
}

static void expect_int(const char *op, long got, long want)
{
    checks++;
    if (got != want)
        fail("%s: got %ld, want %ld", op, got, want);
}

/* ------------------------------------------------------------------ */
/* Inputs: uniformly random, and carry-stress values built from dangerous
 * limbs, reduced below p, plus values near 0 and near p. */

static const uint64_t danger[] = {
    0, 1, 2, UINT64_C(0xffffffffffffffff), UINT64_C(0xfffffffffffffffe), UINT64_C(0x8000000000000000),
    UINT64_C(0x7fffffffffffffff), UINT64_C(0xffffffff), UINT64_C(0x100000000), UINT64_C(0xffffffff00000000),
    UINT64_C(0x00000000ffffffff) << 16,
};

static void random_element(uint64_t x[N])
{
    mpz_t z;
    unsigned kind = (unsigned)(rnd() % 8);
    size_t i;
    mpz_init(z);
    switch (kind) {
    case 0: case 1: case 2: /* uniform bits, reduced */
        for (i = 0; i < N; i++)
            x[i] = rnd();
        break;
    case 3: case 4: /* every limb from the dangerous set, or a limb of p or p +- 1 */
        for (i = 0; i < N; i++) {
            unsigned pick = (unsigned)(rnd() % (sizeof danger / sizeof danger[0] + 3));
            if (pick < sizeof danger / sizeof danger[0])
                x[i] = danger[pick];
            else
                x[i] = F(P)[i] + (uint64_t)(pick - sizeof danger / sizeof danger[0]) - 1;
        }
        break;
    case 5: /* near p: p - 1 - small */
        mpz_sub_ui(z, P, 1 + (rnd() % 1024));
        from_mpz(x, N, z);
        break;
    case 6: /* near 0 */
        for (i = 0; i < N; i++)
            x[i] = 0;
        x[0] = rnd() % 1024;
        break;
    default: /* p minus a dangerous pattern (long borrow chains) */
        for (i = 0; i < N; i++)
            x[i] = danger[rnd() % (sizeof danger / sizeof danger[0])];
        to_mpz(z, x, N);
        mpz_sub(z, P, z);
        mpz_mod(z, z, P);
        from_mpz(x, N, z);
        break;
    }
    to_mpz(z, x, N);
    mpz_mod(z, z, P);
    from_mpz(x, N, z);
    mpz_clear(z);
}

/* ------------------------------------------------------------------ */
/* References in the internal domain: with R the Montgomery radix (1 for a
 * plain-form field), mul(x, y) = x*y/R, redc(t) = t/R. */
static void ref_redc(mpz_t r, const mpz_t t)
{
    mpz_mul(r, t, RINV);
    mpz_mod(r, r, P);
}

static void ref_mul(mpz_t r, const uint64_t *a, const uint64_t *b)
{
    mpz_t x, y;
    mpz_inits(x, y, NULL);
    to_mpz(x, a, N);
    to_mpz(y, b, N);
    mpz_mul(r, x, y);
    ref_redc(r, r);
    mpz_clears(x, y, NULL);
}

/* plain value of an internal element */
static void plain(mpz_t r, const uint64_t *a)
{
    to_mpz(r, a, N);
    ref_redc(r, r);
}

/* internal element of a plain value */
static void internal(uint64_t *a, const mpz_t v)
{
    mpz_t t;
    mpz_init(t);
    mpz_mul(t, v, RMOD);
    mpz_mod(t, t, P);
    from_mpz(a, N, t);
    mpz_clear(t);
}

/* ------------------------------------------------------------------ */
static void check_binary(const uint64_t a[N], const uint64_t b[N])
{
    FE x, y, r, s;
    uint64_t t[2 * N];
    mpz_t want, u, v;
    mpz_inits(want, u, v, NULL);
    memcpy(x.limb, a, sizeof x.limb);
    memcpy(y.limb, b, sizeof y.limb);
    to_mpz(u, a, N);
    to_mpz(v, b, N);

    F(mul)(&r, &x, &y);
    ref_mul(want, a, b);
    expect("mul", r.limb, want, N, a, b);
    s = x; /* aliasing: r == a, then r == b */
    F(mul)(&s, &s, &y);
    expect("mul r==a", s.limb, want, N, a, b);
    s = y;
    F(mul)(&s, &x, &s);
    expect("mul r==b", s.limb, want, N, a, b);

    F(mul_wide)(t, &x, &y);
    mpz_mul(want, u, v);
    expect("mul_wide", t, want, 2 * N, a, b);
    K.mul_wide(t, a, b);
    expect("mul_wide (level's kernel)", t, want, 2 * N, a, b);
    F(redc)(&r, t);
    ref_mul(want, a, b);
    expect("redc(mul_wide)", r.limb, want, N, a, b);
    K.redc(r.limb, t);
    expect("redc(mul_wide) (level's kernel)", r.limb, want, N, a, b);
    K.mul(r.limb, a, b);
    expect("mul (level's kernel)", r.limb, want, N, a, b);

    F(add)(&r, &x, &y);
    mpz_add(want, u, v);
    mpz_mod(want, want, P);
    expect("add", r.limb, want, N, a, b);
    s = x;
    F(add)(&s, &s, &y);
    expect("add r==a", s.limb, want, N, a, b);

    F(sub)(&r, &x, &y);
    mpz_sub(want, u, v);
    mpz_mod(want, want, P);
    expect("sub", r.limb, want, N, a, b);
    s = y;
    F(sub)(&s, &x, &s);
    expect("sub r==b", s.limb, want, N, a, b);

    expect_int("eq", F(eq)(&x, &y), mpz_cmp(u, v) == 0);
    s = x;
    F(cmov)(&s, &y, 0);
    expect("cmov 0", s.limb, u, N, a, b);
    F(cmov)(&s, &y, 1);
    expect("cmov 1", s.limb, v, N, a, b);
    r = x;
    s = y;
    F(cswap)(&r, &s, 1);
    expect("cswap 1 a", r.limb, v, N, a, b);
    expect("cswap 1 b", s.limb, u, N, a, b);
    F(cswap)(&r, &s, 0);
    expect("cswap 0", r.limb, v, N, a, b);

    /* Operands below 2p, when 4p <= 2^(64N): mul and sqr still return redc(x*y),
     * canonical. Fp2 squaring multiplies unreduced sums (< 2p) through mul, so
     * every level's kernel must keep this (see Fp2Analysis.lazy_sqr). */
    if (mpz_sizeinbase(P, 2) + 2 <= 64 * N) {
        uint64_t a2[N], b2[N];
        mpz_add(u, u, P); /* u, v in [p, 2p) */
        mpz_add(v, v, P);
        from_mpz(a2, N, u);
        from_mpz(b2, N, v);
        memcpy(x.limb, a2, sizeof x.limb);
        F(mul)(&r, &x, &y);
        ref_mul(want, a2, b);
        expect("mul(a+p, b)", r.limb, want, N, a2, b);
        memcpy(y.limb, b2, sizeof y.limb);
        F(mul)(&r, &x, &y);
        ref_mul(want, a2, b2);
        expect("mul(a+p, b+p)", r.limb, want, N, a2, b2);
        F(sqr)(&r, &x);
        ref_mul(want, a2, a2);
        expect("sqr(a+p)", r.limb, want, N, a2, NULL);
    }
    mpz_clears(want, u, v, NULL);
}

#if C(HAVE_LAZY)
/* mul_lazy on x, y (their limbs xa, yb): the exact lazy result want through
 * the dispatcher, the level's kernel and both aliasings, and canon of it
 * against canon. Both lazy suites below (Montgomery, pseudo-Mersenne). */
static void check_mul_lazy(const FE *x, const FE *y, const mpz_t want, const mpz_t canon, const uint64_t xa[N],
                           const uint64_t yb[N])
{
    FE r, s;
    F(mul_lazy)(&r, x, y);
    expect("mul_lazy", r.limb, want, N, xa, yb);
    KL.mul(r.limb, xa, yb);
    expect("mul_lazy (level's kernel)", r.limb, want, N, xa, yb);
    s = *x;
    F(mul_lazy)(&s, &s, y);
    expect("mul_lazy r==a", s.limb, want, N, xa, yb);
    s = *y;
    F(mul_lazy)(&s, x, &s);
    expect("mul_lazy r==b", s.limb, want, N, xa, yb);
    F(canon)(&s, &r);
    expect("canon(mul_lazy)", s.limb, canon, N, xa, yb);
}

/* sqr_lazy on x (limbs xa): want through the dispatcher, the level's
 * kernel, r == a, and mul_lazy with a == b. */
static void check_sqr_lazy(const FE *x, const mpz_t want, const uint64_t xa[N])
{
    FE r, s;
    F(sqr_lazy)(&r, x);
    expect("sqr_lazy", r.limb, want, N, xa, NULL);
    KL.sqr(r.limb, xa);
    expect("sqr_lazy (level's kernel)", r.limb, want, N, xa, NULL);
    s = *x;
    F(sqr_lazy)(&s, &s);
    expect("sqr_lazy r==a", s.limb, want, N, xa, NULL);
    F(mul_lazy)(&s, x, x);
    expect("mul_lazy a==b", s.limb, want, N, xa, NULL);
}
#endif

#if C(HAVE_LAZY) && C(MONTGOMERY)
/* The lazy ops' exact result for operands x, y < 2p: the Montgomery quotient
 * (x*y + m*p)/R with m = -x*y/p mod R, which is below 2p. Every level computes
 * this very value (the C kernel, each assembly kernel, the dispatcher), so it
 * is checked exactly, not only mod p. */
static mpz_t LAZY_NEGPINV, LAZY_2P; /* -p^-1 mod R, 2p (set by check_lazy's first call) */
static void ref_lazy(mpz_t r, const uint64_t *x, const uint64_t *y)
{
    mpz_t t, m;
    mpz_inits(t, m, NULL);
    to_mpz(t, x, N);
    to_mpz(m, y, N);
    mpz_mul(t, t, m);
    mpz_mul(m, t, LAZY_NEGPINV);
    mpz_tdiv_r_2exp(m, m, 64 * N);       /* m = -t/p mod R */
    mpz_addmul(t, m, P);
    mpz_tdiv_q_2exp(r, t, 64 * N);       /* exact: t + m p = 0 mod R */
    if (mpz_cmp(r, LAZY_2P) >= 0) {
        fprintf(stderr, "internal: the lazy bound does not hold\n");
        exit(2);
    }
    mpz_clears(t, m, NULL);
}

/* mul_lazy, sqr_lazy and canon on the operands a, b and a + p, b + p (all
 * below 2p), through the dispatcher (with aliasing) and the level's kernels;
 * canon of each result against GMP's canonical product. */
static void check_lazy(const uint64_t a[N], const uint64_t b[N])
{
    uint64_t ops[2][2][N];
    FE x, y, r;
    mpz_t want, canon, u;
    int i, j;
    static int ready;
    if (!ready) {
        mpz_inits(LAZY_NEGPINV, LAZY_2P, NULL);
        mpz_ui_pow_ui(LAZY_2P, 2, 64 * N);
        mpz_invert(LAZY_NEGPINV, P, LAZY_2P);
        mpz_sub(LAZY_NEGPINV, LAZY_2P, LAZY_NEGPINV); /* -p^-1 mod R */
        mpz_mul_ui(LAZY_2P, P, 2);
        ready = 1;
    }
    mpz_inits(want, canon, u, NULL);
    for (i = 0; i < 2; i++) {
        to_mpz(u, i ? b : a, N);
        from_mpz(ops[i][0], N, u);
        mpz_add(u, u, P);
        from_mpz(ops[i][1], N, u);
        memcpy(x.limb, ops[i][1], sizeof x.limb);
        F(canon)(&r, &x);
        to_mpz(u, i ? b : a, N);
        expect("canon(a + p)", r.limb, u, N, ops[i][1], NULL);
        memcpy(x.limb, ops[i][0], sizeof x.limb);
        F(canon)(&r, &x);
        expect("canon(a)", r.limb, u, N, ops[i][0], NULL);
    }
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++) {
            const uint64_t *xa = ops[0][i], *yb = ops[1][j];
            memcpy(x.limb, xa, sizeof x.limb);
            memcpy(y.limb, yb, sizeof y.limb);
            ref_lazy(want, xa, yb);
            ref_mul(canon, xa, yb);
            check_mul_lazy(&x, &y, want, canon, xa, yb);
            if (j == 0) {
                ref_lazy(want, xa, xa);
                check_sqr_lazy(&x, want, xa);
            }
        }
    mpz_clears(want, canon, u, NULL);
}
#endif

#if C(HAVE_LAZY) && !C(MONTGOMERY)
/* Pseudo-Mersenne lazy ops (p = 2^k - c): operands and results any values
 * below R = 2^(64N). Each result is checked exactly against the value its
 * algorithm (the header's) defines, computed here with GMP, and canon of it
 * against the canonical result: mul_lazy and sqr_lazy are the product's
 * reduction without the select, w = lo + hi c_fold, then (w mod 2^k) +
 * (w >> k) c, below 2p, at every level (the dispatcher and the level's own
 * kernels); add_lazy, sub_lazy, mul_small_lazy fold each carry (borrow) out
 * of R back in as + (-) c_fold, twice at most. mul, sqr, mul_wide, sqr_wide,
 * redc, cmov and cswap take such operands too. */
static mpz_t PM_R, PM_K2, PM_CF, PM_C, PM_2P; /* R, 2^k, c_fold, c, 2p */
static unsigned long PM_KBITS;

static void pm_setup(void)
{
    static int ready;
    if (ready)
        return;
    mpz_inits(PM_R, PM_K2, PM_CF, PM_C, PM_2P, NULL);
    PM_KBITS = (unsigned long)mpz_sizeinbase(P, 2);
    mpz_ui_pow_ui(PM_R, 2, 64 * N);
    mpz_ui_pow_ui(PM_K2, 2, PM_KBITS);
    mpz_sub(PM_C, PM_K2, P);
    mpz_mod(PM_CF, PM_R, P);  /* 2^(64N) mod p = c 2^(64N-k) */
    mpz_mul_ui(PM_2P, P, 2);
    ready = 1;
}

/* r = the reduction without its select of the wide value t < R^2 */
static void ref_split_pm(mpz_t r, const mpz_t t)
{
    mpz_t lo, hi;
    mpz_inits(lo, hi, NULL);
    mpz_tdiv_r_2exp(lo, t, 64 * N);
    mpz_tdiv_q_2exp(hi, t, 64 * N);
    mpz_addmul(lo, hi, PM_CF);           /* w = lo + hi c_fold */
    mpz_tdiv_q_2exp(hi, lo, PM_KBITS);
    mpz_tdiv_r_2exp(r, lo, PM_KBITS);
    mpz_addmul(r, hi, PM_C);             /* (w mod 2^k) + (w >> k) c */
    if (mpz_cmp(r, PM_2P) >= 0) {
        fprintf(stderr, "internal: the lazy product is not below 2p\n");
        exit(2);
    }
    mpz_clears(lo, hi, NULL);
}

/* r = s folded into [0, R): each R above it taken as c_fold (s < 2R + ...),
 * each wrap below 0 the same way; at most twice (the header's algorithm) */
static void ref_fold_pm(mpz_t r, const mpz_t s)
{
    int i;
    mpz_set(r, s);
    for (i = 0; i < 2; i++) {
        if (mpz_cmp(r, PM_R) >= 0) {
            mpz_sub(r, r, PM_R);
            mpz_add(r, r, PM_CF);
        } else if (mpz_sgn(r) < 0) {
            mpz_add(r, r, PM_R);
            mpz_sub(r, r, PM_CF);
        }
    }
    if (mpz_cmp(r, PM_R) >= 0 || mpz_sgn(r) < 0) {
        fprintf(stderr, "internal: the lazy fold left [0, R)\n");
        exit(2);
    }
}

/* A lazy binary op (add_lazy, sub_lazy) on x, y whose exact integer result
 * is w: its value is w folded into [0, R) (ref_fold_pm), with r == a and
 * r == b too, and canon of it is w mod p. */
static void check_lazy_binary(const char *name, void (*op)(FE *, const FE *, const FE *), const FE *x,
                              const FE *y, const mpz_t w, const uint64_t xa[N], const uint64_t yb[N])
{
    char label[64];
    FE r, s;
    mpz_t want, canon;
    mpz_inits(want, canon, NULL);
    ref_fold_pm(want, w);
    op(&r, x, y);
    expect(name, r.limb, want, N, xa, yb);
    s = *x;
    op(&s, &s, y);
    snprintf(label, sizeof label, "%s r==a", name);
    expect(label, s.limb, want, N, xa, yb);
    s = *y;
    op(&s, x, &s);
    snprintf(label, sizeof label, "%s r==b", name);
    expect(label, s.limb, want, N, xa, yb);
    F(canon)(&s, &r);
    mpz_mod(canon, w, P);
    snprintf(label, sizeof label, "canon(%s)", name);
    expect(label, s.limb, canon, N, xa, yb);
    mpz_clears(want, canon, NULL);
}

/* every lazy op on one pair of operands x, y < R (any limbs) */
static void check_lazy_pair(const uint64_t xa[N], const uint64_t yb[N], uint32_t c)
{
    FE x, y, r, s;
    uint64_t t[2 * N];
    mpz_t u, v, want, canon, w;
    mpz_inits(u, v, want, canon, w, NULL);
    to_mpz(u, xa, N);
    to_mpz(v, yb, N);
    memcpy(x.limb, xa, sizeof x.limb);
    memcpy(y.limb, yb, sizeof y.limb);

    /* canon, and the canonical products on lazy operands */
    F(canon)(&r, &x);
    mpz_mod(canon, u, P);
    expect("canon", r.limb, canon, N, xa, NULL);
    s = x;
    F(canon)(&s, &s);
    expect("canon r==a", s.limb, canon, N, xa, NULL);
    mpz_mul(w, u, v);
    mpz_mod(canon, w, P);
    F(mul)(&r, &x, &y);
    expect("mul (lazy operands)", r.limb, canon, N, xa, yb);
    K.mul(r.limb, xa, yb);
    expect("mul (lazy operands, level's kernel)", r.limb, canon, N, xa, yb);
    F(mul_wide)(t, &x, &y);
    expect("mul_wide (lazy operands)", t, w, 2 * N, xa, yb);
    F(redc)(&r, t);
    expect("redc(mul_wide) (lazy operands)", r.limb, canon, N, xa, yb);

    /* mul_lazy, exactly, with aliasing */
    ref_split_pm(want, w);
    check_mul_lazy(&x, &y, want, canon, xa, yb);

    /* sqr_lazy and sqr */
    mpz_mul(w, u, u);
    ref_split_pm(want, w);
    check_sqr_lazy(&x, want, xa);
    mpz_mod(canon, w, P);
    F(sqr)(&r, &x);
    expect("sqr (lazy operand)", r.limb, canon, N, xa, NULL);
    K.sqr(r.limb, xa);
    expect("sqr (lazy operand, level's kernel)", r.limb, canon, N, xa, NULL);
    F(sqr_wide)(t, &x);
    expect("sqr_wide (lazy operand)", t, w, 2 * N, xa, NULL);

    /* add_lazy, sub_lazy, mul_small_lazy, exactly, and canon of each */
    mpz_add(w, u, v);
    check_lazy_binary("add_lazy", F(add_lazy), &x, &y, w, xa, yb);
    mpz_sub(w, u, v);
    check_lazy_binary("sub_lazy", F(sub_lazy), &x, &y, w, xa, yb);

    mpz_mul_ui(w, u, c);
    mpz_tdiv_q_2exp(want, w, 64 * N);
    mpz_tdiv_r_2exp(w, w, 64 * N);
    mpz_addmul(w, want, PM_CF);          /* lo + h c_fold < R + 2^63 */
    ref_fold_pm(want, w);
    F(mul_small_lazy)(&r, &x, c);
    expect("mul_small_lazy", r.limb, want, N, xa, NULL);
    s = x;
    F(mul_small_lazy)(&s, &s, c);
    expect("mul_small_lazy r==a", s.limb, want, N, xa, NULL);
    F(canon)(&s, &r);
    mpz_mul_ui(w, u, c);
    mpz_mod(canon, w, P);
    expect("canon(mul_small_lazy)", s.limb, canon, N, xa, NULL);

    /* cmov and cswap move lazy values unchanged */
    s = x;
    F(cmov)(&s, &y, 1);
    expect("cmov 1 (lazy)", s.limb, v, N, xa, yb);
    r = x;
    s = y;
    F(cswap)(&r, &s, 1);
    expect("cswap 1 (lazy) a", r.limb, v, N, xa, yb);
    expect("cswap 1 (lazy) b", s.limb, u, N, xa, yb);
    mpz_clears(u, v, want, canon, w, NULL);
}

static uint32_t pm_small(void)
{
    static const uint32_t edge[] = {0, 1, 2, 19, 38, 121665, 121666, 0x7fffffffu, 0xffffffffu};
    uint64_t z = rnd();
    return z & 1 ? (uint32_t)(z >> 32) : edge[(z >> 1) % (sizeof edge / sizeof edge[0])];
}

/* Operands from a and b (canonical): each itself, plus p (below 2p), and its
 * complement R - 1 - a (the top of the lazy range), in all pairs. */
static void check_lazy(const uint64_t a[N], const uint64_t b[N])
{
    uint64_t ops[2][3][N];
    mpz_t u;
    int i, j, k;
    pm_setup();
    mpz_init(u);
    for (i = 0; i < 2; i++) {
        const uint64_t *x = i ? b : a;
        memcpy(ops[i][0], x, sizeof ops[i][0]);
        to_mpz(u, x, N);
        mpz_add(u, u, P);
        from_mpz(ops[i][1], N, u);
        for (k = 0; k < N; k++)
            ops[i][2][k] = ~x[k];
    }
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++)
            check_lazy_pair(ops[0][i], ops[1][j], pm_small());
    mpz_clear(u);
}

/* The lazy range's edges, every pair: 0, 1, p - 1, p, p + 1, 2p - 1, 2p,
 * 2^k - 1, 2^k, R - c_fold - 1, R - c_fold, R - 2, R - 1, and values whose
 * low limb is all ones or zero under an all-ones top. */
static void check_lazy_edges(void)
{
    enum { E = 15 };
    uint64_t v[E][N];
    mpz_t z;
    int i, j, k;
    pm_setup();
    mpz_init(z);
    for (i = 0; i < E; i++) {
        switch (i) {
        case 0: mpz_set_ui(z, 0); break;
        case 1: mpz_set_ui(z, 1); break;
        case 2: mpz_sub_ui(z, P, 1); break;
        case 3: mpz_set(z, P); break;
        case 4: mpz_add_ui(z, P, 1); break;
        case 5: mpz_sub_ui(z, PM_2P, 1); break;
        case 6: mpz_set(z, PM_2P); break;
        case 7: mpz_sub_ui(z, PM_K2, 1); break;
        case 8: mpz_set(z, PM_K2); break;
        case 9: mpz_sub(z, PM_R, PM_CF); mpz_sub_ui(z, z, 1); break;
        case 10: mpz_sub(z, PM_R, PM_CF); break;
        case 11: mpz_sub_ui(z, PM_R, 2); break;
        case 12: mpz_sub_ui(z, PM_R, 1); break;
        default: /* all-ones top limbs over a low limb of 0 or c_fold - 1 */
            mpz_sub_ui(z, PM_R, 1);
            mpz_tdiv_q_2exp(z, z, 64);
            mpz_mul_2exp(z, z, 64);
            if (i == 14)
                mpz_add(z, z, PM_CF), mpz_sub_ui(z, z, 1);
            break;
        }
        if (mpz_cmp(z, PM_R) >= 0)
            mpz_sub_ui(z, PM_R, 1);
        from_mpz(v[i], N, z);
    }
    for (i = 0; i < E; i++)
        for (j = 0; j < E; j++)
            for (k = 0; k < 2; k++)
                check_lazy_pair(v[i], v[j], k ? 0xffffffffu : 121665u);
    mpz_clear(z);
}
#endif

static void check_unary(const uint64_t a[N])
{
    FE x, r;
    uint64_t t[2 * N];
    uint8_t bytes[NBYTES];
    mpz_t want, u;
    mpz_inits(want, u, NULL);
    memcpy(x.limb, a, sizeof x.limb);
    to_mpz(u, a, N);

    F(sqr)(&r, &x);
    ref_mul(want, a, a);
    expect("sqr", r.limb, want, N, a, NULL);
    r = x;
    F(sqr)(&r, &r);
    expect("sqr r==a", r.limb, want, N, a, NULL);
    F(mul)(&r, &x, &x);
    expect("mul a==b", r.limb, want, N, a, NULL);
    r = x;
    F(mul)(&r, &r, &r);
    expect("mul r==a==b", r.limb, want, N, a, NULL);

    F(sqr_wide)(t, &x);
    mpz_mul(want, u, u);
    expect("sqr_wide", t, want, 2 * N, a, NULL);
    K.sqr_wide(t, a);
    expect("sqr_wide (level's kernel)", t, want, 2 * N, a, NULL);
    F(redc)(&r, t);
    ref_mul(want, a, a);
    expect("redc(sqr_wide)", r.limb, want, N, a, NULL);
    K.sqr(r.limb, a);
    expect("sqr (level's kernel)", r.limb, want, N, a, NULL);

    F(neg)(&r, &x);
    mpz_neg(want, u);
    mpz_mod(want, want, P);
    expect("neg", r.limb, want, N, a, NULL);
    r = x;
    F(neg)(&r, &r);
    expect("neg r==a", r.limb, want, N, a, NULL);
    expect_int("is_zero", F(is_zero)(&x), mpz_sgn(u) == 0);
    expect_int("eq self", F(eq)(&x, &x), 1);

    /* mul_small: c times the internal value (the form is linear), against
     * GMP; c at both ends, the curve constants, and one taken from a (so the
     * Barrett estimate meets every quotient) */
    {
        static const uint32_t cs[] = {0, 1, 2, 3, 19, 121666, 0x80000000u, 0xffffffffu};
        uint32_t c;
        size_t j;
        for (j = 0; j <= sizeof cs / sizeof cs[0]; j++) {
            c = j < sizeof cs / sizeof cs[0] ? cs[j] : (uint32_t)(a[0] ^ (a[N - 1] >> 32));
            F(mul_small)(&r, &x, c);
            mpz_mul_ui(want, u, c);
            mpz_mod(want, want, P);
            expect("mul_small", r.limb, want, N, a, NULL);
            r = x;
            F(mul_small)(&r, &r, c);
            expect("mul_small r==a", r.limb, want, N, a, NULL);
        }
    }

    /* serialization: to_bytes against GMP's encoding, and the round trip */
    {
        uint8_t ref[NBYTES];
        mpz_t v;
        mpz_init(v);
        plain(v, a);
        encode(ref, v);
        F(to_bytes)(bytes, &x);
        checks++;
        if (memcmp(bytes, ref, NBYTES) != 0)
            fail("to_bytes");
        expect_int("from_bytes(to_bytes) ok", F(from_bytes)(&r, bytes), 1);
        expect("from_bytes(to_bytes)", r.limb, u, N, a, NULL);
        mpz_clear(v);
    }
    mpz_clears(want, u, NULL);
}

/* is_square (divsteps or binary GCD) against GMP's Legendre symbol: cheaper than the
 * exponentiations below, so on more inputs (every tenth of the diff suite's) */
static void check_is_square(const uint64_t a[N])
{
    FE x;
    mpz_t u;
    mpz_init(u);
    memcpy(x.limb, a, sizeof x.limb);
    plain(u, a);
    expect_int("is_square vs Legendre (every tenth input)", F(is_square)(&x),
               mpz_sgn(u) == 0 || mpz_legendre(u, P) == 1);
    mpz_clear(u);
}

/* inv and sqrt: slower (a fixed exponentiation each), so run on fewer inputs */
static void check_inv_sqrt(const uint64_t a[N])
{
    FE x, r, s;
    mpz_t u, v, w;
    int ok, sq;
    mpz_inits(u, v, w, NULL);
    memcpy(x.limb, a, sizeof x.limb);
    plain(u, a);

    ok = F(inv)(&r, &x);
    if (mpz_sgn(u) == 0) {
        expect_int("inv(0) flag", ok, 0);
        expect("inv(0)", r.limb, u, N, a, NULL);
    } else {
        expect_int("inv flag", ok, 1);
        mpz_invert(v, u, P);
        internal(s.limb, v);
        mpz_set_ui(w, 0);
        to_mpz(w, s.limb, N);
        expect("inv", r.limb, w, N, a, NULL);
    }
    r = x;
    F(inv)(&r, &r);
    if (mpz_sgn(u) != 0)
        expect("inv r==a", r.limb, w, N, a, NULL);

    /* Fermat cross-check of inv */
    ok = F(inv_fermat)(&s, &x);
    expect_int("inv_fermat flag", ok, mpz_sgn(u) != 0);
    F(inv)(&r, &x);
    to_mpz(w, r.limb, N);
    expect("inv == inv_fermat", s.limb, w, N, a, NULL);

    sq = mpz_sgn(u) == 0 || mpz_legendre(u, P) == 1;
    expect_int("is_square vs Legendre", F(is_square)(&x), sq);
    expect_int("is_square_euler vs Legendre", F(is_square_euler)(&x), sq);
    ok = F(sqrt)(&r, &x);
    expect_int("sqrt flag vs Legendre", ok, sq);
    if (sq) {
        F(sqr)(&s, &r);
        expect("sqrt(a)^2", s.limb, mpz_sgn(u) ? (to_mpz(w, a, N), w) : u, N, a, NULL);
    } else {
        mpz_set_ui(w, 0);
        expect("sqrt non-square -> 0", r.limb, w, N, a, NULL);
    }
    mpz_clears(u, v, w, NULL);
}

#if C(HAVE_SQRT_RATIO)
/* sqrt_ratio against GMP: the flag is whether u/v is a square (0 included;
 * for v = 0, whether u = 0), and r^2 v = u for a square, Z u otherwise
 * (r = 0 for v = 0). u and v random, zero, one, both squares (a square
 * quotient), u times Z (a non-square quotient), and r aliasing u or v. */
static void check_sqrt_ratio(unsigned long rounds)
{
    FE u, v, r, s, zf;
    mpz_t pu, pv, pr, q, w, z;
    unsigned long k;
    int ok, want, made;
    mpz_inits(pu, pv, pr, q, w, z, NULL);
    mpz_set_si(z, C(SQRT_RATIO_Z));
    mpz_mod(z, z, P);
    internal(zf.limb, z);
    for (k = 0; k < rounds; k++) {
        random_element(u.limb);
        random_element(v.limb);
        switch (k % 8) {
        case 0: F(zero)(&u); break;
        case 1: F(zero)(&v); break;
        case 2: F(zero)(&u), F(zero)(&v); break;
        case 3: F(one)(&v); break;
        case 4: F(sqr)(&u, &u), F(sqr)(&v, &v); break;                       /* a square quotient */
        case 5: F(sqr)(&u, &u), F(sqr)(&v, &v), F(mul)(&u, &u, &zf); break;  /* a non-square one */
        default: break;
        }
        ok = F(sqrt_ratio)(&r, &u, &v);
        made = (k % 8 == 4 || k % 8 == 5) && !F(is_zero)(&u) && !F(is_zero)(&v);
        plain(pu, u.limb);
        plain(pv, v.limb);
        plain(pr, r.limb);
        if (mpz_sgn(pv) == 0) {
            want = mpz_sgn(pu) == 0;
            mpz_set_ui(w, 0);
            expect("sqrt_ratio(u, 0) = 0", r.limb, w, N, u.limb, v.limb);
        } else {
            mpz_invert(q, pv, P);
            mpz_mul(q, q, pu);
            mpz_mod(q, q, P);
            want = mpz_sgn(q) == 0 || mpz_legendre(q, P) == 1;
            mpz_mul(w, pr, pr);
            mpz_mul(w, w, pv);
            mpz_mod(w, w, P);
            if (!want)
                mpz_mul(pu, pu, z), mpz_mod(pu, pu, P);
            checks++;
            if (mpz_cmp(w, pu) != 0) {
                fail("sqrt_ratio: r^2 v != %s", want ? "u (u/v a square)" : "Z u (u/v not a square)");
                if (failures <= 20)
                    show("u", u.limb, N), show("v", v.limb, N), show("r", r.limb, N);
            }
        }
        expect_int("sqrt_ratio flag (u/v a square, GMP's Legendre symbol)", ok, want);
        if (made)
            expect_int("sqrt_ratio flag on a quotient made (non-)square", ok, k % 8 == 4);
        s = u;
        expect_int("sqrt_ratio r == u: flag", F(sqrt_ratio)(&s, &s, &v), ok);
        expect_int("sqrt_ratio r == u: root", F(eq)(&s, &r), 1);
        s = v;
        expect_int("sqrt_ratio r == v: flag", F(sqrt_ratio)(&s, &u, &s), ok);
        expect_int("sqrt_ratio r == v: root", F(eq)(&s, &r), 1);
    }
    mpz_clears(pu, pv, pr, q, w, z, NULL);
}
#endif

/* Batch inversion against one-by-one inversion, with zeros, and out == in. */
static void check_inv_batch(unsigned long rounds)
{
    static const size_t sizes[] = {1, 2, 3, 8, 17};
    FE in[17], out[17], scratch[17], one;
    unsigned long k;
    size_t i, s;
    mpz_t want;
    mpz_init(want);
    for (k = 0; k < rounds; k++) {
        for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            for (i = 0; i < n; i++) {
                random_element(in[i].limb);
                if (rnd() % 4 == 0)
                    F(zero)(&in[i]);
            }
            F(inv_batch)(out, in, n, scratch);
            for (i = 0; i < n; i++) {
                F(inv)(&one, &in[i]);
                to_mpz(want, one.limb, N);
                expect("inv_batch", out[i].limb, want, N, in[i].limb, NULL);
            }
            F(inv_batch)(in, in, n, scratch); /* in place */
            for (i = 0; i < n; i++) {
                to_mpz(want, out[i].limb, N);
                expect("inv_batch out == in", in[i].limb, want, N, NULL, NULL);
            }
        }
    }
    mpz_clear(want);
}

/* redc of limb-wise sums of k wide products, k up to REDC_SUMS, and the
 * extreme admitted inputs. */
static void check_redc_sums(unsigned long rounds)
{
    unsigned long i;
    uint64_t k, kmax = C(REDC_SUMS) < 8 ? C(REDC_SUMS) : 8;
    mpz_t sum, want, lim;
    FE r;
    uint64_t t[2 * N];
    mpz_inits(sum, want, lim, NULL);
    for (i = 0; i < rounds; i++) {
        for (k = 1; k <= kmax; k++) {
            uint64_t acc[2 * N], prod[2 * N], carry;
            size_t j, m;
            memset(acc, 0, sizeof acc);
            for (m = 0; m < k; m++) {
                FE a, b;
                random_element(a.limb);
                if (m % 2 == 0 && (rnd() & 1))
                    mpz_sub_ui(lim, P, 1), from_mpz(a.limb, N, lim); /* p-1: the largest product */
                random_element(b.limb);
                F(mul_wide)(prod, &a, &b);
                carry = 0;
                for (j = 0; j < 2 * N; j++) {
                    unsigned __int128 s = (unsigned __int128)acc[j] + prod[j] + carry;
                    acc[j] = (uint64_t)s;
                    carry = (uint64_t)(s >> 64);
                }
                if (carry)
                    fail("sum of %llu wide products overflowed 2N limbs", (unsigned long long)k);
            }
            F(redc)(&r, acc);
            to_mpz(sum, acc, 2 * N);
            ref_redc(want, sum);
            expect("redc(sum of products)", r.limb, want, N, NULL, NULL);
        }
    }
    /* REDC_SUMS * (p-1)^2, and the largest admitted t */
    mpz_sub_ui(lim, P, 1);
    mpz_mul(lim, lim, lim);
    mpz_mul_ui(lim, lim, (unsigned long)C(REDC_SUMS));
    if (mpz_cmp(lim, WIDE_MAX) > 0)
        fail("REDC_SUMS * (p-1)^2 exceeds the documented redc bound");
    from_mpz(t, 2 * N, lim);
    F(redc)(&r, t);
    ref_redc(want, lim);
    expect("redc(REDC_SUMS*(p-1)^2)", r.limb, want, N, NULL, NULL);
    from_mpz(t, 2 * N, WIDE_MAX);
    F(redc)(&r, t);
    ref_redc(want, WIDE_MAX);
    expect("redc(bound - 1)", r.limb, want, N, NULL, NULL);
    mpz_clears(sum, want, lim, NULL);
}

/* from_bytes_wide against GMP: v mod p for every length 0 .. WIDE_BYTES
 * (random bytes, all 0xff, and multiples of p plus 0, 1 and p - 1 where
 * they fit), the bytes inside r where they fit, and a length above it (0
 * and r = 0) */
#define WBYTES C(WIDE_BYTES)

/* from_bytes_wide(bytes, len) into *r (set to one first) returns 1 and
 * gives v mod p; want is left holding the expected internal words */
static void expect_wide(FE *r, mpz_t want, const uint8_t *bytes, size_t len, const mpz_t v,
                        const char *what_ok, const char *what)
{
    FE y;
    F(one)(r);
    expect_int(what_ok, F(from_bytes_wide)(r, bytes, len), 1);
    mpz_mod(want, v, P);
    internal(y.limb, want);
    to_mpz(want, y.limb, N);
    expect(what, r->limb, want, N, NULL, NULL);
}

static void check_from_bytes_wide(unsigned long rounds)
{
    uint8_t bytes[WBYTES + 1];
    mpz_t v, want, top;
    FE r;
    size_t len, j;
    unsigned long round;
    mpz_inits(v, want, top, NULL);
    for (round = 0; round < rounds; round++) {
        for (len = 0; len <= WBYTES; len++) {
            int kind = (int)(round % 4);
            mpz_set_ui(top, 1);
            mpz_mul_2exp(top, top, 8 * len);            /* v < 2^(8 len) */
            if (kind == 0 || kind == 1) {
                for (j = 0; j < len; j++)
                    bytes[j] = kind == 0 ? (uint8_t)rnd() : 0xff;
                mpz_import(v, len, C(BYTE_ORDER_BIG) ? 1 : -1, 1, 0, 0, bytes);
            } else {
                /* k p + e, k random below 2^(8 len) / p, e in {0, 1, p - 1} */
                mpz_tdiv_q(v, top, P);
                if (mpz_sgn(v) == 0)
                    continue;
                mpz_set_ui(want, rnd());
                mpz_mul_2exp(want, want, 64);
                mpz_add_ui(want, want, rnd());
                mpz_mod(want, want, v);
                mpz_mul(v, want, P);
                if (kind == 3)
                    mpz_add_ui(v, v, (round / 4) % 2 ? 1 : 0);
                else if (mpz_cmp_ui(want, 0) > 0)
                    mpz_sub_ui(v, v, 1);                /* (k - 1) p + p - 1 */
                encode_len(bytes, len, v);
            }
            expect_wide(&r, want, bytes, len, v, "from_bytes_wide ok", "from_bytes_wide");
            if (len <= sizeof r.limb) {         /* the bytes in r itself */
                memcpy(r.limb, bytes, len);
                F(from_bytes_wide)(&r, (const uint8_t *)r.limb, len);
                expect("from_bytes_wide in == r", r.limb, want, N, NULL, NULL);
            }
        }
    }
    /* The longest input with its high half hi = t >> 64N at m p - 1, m p and
     * m p + p - 1 for every m with m p <= the largest hi, over a low half of
     * all ones or random: Montgomery fields reduce hi by conditional
     * subtractions of 2^j p, and this takes each combination of them. */
    {
        mpz_t hi_max, hi, lo;
        unsigned long m;
        int e;
        mpz_inits(hi_max, hi, lo, NULL);
        mpz_set_ui(top, 1);
        mpz_mul_2exp(top, top, 8 * WBYTES);
        mpz_sub_ui(hi_max, top, 1);
        mpz_tdiv_q_2exp(hi_max, hi_max, 64 * N);
        for (m = 0;; m++) {
            mpz_mul_ui(hi, P, m);
            if (mpz_cmp(hi, hi_max) > 0)
                break;
            for (e = 0; e < 6; e++) {
                mpz_set(v, hi);                         /* m p */
                if (e % 3 == 2)
                    mpz_add(v, v, P);
                if (e % 3 != 1)
                    mpz_sub_ui(v, v, 1);
                if (mpz_sgn(v) < 0 || mpz_cmp(v, hi_max) > 0)
                    continue;
                mpz_set_ui(lo, 0);
                for (j = 0; j < N; j++) {
                    mpz_mul_2exp(lo, lo, 64);
                    mpz_add_ui(lo, lo, e < 3 ? ~0UL : rnd());
                }
                mpz_mul_2exp(v, v, 64 * N);
                mpz_add(v, v, lo);
                encode_len(bytes, WBYTES, v);
                expect_wide(&r, want, bytes, WBYTES, v, "from_bytes_wide(hi = m p + e) ok",
                            "from_bytes_wide(hi = m p + e)");
            }
        }
        mpz_clears(hi_max, hi, lo, NULL);
    }
    for (j = 0; j <= WBYTES; j++)
        bytes[j] = 0xff;
    F(one)(&r);
    expect_int("from_bytes_wide rejects len > WIDE_BYTES", F(from_bytes_wide)(&r, bytes, WBYTES + 1), 0);
    mpz_set_ui(want, 0);
    expect("from_bytes_wide(len > WIDE_BYTES) zeroes r", r.limb, want, N, NULL, NULL);
    mpz_clears(v, want, top, NULL);
}

/* A select table entry with as many bits set as the contract allows: every
 * bit (out of contract, but select copies words and must not care), or p - 1
 * in the checked build, which aborts on an entry that is not canonical. */
static void most_bits(uint64_t x[N])
{
#if defined(FG_VERIFY)
    memcpy(x, F(P), N * sizeof x[0]);
    x[0] -= 1; /* p is odd */
#else
    memset(x, 0xff, N * sizeof x[0]);
#endif
}

/* select: every idx below n (the entry, bit for bit), idx at and above n and
 * near SIZE_MAX (zero), n = 0, and r one of the entries */
static void check_select(void)
{
    enum { T = 17 };
    FE table[T], r, copy[T];
    mpz_t want;
    size_t n, idx, k;
    mpz_init(want);
    for (k = 0; k < T; k++) {
        random_element(table[k].limb);
        if (k == 3)
            most_bits(table[k].limb);   /* (nearly) every bit set: the masks show */
    }
    for (n = 0; n <= T; n += (n < 2 ? 1 : 5)) {
        for (idx = 0; idx < n + 3; idx++) {
            size_t id = idx < n + 2 ? idx : ~(size_t)0 - 1;
            F(one)(&r);
            F(select)(&r, table, n, id);
            to_mpz(want, id < n ? table[id].limb : (const uint64_t[N]){0}, N);
            expect("select (table[idx], or 0 for idx >= n)", r.limb, want, N, NULL, NULL);
        }
    }
    /* r aliasing an entry: the table is read whole before r is written */
    memcpy(copy, table, sizeof table);
    for (k = 0; k < T; k += 4) {
        memcpy(table, copy, sizeof table);
        F(select)(&table[k], table, T, T - 1 - k);
        checks++;
        if (memcmp(table[k].limb, copy[T - 1 - k].limb, sizeof table[k].limb) != 0)
            fail("select with r == &table[%zu]", k);
    }
    mpz_clear(want);
}

static void check_constants(void)
{
    FE x, y;
    mpz_t want, v;
    uint8_t bytes[NBYTES];
    size_t i;
    mpz_inits(want, v, NULL);
    F(zero)(&x);
    expect("zero", x.limb, want, N, NULL, NULL);
    F(one)(&x);
    mpz_set_ui(v, 1);
    internal(y.limb, v);
    to_mpz(want, y.limb, N);
    expect("one", x.limb, want, N, NULL, NULL);
    for (i = 0; i < 64; i++) {
        uint64_t u = i < 32 ? rnd() : (i < 48 ? (uint64_t)i : ~(uint64_t)0 - i);
        F(from_u64)(&x, u);
        mpz_set_ui(v, 0);
        mpz_import(v, 1, -1, 8, 0, 0, &u);
        mpz_mod(v, v, P);
        internal(y.limb, v);
        to_mpz(want, y.limb, N);
        expect("from_u64", x.limb, want, N, NULL, NULL);
    }
    /* rejection of non-canonical encodings: p, p+1, p + random, all ones */
    for (i = 0; i < 4 + 64; i++) {
        if (i == 0) mpz_set(v, P);
        else if (i == 1) mpz_add_ui(v, P, 1);
        else if (i == 2) { mpz_set_ui(v, 1); mpz_mul_2exp(v, v, 8 * NBYTES); mpz_sub_ui(v, v, 1); }
        else {
            mpz_set_ui(v, 1);
            mpz_mul_2exp(v, v, 8 * NBYTES);
            mpz_sub(v, v, P);
            if (mpz_sgn(v) <= 0) continue;
            mpz_set_ui(want, rnd());
            mpz_mod(want, want, v);
            mpz_add(v, P, want);
        }
        encode(bytes, v);
        F(one)(&x);
        expect_int("from_bytes(>= p) rejects", F(from_bytes)(&x, bytes), 0);
        mpz_set_ui(want, 0);
        expect("from_bytes(>= p) zeroes r", x.limb, want, N, NULL, NULL);
    }
    /* mul_small at its corrections, on internal values: 2 (p+1)/2 = p + 1
     * (one subtraction, for every form), and (p-1) and (p-1)/2 times the
     * constants at the top of the range */
    for (i = 0; i < 3 * 3; i++) {
        static const uint32_t cs[] = {2, 0xffffffffu, 0xfffffffeu};
        uint32_t c = cs[i % 3];
        if (i / 3 == 0) mpz_add_ui(v, P, 1), mpz_tdiv_q_2exp(v, v, 1);
        else if (i / 3 == 1) mpz_sub_ui(v, P, 1);
        else mpz_sub_ui(v, P, 1), mpz_tdiv_q_2exp(v, v, 1);
        from_mpz(x.limb, N, v);
        F(mul_small)(&y, &x, c);
        mpz_mul_ui(want, v, c);
        mpz_mod(want, want, P);
        expect("mul_small (edge)", y.limb, want, N, x.limb, NULL);
    }
    mpz_clears(want, v, NULL);
}

/* ------------------------------------------------------------------ */
/* Known answers from the Python reference (generated/vectors/NAME.kat). */
static int run_kat(const char *path)
{
    FILE *fp = fopen(path, "r");
    char line[4096], op[32];
    char h[3][1200];
    unsigned long lines = 0;
    mpz_t v[3], want;
    if (!fp) {
        fprintf(stderr, "cannot open %s\n", path);
        return 2;
    }
    mpz_inits(v[0], v[1], v[2], want, NULL);
    while (fgets(line, sizeof line, fp)) {
        FE a, b, r;
        uint64_t t[2 * N];
        int k, ok;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        k = sscanf(line, "%31s %1199s %1199s %1199s", op, h[0], h[1], h[2]);
        if (k < 3) {
            fprintf(stderr, "%s: malformed line: %s", path, line);
            return 2;
        }
        for (ok = 0; ok < k - 1; ok++)
            if (strcmp(h[ok], "none") != 0)
                mpz_set_str(v[ok], h[ok], 16);
        lines++;
        if (!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul")) {
            internal(a.limb, v[0]);
            internal(b.limb, v[1]);
            if (op[0] == 'a') F(add)(&r, &a, &b);
            else if (op[0] == 's') F(sub)(&r, &a, &b);
            else F(mul)(&r, &a, &b);
            internal(t, v[2]);
            to_mpz(want, t, N);
            expect(op, r.limb, want, N, a.limb, b.limb);
        } else if (!strcmp(op, "mul_wide")) {
            internal(a.limb, v[0]);
            internal(b.limb, v[1]);
            F(mul_wide)(t, &a, &b);
            expect(op, t, v[2], 2 * N, a.limb, b.limb);
        } else if (!strcmp(op, "sqr") || !strcmp(op, "neg") || !strcmp(op, "inv")) {
            internal(a.limb, v[0]);
            if (op[0] == 's') F(sqr)(&r, &a);
            else if (op[0] == 'n') F(neg)(&r, &a);
            else F(inv)(&r, &a);
            internal(t, v[1]);
            to_mpz(want, t, N);
            expect(op, r.limb, want, N, a.limb, NULL);
        } else if (!strcmp(op, "sqrt")) {
            internal(a.limb, v[0]);
            ok = F(sqrt)(&r, &a);
            expect_int("sqrt flag", ok, strcmp(h[1], "none") != 0);
            if (ok) {
                plain(want, r.limb);
                checks++;
                mpz_sub(v[2], P, v[1]);
                mpz_mod(v[2], v[2], P);
                if (mpz_cmp(want, v[1]) != 0 && mpz_cmp(want, v[2]) != 0)
                    fail("sqrt known answer: %s", h[0]);
            }
        } else if (!strcmp(op, "redc")) {
            from_mpz(t, 2 * N, v[0]);
            F(redc)(&r, t);
            plain(want, r.limb);
            checks++;
            if (mpz_cmp(want, v[1]) != 0)
                fail("redc known answer: t = %s", h[0]);
        } else if (!strcmp(op, "from_bytes")) {
            uint8_t bytes[NBYTES];
            encode(bytes, v[0]);
            ok = F(from_bytes)(&r, bytes);
            expect_int("from_bytes known answer flag", ok, (int)mpz_get_ui(v[1]));
            plain(want, r.limb);
            checks++;
            if (mpz_cmp(want, v[2]) != 0)
                fail("from_bytes known answer: %s", h[0]);
        } else if (!strcmp(op, "from_bytes_wide")) {
            uint8_t bytes[WBYTES];
            size_t len = (size_t)mpz_get_ui(v[0]);
            if (len > WBYTES) {
                fprintf(stderr, "%s: from_bytes_wide length %zu above %d\n", path, len, WBYTES);
                return 2;
            }
            encode_len(bytes, len, v[1]);
            expect_int("from_bytes_wide known answer flag", F(from_bytes_wide)(&r, bytes, len), 1);
            plain(want, r.limb);
            checks++;
            if (mpz_cmp(want, v[2]) != 0)
                fail("from_bytes_wide known answer: %s bytes, %s", h[0], h[1]);
        } else {
            fprintf(stderr, "%s: unknown op '%s'\n", path, op);
            return 2;
        }
    }
    fclose(fp);
    mpz_clears(v[0], v[1], v[2], want, NULL);
    if (lines < 50) {
        fprintf(stderr, "%s: only %lu vectors\n", path, lines);
        return 2;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Exhaustive-pattern sweep: operands whose every limb is a dangerous value
 * (0, 1, 2, 2^32-1, 2^32, 2^63-1, 2^63, 2^64-2, 2^64-1, or limb i of p, p-1,
 * p+1), reduced mod p. Up to 2 limbs: all pairs. 3 and 4 limbs: every
 * operand against every operand whose limbs are all equal (and, with
 * --full, all pairs). Larger fields: `count` sampled pairs. */
#define SWEEP_VALUES 12
static void sweep_limb_values(uint64_t v[N][SWEEP_VALUES])
{
    static const uint64_t fixed[9] = {0, 1, 2, UINT64_C(0xffffffff), UINT64_C(0x100000000),
                                      UINT64_C(0x7fffffffffffffff), UINT64_C(0x8000000000000000),
                                      UINT64_C(0xfffffffffffffffe), UINT64_C(0xffffffffffffffff)};
    uint64_t pm1[N], pp1[N];
    mpz_t z;
    size_t i, k;
    mpz_init(z);
    mpz_sub_ui(z, P, 1);
    from_mpz(pm1, N, z);
    mpz_add_ui(z, P, 1);
    mpz_mod_2exp(z, z, 64 * N);
    from_mpz(pp1, N, z);
    for (i = 0; i < N; i++) {
        for (k = 0; k < 9; k++)
            v[i][k] = fixed[k];
        v[i][9] = F(P)[i];
        v[i][10] = pm1[i];
        v[i][11] = pp1[i];
    }
    mpz_clear(z);
}

static void sweep_operand(uint64_t x[N], uint64_t v[N][SWEEP_VALUES], unsigned long index)
{
    mpz_t z;
    size_t i;
    for (i = 0; i < N; i++, index /= SWEEP_VALUES)
        x[i] = v[i][index % SWEEP_VALUES];
    mpz_init(z);
    to_mpz(z, x, N);
    mpz_mod(z, z, P);
    from_mpz(x, N, z);
    mpz_clear(z);
}

static unsigned long run_sweep(unsigned long count, int full)
{
    uint64_t v[N][SWEEP_VALUES], a[N], b[N];
    unsigned long total = 1, i, j, pairs = 0;
    size_t k;
    sweep_limb_values(v);
    for (k = 0; k < N && total < 100000000UL; k++)
        total *= SWEEP_VALUES;
    if (N <= 2 || (N <= 4 && full)) {
        for (i = 0; i < total; i++) {
            sweep_operand(a, v, i);
            check_unary(a);
            for (j = 0; j < total; j++, pairs++) {
                sweep_operand(b, v, j);
                check_binary(a, b);
            }
        }
    } else if (N <= 4) {
        for (i = 0; i < total; i++) {
            sweep_operand(a, v, i);
            check_unary(a);
            for (j = 0; j < SWEEP_VALUES; j++, pairs++) {
                unsigned long diag = 0;
                for (k = 0; k < N; k++)
                    diag = diag * SWEEP_VALUES + j; /* all limbs = value j */
                sweep_operand(b, v, diag);
                check_binary(a, b);
                check_binary(b, a);
            }
        }
    } else {
        for (i = 0; i < count; i++, pairs++) {
            mpz_t z;
            mpz_init(z);
            for (k = 0; k < N; k++) {
                a[k] = v[k][rnd() % SWEEP_VALUES];
                b[k] = v[k][rnd() % SWEEP_VALUES];
            }
            to_mpz(z, a, N), mpz_mod(z, z, P), from_mpz(a, N, z);
            to_mpz(z, b, N), mpz_mod(z, z, P), from_mpz(b, N, z);
            mpz_clear(z);
            check_unary(a);
            check_binary(a, b);
        }
    }
    return pairs;
}

/* ------------------------------------------------------------------ */
#if C(HAVE_FP2)
/* Fp2 = Fp[u]/(u^2 - nr) against GMP in the plain domain. */
#define E2 CAT(FE, _fp2)
#define F2(op) CAT(CAT(E2, _), op)
static mpz_t NR;

static void fp2_plain(mpz_t x0, mpz_t x1, const E2 *a)
{
    plain(x0, a->c0.limb);
    plain(x1, a->c1.limb);
}

/* compare r with the plain pair (w0, w1) */
static void fp2_expect(const char *op, const E2 *r, mpz_t w0, mpz_t w1, const E2 *a, const E2 *b)
{
    mpz_t g0, g1;
    mpz_inits(g0, g1, NULL);
    mpz_mod(w0, w0, P);
    mpz_mod(w1, w1, P);
    fp2_plain(g0, g1, r);
    checks++;
    if (mpz_cmp(g0, w0) || mpz_cmp(g1, w1)) {
        fail("fp2 %s", op);
        if (failures <= 20) {
            if (a) show("a.c0", a->c0.limb, N), show("a.c1", a->c1.limb, N);
            if (b) show("b.c0", b->c0.limb, N), show("b.c1", b->c1.limb, N);
            gmp_fprintf(stderr, "  got  %Zx + %Zx u\n  want %Zx + %Zx u\n", g0, g1, w0, w1);
        }
    }
    mpz_clears(g0, g1, NULL);
}

static void fp2_random(E2 *a, unsigned long i)
{
    random_element(a->c0.limb);
    random_element(a->c1.limb);
    if (i % 4 == 0) {
        /* the lazy bounds at their extremes: halves whose internal limbs are p - 1
         * (the largest canonical value) or 0, in all four combinations */
        mpz_t z;
        mpz_init(z);
        mpz_sub_ui(z, P, 1);
        from_mpz(a->c0.limb, N, z);
        from_mpz(a->c1.limb, N, z);
        if (i % 16 == 4)
            memset(a->c0.limb, 0, sizeof a->c0.limb);
        else if (i % 16 == 8)
            memset(a->c1.limb, 0, sizeof a->c1.limb);
        else if (i % 16 == 12)
            random_element(a->c0.limb);
        mpz_clear(z);
    } else if (i % 4 == 1) {
        /* radix-2^52 digit patterns (the digits of the IFMA kernels): each 52-bit
         * digit all ones, zero, one or random, the value then reduced mod p */
        mpz_t z;
        int half, d;
        mpz_init(z);
        for (half = 0; half < 2; half++) {
            mpz_set_ui(z, 0);
            for (d = (64 * N + 51) / 52 - 1; d >= 0; d--) {
                uint64_t r = rnd(), v = r & 3 ? (r & 3) == 1 ? (UINT64_C(1) << 52) - 1 : (r & 3) - 2 : (r >> 12);
                mpz_mul_2exp(z, z, 52);
                mpz_add_ui(z, z, (unsigned long)v);
            }
            mpz_mod(z, z, P);
            from_mpz(half ? a->c1.limb : a->c0.limb, N, z);
        }
        mpz_clear(z);
    }
}

static void check_fp2(unsigned long count)
{
    unsigned long i;
    mpz_t a0, a1, b0, b1, w0, w1, t;
    mpz_inits(a0, a1, b0, b1, w0, w1, t, NULL);
    for (i = 0; i < count; i++) {
        E2 a, b, r, s;
        uint8_t bytes[C(FP2_BYTES)];
        fp2_random(&a, i);
        fp2_random(&b, i / 2);
        fp2_plain(a0, a1, &a);
        fp2_plain(b0, b1, &b);

        /* mul: (a0 b0 + nr a1 b1) + (a0 b1 + a1 b0) u */
        mpz_mul(w0, a1, b1), mpz_mul(w0, w0, NR), mpz_addmul(w0, a0, b0);
        mpz_mul(w1, a0, b1), mpz_addmul(w1, a1, b0);
        F2(mul)(&r, &a, &b);
        fp2_expect("mul", &r, w0, w1, &a, &b);
        s = a, F2(mul)(&s, &s, &b);
        fp2_expect("mul r==a", &s, w0, w1, &a, &b);
        s = b, F2(mul)(&s, &a, &s);
        fp2_expect("mul r==b", &s, w0, w1, &a, &b);

        /* sqr */
        mpz_mul(w0, a1, a1), mpz_mul(w0, w0, NR), mpz_addmul(w0, a0, a0);
        mpz_mul(w1, a0, a1), mpz_mul_ui(w1, w1, 2);
        F2(sqr)(&r, &a);
        fp2_expect("sqr", &r, w0, w1, &a, NULL);
        s = a, F2(sqr)(&s, &s);
        fp2_expect("sqr r==a", &s, w0, w1, &a, NULL);
        F2(mul)(&s, &a, &a);
        fp2_expect("mul a==a", &s, w0, w1, &a, NULL);

        mpz_add(w0, a0, b0), mpz_add(w1, a1, b1);
        F2(add)(&r, &a, &b);
        fp2_expect("add", &r, w0, w1, &a, &b);
        mpz_sub(w0, a0, b0), mpz_sub(w1, a1, b1);
        F2(sub)(&r, &a, &b);
        fp2_expect("sub", &r, w0, w1, &a, &b);
        mpz_neg(w0, a0), mpz_neg(w1, a1);
        F2(neg)(&r, &a);
        fp2_expect("neg", &r, w0, w1, &a, NULL);
        mpz_set(w0, a0), mpz_neg(w1, a1);
        F2(conj)(&r, &a);
        fp2_expect("conj", &r, w0, w1, &a, NULL);
        mpz_mul(w0, a0, b0), mpz_mul(w1, a1, b0);
        F2(mul_fp)(&r, &a, &b.c0);
        fp2_expect("mul_fp", &r, w0, w1, &a, &b);
        s = a, F2(mul_fp)(&s, &s, &s.c0);
        mpz_mul(w0, a0, a0), mpz_mul(w1, a1, a0);
        fp2_expect("mul_fp aliased", &s, w0, w1, &a, NULL);
        {
            uint32_t c = (uint32_t)(i * 2654435761u) ^ (uint32_t)b.c0.limb[0];
            mpz_mul_ui(w0, a0, c), mpz_mul_ui(w1, a1, c);
            F2(mul_small)(&r, &a, c);
            fp2_expect("mul_small", &r, w0, w1, &a, NULL);
            s = a, F2(mul_small)(&s, &s, c);
            fp2_expect("mul_small aliased", &s, w0, w1, &a, NULL);
        }

        expect_int("fp2 eq", F2(eq)(&a, &b), !mpz_cmp(a0, b0) && !mpz_cmp(a1, b1));
        expect_int("fp2 eq self", F2(eq)(&a, &a), 1);
        expect_int("fp2 is_zero", F2(is_zero)(&a), !mpz_sgn(a0) && !mpz_sgn(a1));
        s = a, F2(cmov)(&s, &b, 1);
        expect_int("fp2 cmov 1", F2(eq)(&s, &b), 1);
        F2(cmov)(&s, &a, 0);
        expect_int("fp2 cmov 0", F2(eq)(&s, &b), 1);
        r = a, s = b, F2(cswap)(&r, &s, 1);
        expect_int("fp2 cswap", F2(eq)(&r, &b) & F2(eq)(&s, &a), 1);
        F2(to_bytes)(bytes, &a);
        expect_int("fp2 from_bytes(to_bytes) ok", F2(from_bytes)(&r, bytes), 1);
        expect_int("fp2 from_bytes(to_bytes)", F2(eq)(&r, &a), 1);
        encode(bytes + (i & 1 ? C(BYTES) : 0), P); /* one half = p: rejected whole */
        F2(one)(&r);
        expect_int("fp2 from_bytes rejects a half >= p", F2(from_bytes)(&r, bytes), 0);
        expect_int("fp2 from_bytes rejection zeroes", F2(is_zero)(&r), 1);

        if (i % 25 == 0) { /* inv and sqrt: exponentiations */
            int ok, sq;
            E2 x;
            ok = F2(inv)(&r, &a);
            expect_int("fp2 inv flag", ok, !F2(is_zero)(&a));
            if (ok) {
                F2(mul)(&s, &r, &a);
                F2(one)(&x);
                expect_int("fp2 a * inv(a) == 1", F2(eq)(&s, &x), 1);
            } else {
                expect_int("fp2 inv(0) == 0", F2(is_zero)(&r), 1);
            }
            /* a is a square in Fp2 iff its norm a0^2 - nr a1^2 is a square in Fp */
            mpz_mul(t, a1, a1), mpz_mul(t, t, NR), mpz_neg(t, t), mpz_addmul(t, a0, a0), mpz_mod(t, t, P);
            sq = mpz_sgn(t) == 0 || mpz_legendre(t, P) == 1;
            ok = F2(sqrt)(&r, &a);
            expect_int("fp2 sqrt flag vs norm's Legendre symbol", ok, sq);
            expect_int("fp2 is_square vs norm's Legendre symbol", F2(is_square)(&a), sq);
            if (ok) {
                F2(sqr)(&s, &r);
                expect_int("fp2 sqrt(a)^2 == a", F2(eq)(&s, &a), 1);
            } else {
                expect_int("fp2 sqrt non-square -> 0", F2(is_zero)(&r), 1);
            }
            F2(sqr)(&x, &a); /* squares: always found */
            ok = F2(sqrt)(&r, &x);
            expect_int("fp2 sqrt of a square", ok, 1);
            expect_int("fp2 is_square of a square", F2(is_square)(&x), 1);
            F2(sqr)(&s, &r);
            expect_int("fp2 sqrt(a^2)^2", F2(eq)(&s, &x), 1);
            x.c1 = x.c0, F2(zero)(&s), x.c1 = s.c1; /* a base-field element */
            ok = F2(sqrt)(&r, &x);
            expect_int("fp2 sqrt of an Fp element (always a square in Fp2)", ok, 1);
            F2(sqr)(&s, &r);
            expect_int("fp2 sqrt(Fp element)^2", F2(eq)(&s, &x), 1);
            if (i == 0) { /* the root with x0 = 0: u^2 = nr, a non-square of Fp, and 0 */
                F2(zero)(&x), F(one)(&x.c1), F2(sqr)(&x, &x);
                expect_int("fp2 sqrt(u^2) found", F2(sqrt)(&r, &x), 1);
                expect_int("fp2 sqrt(u^2) = +-u: no c0", F(is_zero)(&r.c0), 1);
                F2(sqr)(&s, &r);
                expect_int("fp2 sqrt(u^2)^2", F2(eq)(&s, &x), 1);
                F2(zero)(&x);
                expect_int("fp2 sqrt(0) found", F2(sqrt)(&r, &x), 1);
                expect_int("fp2 sqrt(0) = 0", F2(is_zero)(&r), 1);
            }
        }
    }
    mpz_clears(a0, a1, b0, b1, w0, w1, t, NULL);
}

/* fp2 inv_batch against GMP's inverse (a0 - a1 u) / (a0^2 - nr a1^2), with
 * zeros (any position, all of them), n from 1 to 17, and out == in; fp2
 * select as the base field's check_select, with an entry whose words are all
 * ones in both halves. */
static void check_fp2_batch_select(unsigned long rounds)
{
    static const size_t sizes[] = {1, 2, 3, 8, 17};
    enum { T = 17 };
    E2 in[T], out[T], scratch[T], table[T], copy[T], r;
    mpz_t a0, a1, nrm, w0, w1;
    unsigned long k;
    size_t i, s, n, idx;
    mpz_inits(a0, a1, nrm, w0, w1, NULL);
    for (k = 0; k < rounds; k++) {
        for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            n = sizes[s];
            for (i = 0; i < n; i++) {
                fp2_random(&in[i], rnd());
                if (rnd() % 4 == 0 || k == 1)   /* round 1: every entry zero */
                    F2(zero)(&in[i]);
            }
            F2(inv_batch)(out, in, n, scratch);
            for (i = 0; i < n; i++) {
                fp2_plain(a0, a1, &in[i]);
                mpz_mul(nrm, a1, a1), mpz_mul(nrm, nrm, NR), mpz_neg(nrm, nrm), mpz_addmul(nrm, a0, a0), mpz_mod(nrm, nrm, P);
                if (mpz_sgn(nrm))
                    mpz_invert(nrm, nrm, P);      /* zero stays zero */
                mpz_mul(w0, a0, nrm);
                mpz_mul(w1, a1, nrm), mpz_neg(w1, w1);
                fp2_expect("inv_batch", &out[i], w0, w1, &in[i], NULL);
            }
            F2(inv_batch)(in, in, n, scratch); /* in place */
            for (i = 0; i < n; i++)
                expect_int("fp2 inv_batch out == in", F2(eq)(&in[i], &out[i]), 1);
        }
    }
    for (i = 0; i < T; i++) {
        fp2_random(&table[i], rnd());
        if (i == 3) {
            most_bits(table[i].c0.limb);   /* (nearly) every bit set: the masks show */
            most_bits(table[i].c1.limb);
        }
    }
    for (n = 0; n <= T; n += (n < 2 ? 1 : 5)) {
        for (idx = 0; idx < n + 3; idx++) {
            size_t id = idx < n + 2 ? idx : ~(size_t)0 - 1;
            F2(one)(&r);
            F2(select)(&r, table, n, id);
            checks++;
            if (id < n ? memcmp(&r, &table[id], sizeof r) != 0 : !F2(is_zero)(&r))
                fail("fp2 select n=%zu idx=%zu (table[idx], or 0 for idx >= n)", n, id);
        }
    }
    memcpy(copy, table, sizeof table);
    for (i = 0; i < T; i += 4) {   /* r aliasing an entry */
        memcpy(table, copy, sizeof table);
        F2(select)(&table[i], table, T, T - 1 - i);
        checks++;
        if (memcmp(&table[i], &copy[T - 1 - i], sizeof table[i]) != 0)
            fail("fp2 select with r == &table[%zu]", i);
    }
    mpz_clears(a0, a1, nrm, w0, w1, NULL);
}
#endif

/* ------------------------------------------------------------------ */
int main(int argc, char **argv)
{
    const char *suite = "diff", *kat = NULL, *level_name = NULL, *tune_name = NULL;
    unsigned long count = 100000, i;
    int level, rc = 0;
    rng_state = UINT64_C(0x5eed);
    for (i = 1; i < (unsigned long)argc; i++) {
        if (!strcmp(argv[i], "--level") && i + 1 < (unsigned long)argc) level_name = argv[++i];
        else if (!strcmp(argv[i], "--suite") && i + 1 < (unsigned long)argc) suite = argv[++i];
        else if (!strcmp(argv[i], "--tune") && i + 1 < (unsigned long)argc) tune_name = argv[++i];
        else if (!strcmp(argv[i], "--kat") && i + 1 < (unsigned long)argc) kat = argv[++i];
        else if (!strcmp(argv[i], "--count") && i + 1 < (unsigned long)argc) count = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seed") && i + 1 < (unsigned long)argc) rng_state = strtoull(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: %s --level c|x86_64|bmi2|adx|ifma [--suite diff|kat|sweep|sweep-full|fp2] [--tune generic|zen|zen4] [--kat FILE] [--count N] [--seed S]\n", argv[0]);
            return 2;
        }
    }
    if (level_name == NULL) {
        fprintf(stderr, "--level is required\n");
        return 2;
    }
    level = fg_isa_parse(level_name);
    if (level < 0) {
        fprintf(stderr, "unknown level '%s'\n", level_name);
        return 2;
    }
    if (level > FG_ISA_C && !C(HAVE_ASM) && !C(HAVE_AARCH64_ASM)) {
        printf("%s: level %s skipped: no assembly for this field in this build\n", field_name, level_name);
        return 77;
    }
#if defined(FG_STATIC_ISA) && FG_STATIC_ISA == 4
    /* A build fixed at ifma at compile time runs the adx kernels for every Fp
     * op: the adx suites run there (the Fp2 suite has its own ifma test). */
    if (level == FG_ISA_ADX && strcmp(suite, "fp2") != 0) {
        printf("%s: level adx runs as ifma (compile-time dispatch; its Fp ops are adx's kernels)\n", field_name);
        level = FG_ISA_IFMA;
    }
#endif
    if (!fg_isa_force((fg_isa)level)) {
        printf("%s: level %s skipped: not available (CPU best %s%s)\n", field_name, level_name,
               fg_isa_name(fg_isa_best()),
#if defined(FG_STATIC_ISA)
               ", compile-time dispatch"
#else
               ""
#endif
        );
        return 77;
    }
    if (tune_name != NULL) { /* the dispatchers' choice for another core family */
        int tune = fg_tune_parse(tune_name);
        if (tune < 0) {
            fprintf(stderr, "unknown tuning '%s'\n", tune_name);
            return 2;
        }
        if (!fg_tune_force((fg_tune)tune)) {
            printf("%s: tuning %s skipped: compile-time dispatch fixed at %s\n", field_name, tune_name,
                   fg_tune_name(fg_tune_active()));
            return 77;
        }
    }
    if (fg_isa_active() != (fg_isa)level) {
        fprintf(stderr, "fg_isa_force(%s) succeeded but fg_isa_active() is %s\n", level_name,
                fg_isa_name(fg_isa_active()));
        return 1;
    }

    K = level_kernels[level > FG_ISA_ADX ? FG_ISA_ADX : level]; /* ifma: the adx kernels, plus its Fp2 kernels (and its Fp mul and sqr, below) */
#if C(HAVE_ASM)
    if (tune_name != NULL && fg_tune_active() != FG_TUNE_GENERIC && level >= FG_ISA_ADX)
        K = zen_kernels;
#endif
#if C(HAVE_LAZY)
    KL = lazy_level_kernels[level > FG_ISA_ADX ? FG_ISA_ADX : level];
#if C(HAVE_ASM)
    if (tune_name != NULL && fg_tune_active() != FG_TUNE_GENERIC && level >= FG_ISA_ADX)
        KL = lazy_zen_kernels;
#endif
#endif
#if C(MUL_HAVE_IFMA)
    if (level == FG_ISA_IFMA && fg_tune_active() != FG_TUNE_GENERIC)
        K.mul = F(mul_ifma); /* the ifma level's Fp mul under the zen tuning */
#endif
#if C(SQR_HAVE_IFMA)
    if (level == FG_ISA_IFMA && fg_tune_active() != FG_TUNE_GENERIC)
        K.sqr = F(sqr_ifma); /* and its squaring entry (b = a) */
#endif
    mpz_inits(P, RINV, RMOD, WIDE_MAX, NULL);
    fgt_model(P, RINV, RMOD, WIDE_MAX);

    if (!strcmp(suite, "kat")) {
        if (!kat) {
            fprintf(stderr, "--suite kat needs --kat FILE\n");
            return 2;
        }
        rc = run_kat(kat);
    } else if (!strcmp(suite, "diff")) {
        uint64_t a[N], b[N];
        unsigned long slow = count / 50 ? count / 50 : 1;
        check_constants();
#if C(HAVE_LAZY) && !C(MONTGOMERY)
        check_lazy_edges();
#endif
        for (i = 0; i < count; i++) {
            random_element(a);
            random_element(b);
            check_binary(a, b);
            check_unary(a);
#if C(HAVE_LAZY)
            check_lazy(a, b);
#endif
            if (i % 10 == 0)
                check_is_square(b);
        }
        for (i = 0; i < slow; i++) {
            random_element(a);
            check_inv_sqrt(a);
            /* squares exercise the root-found path */
            { FE x, y; memcpy(x.limb, a, sizeof a); F(sqr)(&y, &x); check_inv_sqrt(y.limb); }
        }
        check_redc_sums(count / 100 ? count / 100 : 1);
        check_inv_batch(slow / 20 ? slow / 20 : 1);
#if C(HAVE_SQRT_RATIO)
        check_sqrt_ratio(slow / 4 > 16 ? slow / 4 : 16);
#endif
        check_from_bytes_wide(slow / 20 > 8 ? slow / 20 : 8);
        check_select();
    } else if (!strcmp(suite, "fp2")) {
#if C(HAVE_FP2)
        mpz_init_set_si(NR, C(FP2_NON_RESIDUE));
        check_fp2(count);
        check_fp2_batch_select(count / 2000 > 2 ? count / 2000 : 2);
#else
        printf("%s: no Fp2 configured\n", field_name);
        return 77;
#endif
    } else if (!strcmp(suite, "sweep") || !strcmp(suite, "sweep-full")) {
        unsigned long pairs = run_sweep(count, !strcmp(suite, "sweep-full"));
        printf("%s %s sweep: %lu operand pairs\n", field_name, level_name, pairs);
    } else {
        fprintf(stderr, "unknown suite '%s'\n", suite);
        return 2;
    }
    if (rc)
        return rc;
    printf("%s %s %s: %lu checks, %lu failures\n", field_name, level_name, suite, checks, failures);
    if (checks == 0) {
        fprintf(stderr, "no checks ran\n");
        return 1;
    }
    return failures ? 1 : 0;
}
