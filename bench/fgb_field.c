/* fieldgen-bench: the generic per-field part.
 *
 * Compiled once per field with -DFG_FIELD=name -DFG_FIELD_UC=NAME (bench/CMakeLists.txt
 * loops over FIELDGEN_FIELDS), so a prime added to fields.toml gets benchmark rows with
 * no per-field code. Every name below is pasted from those two macros.
 *
 * Exports `const struct fgb_field fgb_field_<name>`: timing loops for each public
 * operation (dispatched) and for each per-level kernel (fg_<name>_<op>_<level>), plus
 * untimed helpers the peers use to check their results against ours.
 *
 * Loops call the library through external functions; the library is a separate
 * static library (no LTO here), and every loop has a compiler barrier, so the calls
 * cannot be hoisted or elided.
 */
#include <stdio.h>
#include <string.h>

#include "fgb.h"
#include "fg_cpu.h"

#if !defined(FG_FIELD) || !defined(FG_FIELD_UC)
#error "compile with -DFG_FIELD=name -DFG_FIELD_UC=NAME"
#endif

#define FGB_CAT2(a, b) a##b
#define FGB_CAT(a, b) FGB_CAT2(a, b)
#define FGB_HDR2(n) <fg_##n.h>
#define FGB_HDR(n) FGB_HDR2(n)
#include FGB_HDR(FG_FIELD)

#define FN(op) FGB_CAT(FGB_CAT(fg_, FG_FIELD), FGB_CAT(_, op))      /* fg_p256_mul */
#define UC(x) FGB_CAT(FGB_CAT(FG_, FG_FIELD_UC), FGB_CAT(_, x))     /* FG_P256_LIMBS */
#define LOCAL(x) FGB_CAT(FGB_CAT(x, _), FG_FIELD)                   /* local names */
#define STR2(x) #x
#define STR(x) STR2(x)

#define N UC(LIMBS)
#define NB UC(BYTES)
typedef FGB_CAT(fg_, FG_FIELD) fe;

#if defined(FG_NO_ASM)
#define HAVE_ASM 0
#elif UC(HAVE_ASM)
#define HAVE_ASM 1
#else
#define HAVE_ASM 0
#endif

#define MONT (UC(MONTGOMERY) + 0)

/* Per-level kernels (INTERFACE.md "Kernel contract"); redeclared here so the bench
 * does not depend on whether the public header exposes them. */
#define KERNEL_DECLS(L)                                                              \
    void FN(FGB_CAT(mul_wide_, L))(uint64_t t[2 * N], const uint64_t a[N], const uint64_t b[N]); \
    void FN(FGB_CAT(sqr_wide_, L))(uint64_t t[2 * N], const uint64_t a[N]);         \
    void FN(FGB_CAT(redc_, L))(uint64_t r[N], const uint64_t t[2 * N]);             \
    void FN(FGB_CAT(mul_, L))(uint64_t r[N], const uint64_t a[N], const uint64_t b[N]); \
    void FN(FGB_CAT(sqr_, L))(uint64_t r[N], const uint64_t a[N]);
KERNEL_DECLS(c)
#if HAVE_ASM
KERNEL_DECLS(x86_64)
KERNEL_DECLS(bmi2)
KERNEL_DECLS(adx)
#endif

#define W FGB_WAYS
#define BARRIER() __asm__ __volatile__("" ::: "memory")

/* Returns 0 but depends on v: ties a byte/limb store to the next call's input without
 * changing any value (AND with 0 is not a dependency-breaking idiom, unlike XOR). */
static inline uint64_t zero_dep(uint64_t v)
{
    __asm__("andq $0, %0" : "+r"(v));
    return v;
}

typedef union {
    uint64_t t[2 * N];
    fe f; /* low half */
} wide;

struct state {
    fe a[W], b[W], r[W], sq[W]; /* inputs, outputs, squares (for sqrt) */
    wide ta[W], tr[W];          /* redc inputs (products of a and b), wide outputs */
    uint8_t by[W][NB], byo[W][NB];
    /* latency chains */
    fe x;
    wide t;            /* mul_wide/sqr_wide chain: low half feeds the next call */
    wide rt;           /* redc chain: high half fixed (< p), low half = last result */
    union {
        uint8_t b[8 * N];
        fe f;
    } u;               /* from_bytes/to_bytes chain */
};

