/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen-bench: peers.
 *
 * Which peer applies is decided from the modulus alone:
 *   p == P-256         -> OpenSSL ecp_nistz256_mul_mont / _sqr_mont (Montgomery, R = 2^256)
 *   p == 2^255 - 19    -> OpenSSL x25519_fe64_mul/_sqr (if x25519_fe64_eligible()),
 *                         x25519_fe51_mul/_sqr (5x51 limbs, plain form), and their
 *                         _mul121666 against mul_small (the bench's constant is 121666)
 *   every field        -> OpenSSL bn_mul_mont (generic Montgomery, R = 2^(64n)),
 *                         GMP mpn_mul_n / mpn_sqr + mpn_redc_1 (+ mpn_cnd_sub_n on carry),
 *                         GMP mpn_mul_n / mpn_sqr alone against mul_wide / sqr_wide,
 *                         GMP mpn_redc_1 against redc.
 * Peers run on the field's own internal limbs (the same inputs as our rows). Before
 * timing, each peer is checked against our result on the field's random inputs plus
 * edge values (0, 1, p-1). Montgomery-style peers compute a*b/R; when the field is not
 * in Montgomery form the expectation is ours times R^-1, and plain peers (x25519) on a
 * Montgomery field expect ours times R. Peers whose outputs may be only partially
 * reduced (x25519_fe64, GMP redc_1 without a final comparison) are compared mod p.
 * Latency loops ping-pong between two buffers (no aliasing assumptions on the peer).
 * On AArch64 OpenSSL's armv8 assembly has ecp_nistz256_mul_mont/_sqr_mont and
 * bn_mul_mont but no x25519_fe64/fe51 code and no capability bits to mask (one path,
 * FGB_OSSL_X86 0): those rows and the masking exist on x86-64 alone.
 */
#define _GNU_SOURCE
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgb_peers.h"

#if defined(FGB_HAVE_OPENSSL) && defined(__x86_64__)
#define FGB_OSSL_X86 1
#else
#define FGB_OSSL_X86 0
#endif
#ifdef FGB_HAVE_OPENSSL
#include <openssl/crypto.h>
void OPENSSL_cpuid_setup(void);
void ecp_nistz256_mul_mont(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void ecp_nistz256_sqr_mont(uint64_t r[4], const uint64_t a[4]);
int bn_mul_mont(uint64_t *rp, const uint64_t *ap, const uint64_t *bp, const uint64_t *np,
                const uint64_t *n0, int num);
#endif
#if FGB_OSSL_X86
extern unsigned int OPENSSL_ia32cap_P[4];
int x25519_fe64_eligible(void);
void x25519_fe64_mul(uint64_t h[4], const uint64_t f[4], const uint64_t g[4]);
void x25519_fe64_sqr(uint64_t h[4], const uint64_t f[4]);
void x25519_fe51_mul(uint64_t h[5], const uint64_t f[5], const uint64_t g[5]);
void x25519_fe51_sqr(uint64_t h[5], const uint64_t f[5]);
void x25519_fe64_mul121666(uint64_t h[4], const uint64_t f[4]);
void x25519_fe51_mul121666(uint64_t h[5], const uint64_t f[5]);
#endif
#ifdef FGB_HAVE_GMP
#include <gmp.h>
/* Exported by libgmp but declared only in gmp-impl.h. */
mp_limb_t __gmpn_redc_1(mp_ptr rp, mp_ptr up, mp_srcptr mp, mp_size_t n, mp_limb_t invm);
#endif

#define W FGB_WAYS
#define M FGB_MAXLIMBS
#define BMI2_ADX 0x80100u

int fgb_peers_have_openssl(void)
{
#ifdef FGB_HAVE_OPENSSL
    return 1;
#else
    return 0;
#endif
}
int fgb_peers_have_gmp(void)
{
#ifdef FGB_HAVE_GMP
    return 1;
#else
    return 0;
#endif
}

#if FGB_OSSL_X86
static unsigned ossl_cap2; /* word 2 as fgb_peers_init found it */
#endif

void fgb_peers_init(void)
{
#ifdef FGB_HAVE_OPENSSL
    OPENSSL_cpuid_setup(); /* reads OPENSSL_ia32cap (OPENSSL_armcap) from the environment */
#endif
#if FGB_OSSL_X86
    ossl_cap2 = OPENSSL_ia32cap_P[2];
#endif
}

void fgb_peers_mask(int on)
{
#if FGB_OSSL_X86
    OPENSSL_ia32cap_P[2] = on ? ossl_cap2 & ~BMI2_ADX : ossl_cap2;
#else
    (void)on;
#endif
}

int fgb_peers_openssl_adx(void)
{
#if FGB_OSSL_X86
    return (OPENSSL_ia32cap_P[2] & BMI2_ADX) == BMI2_ADX;
#else
    return 0;
#endif
}

static int cpu_adx(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (b & BMI2_ADX) == BMI2_ADX;
#else
    return 0;
#endif
}

int fgb_peers_openssl_cap(char *buf, size_t len)
{
#if FGB_OSSL_X86
    /* OpenSSL reads "W:X" (no '~') as the value of words 0-1 and 2-3. AVX-512
     * (word 2: F, DQ, IFMA, CD, BW, VL) cleared: none of the peers uses it, and
     * Valgrind cannot run it. */
    unsigned w2 = OPENSSL_ia32cap_P[2] & ~0xD0230000u;
    snprintf(buf, len, "0x%llx:0x%llx",
             (unsigned long long)OPENSSL_ia32cap_P[0] | (unsigned long long)OPENSSL_ia32cap_P[1] << 32,
             (unsigned long long)w2 | (unsigned long long)OPENSSL_ia32cap_P[3] << 32);
    return 1;
#else
    (void)buf, (void)len;
    return 0;
#endif
}

const char *fgb_peers_openssl_version(void)
{
#ifdef FGB_HAVE_OPENSSL
    return OpenSSL_version(OPENSSL_VERSION);
#else
    return "not built (libcrypto.a missing)";
#endif
}
const char *fgb_peers_gmp_version(void)
{
#ifdef FGB_HAVE_GMP
    return gmp_version;
#else
    return "not built (GMP missing)";
#endif
}

/* ---- small multi-precision helpers (untimed checks only) ---- */
static int mp_cmp(const uint64_t *a, const uint64_t *b, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}
static uint64_t mp_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, int n)
{
    unsigned __int128 bw = 0;
    for (int i = 0; i < n; i++) {
        unsigned __int128 d = (unsigned __int128)a[i] - b[i] - (uint64_t)bw;
        r[i] = (uint64_t)d;
        bw = (d >> 64) ? 1 : 0;
    }
    return (uint64_t)bw;
}
/* x (n+1 limbs) mod p (n limbs), by repeated subtraction; 0 if x was too large. */
static int mp_reduce(uint64_t *x, const uint64_t *p, int n)
{
    uint64_t pp[M + 1];
    memcpy(pp, p, 8 * (size_t)n);
    pp[n] = 0;
    for (int k = 0; k < 64; k++) {
        if (mp_cmp(x, pp, n + 1) < 0)
            return 1;
        mp_sub(x, x, pp, n + 1);
    }
    return 0;
}
/* r = 2^bits mod p, as an integer (n limbs). */
static void mp_pow2_mod(uint64_t *r, int bits, const uint64_t *p, int n)
{
    uint64_t x[M + 1] = {1};
    for (int i = 0; i < bits; i++) {
        uint64_t c = 0;
        for (int j = 0; j <= n; j++) {
            uint64_t v = x[j];
            x[j] = (v << 1) | c;
            c = v >> 63;
        }
        mp_reduce(x, p, n);
    }
    memcpy(r, x, 8 * (size_t)n);
}

/* 4x64 <-> 5x51 for 2^255-19 (x25519_fe51). */
static void to51(uint64_t o[5], const uint64_t a[4])
{
    const uint64_t m = (1ULL << 51) - 1;
    o[0] = a[0] & m;
    o[1] = ((a[0] >> 51) | (a[1] << 13)) & m;
    o[2] = ((a[1] >> 38) | (a[2] << 26)) & m;
    o[3] = ((a[2] >> 25) | (a[3] << 39)) & m;
    o[4] = a[3] >> 12;
}
static void from51(uint64_t o[5], const uint64_t l[5]) /* 5 limbs out: value may exceed 2^256 */
{
    memset(o, 0, 5 * 8);
    for (int i = 0; i < 5; i++) {
        int pos = 51 * i, w = pos / 64, s = pos % 64;
        unsigned __int128 v = (unsigned __int128)l[i] << s;
        for (int k = w; k < 5 && v; k++) {
            unsigned __int128 t = (unsigned __int128)o[k] + (uint64_t)v;
            o[k] = (uint64_t)t;
            v = (v >> 64) + (t >> 64);
        }
    }
}

/* ---- peer state and loops ---- */
enum kind { K_NISTZ, K_FE64, K_FE51, K_BNMONT, K_GMP };

struct pstate {
    int n, kind;
    uint64_t p[M], n0;
    uint64_t x0[2 * M], x1[2 * M], b[M];      /* latency ping-pong */
    uint64_t a[W][M], bb[W][M], t[W][2 * M], r[W][2 * M];
    uint64_t h[M];                             /* redc chain: fixed high half (< p) */
    uint64_t u[2 * M];
};

#define BARRIER() __asm__ __volatile__("" ::: "memory")
#define PLOOPS(name, lat2, thr1)                                          \
    static void lat_##name(void *vs, size_t iters)                        \
    {                                                                     \
        struct pstate *s = vs;                                            \
        (void)s;                                                          \
        for (size_t i = 0; i < iters; i++) {                              \
            { uint64_t *in = s->x0, *out = s->x1; lat2; }                 \
            { uint64_t *in = s->x1, *out = s->x0; lat2; }                 \
            BARRIER();                                                    \
        }                                                                 \
    }                                                                     \
    static void thr_##name(void *vs, size_t iters)                        \
    {                                                                     \
        struct pstate *s = vs;                                            \
        for (size_t i = 0; i < iters; i++) {                              \
            for (int j = 0; j < W; j++) { thr1; }                         \
            BARRIER();                                                    \
        }                                                                 \
    }

#ifdef FGB_HAVE_OPENSSL
PLOOPS(nistz_mul, ecp_nistz256_mul_mont(out, in, s->b), ecp_nistz256_mul_mont(s->r[j], s->a[j], s->bb[j]))
PLOOPS(nistz_sqr, ecp_nistz256_sqr_mont(out, in), ecp_nistz256_sqr_mont(s->r[j], s->a[j]))
#endif
#if FGB_OSSL_X86
PLOOPS(fe64_mul, x25519_fe64_mul(out, in, s->b), x25519_fe64_mul(s->r[j], s->a[j], s->bb[j]))
PLOOPS(fe64_sqr, x25519_fe64_sqr(out, in), x25519_fe64_sqr(s->r[j], s->a[j]))
PLOOPS(fe51_mul, x25519_fe51_mul(out, in, s->b), x25519_fe51_mul(s->r[j], s->a[j], s->bb[j]))
PLOOPS(fe51_sqr, x25519_fe51_sqr(out, in), x25519_fe51_sqr(s->r[j], s->a[j]))
/* mul_small's peers: the ladder's multiplication by (A + 2) / 4 = 121666 (FGB_SMALL) */
PLOOPS(fe64_m121666, x25519_fe64_mul121666(out, in), x25519_fe64_mul121666(s->r[j], s->a[j]))
PLOOPS(fe51_m121666, x25519_fe51_mul121666(out, in), x25519_fe51_mul121666(s->r[j], s->a[j]))
#endif
#ifdef FGB_HAVE_OPENSSL
PLOOPS(bn_mul, bn_mul_mont(out, in, s->b, s->p, &s->n0, s->n),
       bn_mul_mont(s->r[j], s->a[j], s->bb[j], s->p, &s->n0, s->n))
PLOOPS(bn_sqr, bn_mul_mont(out, in, in, s->p, &s->n0, s->n),
       bn_mul_mont(s->r[j], s->a[j], s->a[j], s->p, &s->n0, s->n))
#endif
#ifdef FGB_HAVE_GMP
/* Montgomery multiplication the GMP way: full product, REDC, one conditional
 * subtraction on carry (result in [0, 2^(64n)), possibly >= p). */
static inline void gmp_redc(const struct pstate *s, uint64_t *dst, uint64_t *t)
{
    mp_limb_t cy = __gmpn_redc_1(dst, t, s->p, s->n, s->n0);
    mpn_cnd_sub_n(cy, dst, dst, s->p, s->n);
}
#define GMP_REDC(dst, t) gmp_redc(s, (dst), (t))
PLOOPS(gmp_mul, (mpn_mul_n(s->u, in, s->b, s->n), GMP_REDC(out, s->u)),
       (mpn_mul_n(s->t[j], s->a[j], s->bb[j], s->n), GMP_REDC(s->r[j], s->t[j])))
PLOOPS(gmp_sqr, (mpn_sqr(s->u, in, s->n), GMP_REDC(out, s->u)),
       (mpn_sqr(s->t[j], s->a[j], s->n), GMP_REDC(s->r[j], s->t[j])))
/* wide products: the low half of one product feeds the next */
PLOOPS(gmp_mul_wide, mpn_mul_n(out, in, s->b, s->n), mpn_mul_n(s->r[j], s->a[j], s->bb[j], s->n))
PLOOPS(gmp_sqr_wide, mpn_sqr(out, in, s->n), mpn_sqr(s->r[j], s->a[j], s->n))
/* redc_1 destroys its input: the timed loop copies t first (2n limbs) */
PLOOPS(gmp_redc,
       (memcpy(s->u, in, 8 * (size_t)s->n), memcpy(s->u + s->n, s->h, 8 * (size_t)s->n),
        GMP_REDC(out, s->u)),
       (memcpy(s->u, s->t[j], 16 * (size_t)s->n), GMP_REDC(s->r[j], s->u)))
#endif

/* Runs the peer once on (a, b) (or t for redc) into out; n+1 limbs of out are valid. */
static void run_once(const struct pstate *s0, int op, const uint64_t *a, const uint64_t *b,
                     const uint64_t *t, uint64_t *out)
{
    struct pstate *s = malloc(sizeof *s);
    memcpy(s, s0, sizeof *s);
    memset(out, 0, 8 * (2 * M + 1));
    memset(s->x0, 0, sizeof s->x0);
    int n = s->n;
    if (s->kind == K_FE51) {
        to51(s->x0, a);
        to51(s->b, b);
    } else {
        memcpy(s->x0, a, 8 * (size_t)n);
        memcpy(s->b, b, 8 * (size_t)n);
    }
    if (op == FGB_REDC) {
        memcpy(s->x0, t, 8 * (size_t)n);
        memcpy(s->h, t + n, 8 * (size_t)n);
    }
    void (*fn)(void *, size_t) = NULL;
    switch (s->kind) {
#ifdef FGB_HAVE_OPENSSL
    case K_NISTZ: fn = op == FGB_MUL ? lat_nistz_mul : lat_nistz_sqr; break;
    case K_BNMONT: fn = op == FGB_MUL ? lat_bn_mul : lat_bn_sqr; break;
#endif
#if FGB_OSSL_X86
    case K_FE64: fn = op == FGB_MUL ? lat_fe64_mul : op == FGB_SQR ? lat_fe64_sqr : lat_fe64_m121666; break;
    case K_FE51: fn = op == FGB_MUL ? lat_fe51_mul : op == FGB_SQR ? lat_fe51_sqr : lat_fe51_m121666; break;
#endif
#ifdef FGB_HAVE_GMP
    case K_GMP:
        fn = op == FGB_MUL ? lat_gmp_mul : op == FGB_SQR ? lat_gmp_sqr
           : op == FGB_MUL_WIDE ? lat_gmp_mul_wide : op == FGB_SQR_WIDE ? lat_gmp_sqr_wide
           : lat_gmp_redc;
        break;
#endif
    default: break;
    }
    /* One iteration of a latency loop is two calls: x1 = f(x0), x0 = f(x1). The first
     * call's result is the one we want; run the loop body's first half by hand through
     * iters = 1 and read x1. */
    if (fn)
        fn(s, 1);
    if (s->kind == K_FE51)
        from51(out, s->x1);
    else
        memcpy(out, s->x1, 8 * (size_t)((op == FGB_MUL_WIDE || op == FGB_SQR_WIDE) ? 2 * n : n));
    free(s);
}

struct ctx {
    const struct fgb_field *f;
    uint64_t rinv[M]; /* R^-1 mod p as an internal value (plain fields only) */
    uint64_t r2[M];   /* R^2 mod p as an integer (Montgomery fields) */
};

static void limbs_hex(char *buf, size_t len, const uint64_t *x, int n)
{
    size_t o = 0;
    o += (size_t)snprintf(buf + o, len - o, "0x");
    for (int i = n - 1; i >= 0 && o < len; i--)
        o += (size_t)snprintf(buf + o, len - o, "%016llx", (unsigned long long)x[i]);
}

/* Check a peer against our results on the field's inputs plus edge values. */
static int check_row(const struct ctx *c, const struct pstate *s, void *fstate,
                     struct fgb_peer_row *row, int plain_peer, int mod_p)
{
    const struct fgb_field *f = c->f;
    int n = f->limbs, op = row->op;
    const uint64_t *A, *B;
    f->inputs(fstate, &A, &B);
    uint64_t in_a[W + 3][M] = {{0}}, in_b[W + 3][M] = {{0}};
    int k = 0;
    for (int j = 0; j < W; j++, k++) {
        memcpy(in_a[k], A + j * n, 8 * (size_t)n);
        memcpy(in_b[k], B + j * n, 8 * (size_t)n);
    }
    /* edges: 0, 1 and p-1 as internal values (all canonical) */
    memcpy(in_b[k], B, 8 * (size_t)n), k++;
    in_a[k][0] = 1, memcpy(in_b[k], B, 8 * (size_t)n), k++;
    memcpy(in_a[k], f->p, 8 * (size_t)n), in_a[k][0] -= 1;
    memcpy(in_b[k], in_a[k], 8 * (size_t)n), k++;
    for (int j = 0; j < k; j++) {
        uint64_t want[2 * M + 1] = {0}, got[2 * M + 1], t[2 * M];
        int wide = op == FGB_MUL_WIDE || op == FGB_SQR_WIDE;
        f->mul_wide(t, in_a[j], in_b[j]);
        switch (op) {
        case FGB_MUL: f->mul(want, in_a[j], in_b[j]); break;
        case FGB_SQR: f->sqr(want, in_a[j]); break;
        case FGB_MUL_WIDE: f->mul_wide(want, in_a[j], in_b[j]); break;
        case FGB_SQR_WIDE: f->sqr_wide(want, in_a[j]); break;
        case FGB_REDC: f->redc(want, t); break;
        case FGB_MUL_SMALL: f->mul_small(want, in_a[j], FGB_SMALL); break;
        }
        if (!wide) {
            if (!plain_peer && !f->montgomery)
                f->mul(want, want, c->rinv);      /* peer computes x/R */
            else if (plain_peer && f->montgomery)
                f->mul(want, want, c->r2);        /* peer computes the plain product */
        }
        if (!wide)
            mp_reduce(want, f->p, n); /* ours canonical even if the field keeps a redundant range */
        run_once(s, op, in_a[j], in_b[j], t, got);
        int len = wide ? 2 * n : n, ok;
        if (mod_p && !wide) {
            ok = mp_reduce(got, f->p, n) && !memcmp(got, want, 8 * (size_t)n);
        } else {
            ok = !memcmp(got, want, 8 * (size_t)len);
        }
        if (!ok) {
            char g[600], w[600];
            limbs_hex(g, sizeof g, got, len);
            limbs_hex(w, sizeof w, want, len);
            snprintf(row->check, sizeof row->check, "MISMATCH on input %d: peer %.80s... ours %.80s...",
                     j, g, w);
            row->check_ok = 0;
            return 0;
        }
    }
    snprintf(row->check, sizeof row->check, "ok: %d inputs (%d random, 0, 1, p-1)%s", k, W,
             mod_p ? ", compared mod p" : ", limb for limb");
    row->check_ok = 1;
    return 1;
}

static const uint64_t P256[4] = {0xffffffffffffffffULL, 0x00000000ffffffffULL, 0ULL,
                                 0xffffffff00000001ULL};
static const uint64_t P25519[4] = {0xffffffffffffffedULL, 0xffffffffffffffffULL,
                                   0xffffffffffffffffULL, 0x7fffffffffffffffULL};

static void add_row(struct fgb_peer_row *out, int *cnt, int max, const struct ctx *c, void *fstate,
                    const struct pstate *tmpl, const char *impl, const char *level, int op,
                    fgb_loop_fn lat, fgb_loop_fn thr, int plain_peer, int mod_p, const char *note)
{
    if (*cnt >= max)
        return;
    struct fgb_peer_row *r = &out[(*cnt)++];
    memset(r, 0, sizeof *r);
    snprintf(r->impl, sizeof r->impl, "%s", impl);
    snprintf(r->level, sizeof r->level, "%s", level);
    snprintf(r->note, sizeof r->note, "%s", note ? note : "");
    r->op = op;
    r->loops.lat.fn = lat;
    r->loops.lat.calls = 2;
    r->loops.thr.fn = thr;
    r->loops.thr.calls = W;
    struct pstate *s = calloc(1, sizeof *s);
    memcpy(s, tmpl, sizeof *s);
    r->state = s;
    check_row(c, s, fstate, r, plain_peer, mod_p);
}

int fgb_peers_build(const struct fgb_field *f, void *fstate, int masked, struct fgb_peer_row *out,
                    int max)
{
    int cnt = 0, n = f->limbs;
    struct ctx c = {.f = f};
    struct pstate *s = calloc(1, sizeof *s);
    s->n = n;
    memcpy(s->p, f->p, 8 * (size_t)n);
    uint64_t inv = 1; /* Newton: p^-1 mod 2^64 */
    for (int i = 0; i < 6; i++)
        inv *= 2 - f->p[0] * inv;
    s->n0 = (uint64_t)0 - inv;
    if (f->montgomery) {
        mp_pow2_mod(c.r2, 128 * n, f->p, n);
    } else {
        uint64_t r[M];
        mp_pow2_mod(r, 64 * n, f->p, n);
        f->inv(c.rinv, r);
    }
    const uint64_t *A, *B;
    f->inputs(fstate, &A, &B);
    memcpy(s->x0, A, 8 * (size_t)n);
    memcpy(s->b, B, 8 * (size_t)n);
    for (int j = 0; j < W; j++) {
        memcpy(s->a[j], A + j * n, 8 * (size_t)n);
        memcpy(s->bb[j], B + j * n, 8 * (size_t)n);
        f->mul_wide(s->t[j], s->a[j], s->bb[j]);
    }
    f->mul_wide(s->u, A + n, B + n);
    memcpy(s->h, s->u + n, 8 * (size_t)n); /* product of two values < p: high half < p */
    int is_p256 = n == 4 && !memcmp(f->p, P256, sizeof P256);
    int is_25519 = n == 4 && !memcmp(f->p, P25519, sizeof P25519);
    (void)is_p256; (void)is_25519;
    if (masked) /* the rows below are checked on the paths they will be timed on */
        fgb_peers_mask(1);
    int adx_now = fgb_peers_openssl_adx(), adx_cpu = cpu_adx();
    (void)adx_now; (void)adx_cpu;
#ifdef FGB_HAVE_OPENSSL
    /* ISA path each OpenSSL routine takes with the current capability word (one on AArch64) */
    const char *lv_ossl = adx_now ? "adx" : FGB_ASM_LEVEL;
    int bn_mulx_shape = n >= 8 && n % 4 == 0; /* bn_mul_mont's MULX/ADX code needs this */
    const char *lv_bn = adx_now && bn_mulx_shape ? "adx" : FGB_ASM_LEVEL;
    /* Masked, only the routines whose path changes are measured again. */
    int nistz_changes = adx_cpu, bn_changes = adx_cpu && bn_mulx_shape;
    if (is_p256 && (!masked || nistz_changes)) {
        struct pstate t = *s;
        t.kind = K_NISTZ;
        add_row(out, &cnt, max, &c, fstate, &t, "openssl:nistz256", lv_ossl, FGB_MUL, lat_nistz_mul,
                thr_nistz_mul, 0, 0, NULL);
        add_row(out, &cnt, max, &c, fstate, &t, "openssl:nistz256", lv_ossl, FGB_SQR, lat_nistz_sqr,
                thr_nistz_sqr, 0, 0, NULL);
    }
#if FGB_OSSL_X86
    if (is_25519) {
        if (!masked && x25519_fe64_eligible()) {
            struct pstate t = *s;
            t.kind = K_FE64;
            add_row(out, &cnt, max, &c, fstate, &t, "openssl:fe64", "adx", FGB_MUL, lat_fe64_mul,
                    thr_fe64_mul, 1, 1, "output partially reduced, compared mod p");
            add_row(out, &cnt, max, &c, fstate, &t, "openssl:fe64", "adx", FGB_SQR, lat_fe64_sqr,
                    thr_fe64_sqr, 1, 1, "output partially reduced, compared mod p");
            add_row(out, &cnt, max, &c, fstate, &t, "openssl:fe64", "adx", FGB_MUL_SMALL, lat_fe64_m121666,
                    thr_fe64_m121666, 1, 1, "x25519_fe64_mul121666; output partially reduced, compared mod p");
        }
        if (!masked) { /* MULQ code, the same path with or without the mask */
            struct pstate t = *s;
            t.kind = K_FE51;
            memset(t.x0, 0, sizeof t.x0);
            memset(t.b, 0, sizeof t.b);
            to51(t.x0, A);
            to51(t.b, B);
            for (int j = 0; j < W; j++) {
                uint64_t a4[4], b4[4];
                memcpy(a4, s->a[j], 32);
                memcpy(b4, s->bb[j], 32);
                memset(t.a[j], 0, sizeof t.a[j]);
                memset(t.bb[j], 0, sizeof t.bb[j]);
                to51(t.a[j], a4);
                to51(t.bb[j], b4);
            }
            add_row(out, &cnt, max, &c, fstate, &t, "openssl:fe51", "x86_64", FGB_MUL, lat_fe51_mul,
                    thr_fe51_mul, 1, 1, "5x51-bit limbs, compared mod p");
            add_row(out, &cnt, max, &c, fstate, &t, "openssl:fe51", "x86_64", FGB_SQR, lat_fe51_sqr,
                    thr_fe51_sqr, 1, 1, "5x51-bit limbs, compared mod p");
            add_row(out, &cnt, max, &c, fstate, &t, "openssl:fe51", "x86_64", FGB_MUL_SMALL, lat_fe51_m121666,
                    thr_fe51_m121666, 1, 1, "x25519_fe51_mul121666; 5x51-bit limbs, compared mod p");
        }
    }
#endif
    if (!masked || bn_changes) {
        struct pstate t = *s;
        t.kind = K_BNMONT;
        const char *nt = f->montgomery ? NULL : "Montgomery product a*b/R (field is not Montgomery)";
        add_row(out, &cnt, max, &c, fstate, &t, "openssl:bn_mul_mont", lv_bn, FGB_MUL, lat_bn_mul,
                thr_bn_mul, 0, 0, nt);
        add_row(out, &cnt, max, &c, fstate, &t, "openssl:bn_mul_mont", lv_bn, FGB_SQR, lat_bn_sqr,
                thr_bn_sqr, 0, 0, nt);
    }
#endif
#ifdef FGB_HAVE_GMP
    if (!masked) {
        struct pstate t = *s;
        t.kind = K_GMP;
        const char *nt = f->montgomery ? "redc_1 + cnd_sub on carry: result < 2^(64n), compared mod p"
                                       : "Montgomery product a*b/R (field is not Montgomery), compared mod p";
        add_row(out, &cnt, max, &c, fstate, &t, "gmp:mpn", FGB_ASM_LEVEL, FGB_MUL, lat_gmp_mul, thr_gmp_mul,
                0, 1, nt);
        add_row(out, &cnt, max, &c, fstate, &t, "gmp:mpn", FGB_ASM_LEVEL, FGB_SQR, lat_gmp_sqr, thr_gmp_sqr,
                0, 1, nt);
        add_row(out, &cnt, max, &c, fstate, &t, "gmp:mpn", FGB_ASM_LEVEL, FGB_MUL_WIDE, lat_gmp_mul_wide,
                thr_gmp_mul_wide, 0, 0, "mpn_mul_n");
        add_row(out, &cnt, max, &c, fstate, &t, "gmp:mpn", FGB_ASM_LEVEL, FGB_SQR_WIDE, lat_gmp_sqr_wide,
                thr_gmp_sqr_wide, 0, 0, "mpn_sqr");
        add_row(out, &cnt, max, &c, fstate, &t, "gmp:mpn", FGB_ASM_LEVEL, FGB_REDC, lat_gmp_redc, thr_gmp_redc,
                0, 1, f->montgomery ? "mpn_redc_1 + cnd_sub, includes copying t (redc_1 destroys it)"
                                    : "x/R mod p (field is not Montgomery), includes copying t");
    }
#endif
    if (masked) {
        fgb_peers_mask(0);
        for (int k = 0; k < cnt; k++) {
            out[k].masked = 1;
            char note[sizeof out[k].note];
            snprintf(note, sizeof note, "%s%sBMI2/ADX masked", out[k].note, out[k].note[0] ? "; " : "");
            memcpy(out[k].note, note, sizeof note);
        }
    }
    free(s);
    return cnt;
}

void fgb_peers_describe(char *buf, size_t len)
{
    snprintf(buf, len, "OpenSSL: %s%s; GMP: %s", fgb_peers_openssl_version(),
             !FGB_OSSL_X86 ? ""
             : fgb_peers_openssl_adx() ? " (BMI2+ADX paths enabled)" : " (BMI2/ADX paths off)",
             fgb_peers_gmp_version());
}