static void init(void *vs, uint64_t seed)
{
    struct state *s = vs;
    memset(s, 0, sizeof *s);
    for (int j = 0; j < 2 * W; j++) {
        fe *dst = j < W ? &s->a[j] : &s->b[j - W];
        uint8_t buf[NB];
        do { /* random canonical value: uniform bytes, top bits masked, rejection */
            for (int i = 0; i < NB; i++)
                buf[i] = (uint8_t)fgb_rng_next(&seed);
            if (UC(BITS) % 8)
                buf[NB - 1] &= (uint8_t)((1u << (UC(BITS) % 8)) - 1);
        } while (!FN(from_bytes)(dst, buf));
    }
    for (int j = 0; j < W; j++) {
        FN(sqr)(&s->sq[j], &s->a[j]);
        FN(mul_wide)(s->ta[j].t, &s->a[j], &s->b[j]);
        FN(to_bytes)(s->by[j], &s->a[j]);
    }
    s->x = s->a[0];
    FN(mul_wide)(s->t.t, &s->a[1], &s->b[1]);
    FN(mul_wide)(s->rt.t, &s->a[2], &s->b[2]); /* < p^2, so the high half is < p */
    s->u.f = s->a[3];
}

static void inputs(const void *vs, const uint64_t **a, const uint64_t **b)
{
    const struct state *s = vs;
    *a = s->a[0].limb;
    *b = s->b[0].limb;
}

/* ---- timing loops for the public (dispatched) entry points ---- */
#define LAT(name, body)                                                  \
    static void LOCAL(name)(void *vs, size_t n)                          \
    {                                                                    \
        struct state *s = vs;                                            \
        for (size_t i = 0; i < n; i++) {                                 \
            body;                                                        \
            BARRIER();                                                   \
        }                                                                \
    }
#define THR(name, body)                                                  \
    static void LOCAL(name)(void *vs, size_t n)                          \
    {                                                                    \
        struct state *s = vs;                                            \
        for (size_t i = 0; i < n; i++) {                                 \
            for (int j = 0; j < W; j++)                                  \
                body;                                                    \
            BARRIER();                                                   \
        }                                                                \
    }

LAT(lat_mul, FN(mul)(&s->x, &s->x, &s->b[0]))
LAT(lat_sqr, FN(sqr)(&s->x, &s->x))
LAT(lat_mul_wide, FN(mul_wide)(s->t.t, &s->t.f, &s->b[0]))
LAT(lat_sqr_wide, FN(sqr_wide)(s->t.t, &s->t.f))
LAT(lat_redc, FN(redc)(&s->rt.f, s->rt.t))
LAT(lat_add, FN(add)(&s->x, &s->x, &s->b[0]))
LAT(lat_sub, FN(sub)(&s->x, &s->x, &s->b[0]))
LAT(lat_neg, FN(neg)(&s->x, &s->x))
LAT(lat_inv, FN(inv)(&s->x, &s->x))
LAT(lat_sqrt, FN(sqrt)(&s->x, &s->x))
LAT(lat_from_bytes, (FN(from_bytes)(&s->x, s->u.b), s->u.b[0] ^= (uint8_t)zero_dep(s->x.limb[0])))
LAT(lat_to_bytes, (FN(to_bytes)(s->u.b, &s->x), s->x.limb[0] += zero_dep(s->u.b[0])))

THR(thr_mul, FN(mul)(&s->r[j], &s->a[j], &s->b[j]))
THR(thr_sqr, FN(sqr)(&s->r[j], &s->a[j]))
THR(thr_mul_wide, FN(mul_wide)(s->tr[j].t, &s->a[j], &s->b[j]))
THR(thr_sqr_wide, FN(sqr_wide)(s->tr[j].t, &s->a[j]))
THR(thr_redc, FN(redc)(&s->r[j], s->ta[j].t))
THR(thr_add, FN(add)(&s->r[j], &s->a[j], &s->b[j]))
THR(thr_sub, FN(sub)(&s->r[j], &s->a[j], &s->b[j]))
THR(thr_neg, FN(neg)(&s->r[j], &s->a[j]))
THR(thr_inv, FN(inv)(&s->r[j], &s->a[j]))
THR(thr_sqrt, FN(sqrt)(&s->r[j], &s->sq[j]))
THR(thr_from_bytes, FN(from_bytes)(&s->r[j], s->by[j]))
THR(thr_to_bytes, FN(to_bytes)(s->byo[j], &s->a[j]))

/* ---- timing loops for the per-level kernels ---- */
#define KERNEL_LOOPS(L)                                                                     \
    LAT(FGB_CAT(klat_mul_, L), FN(FGB_CAT(mul_, L))(s->x.limb, s->x.limb, s->b[0].limb))    \
    LAT(FGB_CAT(klat_sqr_, L), FN(FGB_CAT(sqr_, L))(s->x.limb, s->x.limb))                  \
    LAT(FGB_CAT(klat_mul_wide_, L), FN(FGB_CAT(mul_wide_, L))(s->t.t, s->t.t, s->b[0].limb)) \
    LAT(FGB_CAT(klat_sqr_wide_, L), FN(FGB_CAT(sqr_wide_, L))(s->t.t, s->t.t))              \
    LAT(FGB_CAT(klat_redc_, L), FN(FGB_CAT(redc_, L))(s->rt.t, s->rt.t))                    \
    THR(FGB_CAT(kthr_mul_, L), FN(FGB_CAT(mul_, L))(s->r[j].limb, s->a[j].limb, s->b[j].limb)) \
    THR(FGB_CAT(kthr_sqr_, L), FN(FGB_CAT(sqr_, L))(s->r[j].limb, s->a[j].limb))            \
    THR(FGB_CAT(kthr_mul_wide_, L), FN(FGB_CAT(mul_wide_, L))(s->tr[j].t, s->a[j].limb, s->b[j].limb)) \
    THR(FGB_CAT(kthr_sqr_wide_, L), FN(FGB_CAT(sqr_wide_, L))(s->tr[j].t, s->a[j].limb))    \
    THR(FGB_CAT(kthr_redc_, L), FN(FGB_CAT(redc_, L))(s->r[j].limb, s->ta[j].t))

KERNEL_LOOPS(c)
#if HAVE_ASM
KERNEL_LOOPS(x86_64)
KERNEL_LOOPS(bmi2)
KERNEL_LOOPS(adx)
#endif

/* ---- untimed helpers (limb arrays) ---- */
static void h_mul(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    fe x, y, z;
    memcpy(x.limb, a, sizeof x.limb);
    memcpy(y.limb, b, sizeof y.limb);
    FN(mul)(&z, &x, &y);
    memcpy(r, z.limb, sizeof z.limb);
}
static void h_sqr(uint64_t *r, const uint64_t *a)
{
    fe x, z;
    memcpy(x.limb, a, sizeof x.limb);
    FN(sqr)(&z, &x);
    memcpy(r, z.limb, sizeof z.limb);
}
static void h_mul_wide(uint64_t *t, const uint64_t *a, const uint64_t *b)
{
    fe x, y;
    memcpy(x.limb, a, sizeof x.limb);
    memcpy(y.limb, b, sizeof y.limb);
    FN(mul_wide)(t, &x, &y);
}
static void h_sqr_wide(uint64_t *t, const uint64_t *a)
{
    fe x;
    memcpy(x.limb, a, sizeof x.limb);
    FN(sqr_wide)(t, &x);
}
static void h_redc(uint64_t *r, const uint64_t *t)
{
    fe z;
    FN(redc)(&z, t);
    memcpy(r, z.limb, sizeof z.limb);
}
static void h_add(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    fe x, y, z;
    memcpy(x.limb, a, sizeof x.limb);
    memcpy(y.limb, b, sizeof y.limb);
    FN(add)(&z, &x, &y);
    memcpy(r, z.limb, sizeof z.limb);
}
static int h_inv(uint64_t *r, const uint64_t *a)
{
    fe x, z;
    memcpy(x.limb, a, sizeof x.limb);
    int ok = FN(inv)(&z, &x);
    memcpy(r, z.limb, sizeof z.limb);
    return ok;
}
static void h_one(uint64_t *r)
{
    fe z;
    FN(one)(&z);
    memcpy(r, z.limb, sizeof z.limb);
}

/* Every available per-level kernel against the dispatched entry point. */
typedef void (*k_bin)(uint64_t *, const uint64_t *, const uint64_t *);
typedef void (*k_un)(uint64_t *, const uint64_t *);
struct kset {
    k_bin mul, mul_wide;
    k_un sqr, sqr_wide, redc;
};
static const struct kset kernels[FGB_NLEVELS] = {
    {FN(mul_c), FN(mul_wide_c), FN(sqr_c), FN(sqr_wide_c), FN(redc_c)},
#if HAVE_ASM
    {FN(mul_x86_64), FN(mul_wide_x86_64), FN(sqr_x86_64), FN(sqr_wide_x86_64), FN(redc_x86_64)},
    {FN(mul_bmi2), FN(mul_wide_bmi2), FN(sqr_bmi2), FN(sqr_wide_bmi2), FN(redc_bmi2)},
    {FN(mul_adx), FN(mul_wide_adx), FN(sqr_adx), FN(sqr_wide_adx), FN(redc_adx)},
#endif
};

static int selftest(void *vs, char *msg, size_t len)
{
    struct state *s = vs;
    int bad = 0;
    fg_isa saved = fg_isa_active();
    msg[0] = 0;
    for (int L = 0; L < FGB_NLEVELS; L++) {
        if (!kernels[L].mul || !fg_isa_force((fg_isa)L))
            continue;
        fg_isa_force(saved);
        for (int j = 0; j < W; j++) {
            uint64_t want[2 * N], got[2 * N];
            const char *what = NULL;
            h_mul(want, s->a[j].limb, s->b[j].limb);
            kernels[L].mul(got, s->a[j].limb, s->b[j].limb);
            if (memcmp(want, got, 8 * N)) what = "mul";
            h_sqr(want, s->a[j].limb);
            kernels[L].sqr(got, s->a[j].limb);
            if (memcmp(want, got, 8 * N)) what = "sqr";
            h_mul_wide(want, s->a[j].limb, s->b[j].limb);
            kernels[L].mul_wide(got, s->a[j].limb, s->b[j].limb);
            if (memcmp(want, got, 16 * N)) what = "mul_wide";
            h_sqr_wide(want, s->a[j].limb);
            kernels[L].sqr_wide(got, s->a[j].limb);
            if (memcmp(want, got, 16 * N)) what = "sqr_wide";
            h_redc(want, s->ta[j].t);
            kernels[L].redc(got, s->ta[j].t);
            if (memcmp(want, got, 8 * N)) what = "redc";
            if (what) {
                if (!bad)
                    snprintf(msg, len, "%s: %s_%s differs from the dispatched entry point",
                             STR(FG_FIELD), what, fgb_level_names[L]);
                bad++;
            }
        }
    }
    fg_isa_force(saved);
    return bad;
}

#define APIU(OP, op) [OP] = {{LOCAL(FGB_CAT(lat_, op)), 1}, {LOCAL(FGB_CAT(thr_, op)), W}}
#define DIRECT(L)                                                                       \
    {                                                                                   \
        [FGB_MUL] = {{LOCAL(klat_mul_##L), 1}, {LOCAL(kthr_mul_##L), W}},               \
        [FGB_SQR] = {{LOCAL(klat_sqr_##L), 1}, {LOCAL(kthr_sqr_##L), W}},               \
        [FGB_MUL_WIDE] = {{LOCAL(klat_mul_wide_##L), 1}, {LOCAL(kthr_mul_wide_##L), W}}, \
        [FGB_SQR_WIDE] = {{LOCAL(klat_sqr_wide_##L), 1}, {LOCAL(kthr_sqr_wide_##L), W}}, \
        [FGB_REDC] = {{LOCAL(klat_redc_##L), 1}, {LOCAL(kthr_redc_##L), W}},            \
    }

const struct fgb_field FGB_CAT(fgb_field_, FG_FIELD) = {
    .name = STR(FG_FIELD),
    .limbs = N,
    .bytes = NB,
    .bits = UC(BITS),
    .montgomery = MONT,
    .have_asm = HAVE_ASM,
    .p = FN(P),
    .state_size = sizeof(struct state),
    .init = init,
    .inputs = inputs,
    .api = {
        APIU(FGB_MUL, mul), APIU(FGB_SQR, sqr), APIU(FGB_MUL_WIDE, mul_wide),
        APIU(FGB_SQR_WIDE, sqr_wide), APIU(FGB_REDC, redc), APIU(FGB_ADD, add),
        APIU(FGB_SUB, sub), APIU(FGB_NEG, neg), APIU(FGB_INV, inv), APIU(FGB_SQRT, sqrt),
        APIU(FGB_FROM_BYTES, from_bytes), APIU(FGB_TO_BYTES, to_bytes),
    },
    .direct = {
        DIRECT(c),
#if HAVE_ASM
        DIRECT(x86_64), DIRECT(bmi2), DIRECT(adx),
#endif
    },
    .mul = h_mul,
    .sqr = h_sqr,
    .mul_wide = h_mul_wide,
    .sqr_wide = h_sqr_wide,
    .redc = h_redc,
    .add = h_add,
    .inv = h_inv,
    .one = h_one,
    .selftest = selftest,
};
