/* SPDX-License-Identifier: MIT OR Apache-2.0 */
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
#define BIG UC(BYTE_ORDER_BIG)
typedef FGB_CAT(fg_, FG_FIELD) fe;

#if defined(FG_NO_ASM)
#define HAVE_ASM 0
#elif UC(HAVE_ASM)
#define HAVE_ASM 1
#else
#define HAVE_ASM 0
#endif
#if HAVE_ASM
/* the x86-64 kernels' counts FG_NAME_OP_LEVEL_MULTS, _P06, _ALU (not part of the API) */
#define FGB_COSTS2(n) <fg_##n##_x86_64_costs.h>
#define FGB_COSTS(n) FGB_COSTS2(n)
#include FGB_COSTS(FG_FIELD)
#endif
/* the aarch64 level's kernels fg_NAME_OP_aarch64 (AArch64 builds; level 1 there) */
#if !defined(FG_NO_ASM) && (UC(HAVE_AARCH64_ASM) + 0)
#define HAVE_A64 1
#else
#define HAVE_A64 0
#endif

/* adx's Zen forms fg_NAME_OP_adx_zen, op by op (the header's FG_NAME_OP_HAVE_ADX_ZEN):
 * ZEN_OP is 1 where the field has one (a token, for the ZEN_COST paste below) */
#if HAVE_ASM && UC(MUL_HAVE_ADX_ZEN)
#define ZEN_MUL 1
#else
#define ZEN_MUL 0
#endif
#if HAVE_ASM && UC(SQR_HAVE_ADX_ZEN)
#define ZEN_SQR 1
#else
#define ZEN_SQR 0
#endif
#if HAVE_ASM && UC(MUL_WIDE_HAVE_ADX_ZEN)
#define ZEN_MUL_WIDE 1
#else
#define ZEN_MUL_WIDE 0
#endif
#if HAVE_ASM && UC(SQR_WIDE_HAVE_ADX_ZEN)
#define ZEN_SQR_WIDE 1
#else
#define ZEN_SQR_WIDE 0
#endif
#if HAVE_ASM && UC(REDC_HAVE_ADX_ZEN)
#define ZEN_REDC 1
#else
#define ZEN_REDC 0
#endif

/* the ifma level's Fp mul fg_NAME_mul_ifma (FG_NAME_MUL_HAVE_IFMA; run under the zen tuning)
 * and its squaring entry fg_NAME_sqr_ifma (FG_NAME_SQR_HAVE_IFMA: large fields) */
#if HAVE_ASM && UC(MUL_HAVE_IFMA)
#define IFMA_MUL 1
#else
#define IFMA_MUL 0
#endif
#if HAVE_ASM && UC(SQR_HAVE_IFMA)
#define IFMA_SQR 1
#else
#define IFMA_SQR 0
#endif

#define MONT (UC(MONTGOMERY) + 0)
#define FP2 (UC(HAVE_FP2) + 0)
#define LAZY (UC(HAVE_LAZY) + 0)
#define SQRT_RATIO (UC(HAVE_SQRT_RATIO) + 0)
#if FP2
typedef FGB_CAT(FGB_CAT(fg_, FG_FIELD), _fp2) fe2;
#define NONRES UC(FP2_NON_RESIDUE)
#endif

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
#if HAVE_A64
KERNEL_DECLS(aarch64)
#endif

#define W FGB_WAYS
#define BARRIER() __asm__ __volatile__("" ::: "memory")

/* Returns 0 but depends on v: ties a byte/limb store to the next call's input without
 * changing any value (AND with 0 is not a dependency-breaking idiom, unlike XOR). */
static inline uint64_t zero_dep(uint64_t v)
{
#if defined(__aarch64__)
    __asm__("and %0, %0, xzr" : "+r"(v));
#else
    __asm__("andq $0, %0" : "+r"(v));
#endif
    return v;
}

typedef union {
    uint64_t t[2 * N];
    fe f; /* low half */
} wide;

/* Callees of the dispatch-overhead loops: the public entry points (d_*) or one
 * level's kernels (k_*); typed as each is declared, so no call goes through a
 * pointer of another function type. */
struct state;
struct via {
    struct state *s;
    void (*d_mul)(fe *, const fe *, const fe *);
    void (*d_sqr)(fe *, const fe *);
    void (*d_mul_wide)(uint64_t *, const fe *, const fe *);
    void (*d_sqr_wide)(uint64_t *, const fe *);
    void (*d_redc)(fe *, const uint64_t *);
    void (*k_mul)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*k_sqr)(uint64_t *, const uint64_t *);
    void (*k_mul_wide)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*k_sqr_wide)(uint64_t *, const uint64_t *);
    void (*k_redc)(uint64_t *, const uint64_t *);
};

struct state {
    fe a[W], b[W], r[W], sq[W]; /* inputs, outputs, squares (for sqrt) */
    wide ta[W], tr[W];          /* redc inputs (products of a and b), wide outputs */
    uint8_t by[W][NB], byo[W][NB];
    uint8_t wby[W][NB + 16], wl[NB + 16]; /* from_bytes_wide inputs (throughput, latency chain) */
    /* latency chains */
    fe x;
    wide t;            /* mul_wide/sqr_wide chain: low half feeds the next call */
    wide rt;           /* redc chain: high half fixed (< p), low half = last result */
    union {
        uint8_t b[8 * N];
        fe f;
    } u;               /* from_bytes/to_bytes chain */
    int ok[W];         /* is_square results (throughput) */
    /* inv_batch: the latency loop inverts bl in place (each batch is the previous
     * batch's output), the throughput loop inverts the fixed bi into bo */
    fe bl[FGB_BATCH], bi[FGB_BATCH], bo[FGB_BATCH], scratch[FGB_BATCH];
    struct via vd, vk[FGB_NKERNELS]; /* dispatch-overhead callees (see "one loop, two callees") */
#if FP2
    fe2 a2[W], b2[W], r2[W], sq2[W];
    fe2 x2;            /* mul/sqr/inv/add chain */
    fe2 xs2;           /* sqrt chain: stays a square, tied to each root by zero_dep */
    fe2 bl2[FGB_BATCH], bi2[FGB_BATCH], bo2[FGB_BATCH], scratch2[FGB_BATCH]; /* fp2_inv_batch, as inv_batch */
#endif
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
        for (int i = 0; i < NB + 16; i++)
            s->wby[j][i] = (uint8_t)fgb_rng_next(&seed);
        memcpy(s->wl, s->wby[j], sizeof s->wl);
    }
    s->vd = (struct via){.s = s, .d_mul = FN(mul), .d_sqr = FN(sqr), .d_mul_wide = FN(mul_wide),
                         .d_sqr_wide = FN(sqr_wide), .d_redc = FN(redc)};
#define LVL_c FG_ISA_C /* fgb_level_names order = fg_isa */
#define LVL_x86_64 FG_ISA_X86_64
#define LVL_bmi2 FG_ISA_BMI2
#define LVL_adx FG_ISA_ADX
#define LVL_aarch64 FG_ISA_AARCH64
#define VIA_KERNELS(L)                                                                     \
    s->vk[FGB_CAT(LVL_, L)] = (struct via){.s = s, .k_mul = FN(FGB_CAT(mul_, L)),     \
        .k_sqr = FN(FGB_CAT(sqr_, L)), .k_mul_wide = FN(FGB_CAT(mul_wide_, L)),             \
        .k_sqr_wide = FN(FGB_CAT(sqr_wide_, L)), .k_redc = FN(FGB_CAT(redc_, L))}
    VIA_KERNELS(c);
#if HAVE_A64
    VIA_KERNELS(aarch64);
#endif
#if HAVE_ASM
    VIA_KERNELS(x86_64);
    VIA_KERNELS(bmi2);
    VIA_KERNELS(adx);
    s->vk[FG_KERNEL_ADX_ZEN].s = s; /* the ops that have a Zen form */
#if ZEN_MUL
    s->vk[FG_KERNEL_ADX_ZEN].k_mul = FN(mul_adx_zen);
#endif
#if ZEN_SQR
    s->vk[FG_KERNEL_ADX_ZEN].k_sqr = FN(sqr_adx_zen);
#endif
#if ZEN_MUL_WIDE
    s->vk[FG_KERNEL_ADX_ZEN].k_mul_wide = FN(mul_wide_adx_zen);
#endif
#if ZEN_SQR_WIDE
    s->vk[FG_KERNEL_ADX_ZEN].k_sqr_wide = FN(sqr_wide_adx_zen);
#endif
#if ZEN_REDC
    s->vk[FG_KERNEL_ADX_ZEN].k_redc = FN(redc_adx_zen);
#endif
#endif
#if IFMA_MUL
    s->vk[FG_ISA_IFMA].s = s;
    s->vk[FG_ISA_IFMA].k_mul = FN(mul_ifma);
#endif
#if IFMA_SQR
    s->vk[FG_ISA_IFMA].k_sqr = FN(sqr_ifma);
#endif
#undef VIA_KERNELS
    s->x = s->a[0];
    FN(mul_wide)(s->t.t, &s->a[1], &s->b[1]);
    FN(mul_wide)(s->rt.t, &s->a[2], &s->b[2]); /* < p^2, so the high half is < p */
    s->u.f = s->a[3];
    for (int i = 0; i < FGB_BATCH; i++) {
        FN(mul)(&s->bi[i], &s->a[i % W], &s->b[(i / W) % W]);
        s->bl[i] = s->bi[i];
    }
#if FP2
    for (int j = 0; j < W; j++) {
        s->a2[j].c0 = s->a[j];
        s->a2[j].c1 = s->b[j];
        s->b2[j].c0 = s->b[j];
        s->b2[j].c1 = s->a[(j + 1) % W];
        FN(fp2_sqr)(&s->sq2[j], &s->a2[j]);
    }
    for (int i = 0; i < FGB_BATCH; i++) {
        s->bi2[i].c0 = s->bi[i];
        s->bi2[i].c1 = s->bi[(i + 1) % FGB_BATCH];
        s->bl2[i] = s->bi2[i];
    }
    s->x2 = s->a2[0];
    s->xs2 = s->sq2[0];
#endif
}

static void inputs(const void *vs, const uint64_t **a, const uint64_t **b)
{
    const struct state *s = vs;
    *a = s->a[0].limb;
    *b = s->b[0].limb;
}

/* Every timing loop starts on a 64-byte boundary and is never inlined: the loop of
 * fg_NAME_OP and the loop of the kernel it reaches (KLOOPS_OP below) then differ in
 * the call's target alone, and the dispatch-overhead pairs time them side by side. */
#if defined(__GNUC__)
#define LOOP_ALIGN __attribute__((aligned(64), noinline))
#else
#define LOOP_ALIGN
#endif

/* ---- timing loops for the public (dispatched) entry points ---- */
#define LAT(name, body)                                                  \
    static LOOP_ALIGN void LOCAL(name)(void *vs, size_t n)               \
    {                                                                    \
        struct state *s = vs;                                            \
        for (size_t i = 0; i < n; i++) {                                 \
            body;                                                        \
            BARRIER();                                                   \
        }                                                                \
    }
#define THR(name, body)                                                  \
    static LOOP_ALIGN void LOCAL(name)(void *vs, size_t n)               \
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
LAT(lat_mul_small, FN(mul_small)(&s->x, &s->x, FGB_SMALL))
LAT(lat_inv, FN(inv)(&s->x, &s->x))
LAT(lat_inv_fermat, FN(inv_fermat)(&s->x, &s->x))
LAT(lat_inv_batch, FN(inv_batch)(s->bl, s->bl, FGB_BATCH, s->scratch))
LAT(lat_is_square, s->x.limb[0] += zero_dep((uint64_t)FN(is_square)(&s->x)))
LAT(lat_is_square_euler, s->x.limb[0] += zero_dep((uint64_t)FN(is_square_euler)(&s->x)))
LAT(lat_sqrt, FN(sqrt)(&s->x, &s->x))
LAT(lat_from_bytes, (FN(from_bytes)(&s->x, s->u.b), s->u.b[0] ^= (uint8_t)zero_dep(s->x.limb[0])))
LAT(lat_from_bytes_wide, (FN(from_bytes_wide)(&s->x, s->wl, NB + 16), s->wl[0] ^= (uint8_t)zero_dep(s->x.limb[0])))
LAT(lat_to_bytes, (FN(to_bytes)(s->u.b, &s->x), s->x.limb[0] += zero_dep(s->u.b[0])))
#if LAZY
/* the chain stays below 2p: each lazy result is the next operand */
LAT(lat_mul_lazy, FN(mul_lazy)(&s->x, &s->x, &s->b[0]))
LAT(lat_sqr_lazy, FN(sqr_lazy)(&s->x, &s->x))
THR(thr_mul_lazy, FN(mul_lazy)(&s->r[j], &s->a[j], &s->b[j]))
THR(thr_sqr_lazy, FN(sqr_lazy)(&s->r[j], &s->a[j]))
#endif

THR(thr_mul, FN(mul)(&s->r[j], &s->a[j], &s->b[j]))
THR(thr_sqr, FN(sqr)(&s->r[j], &s->a[j]))
THR(thr_mul_wide, FN(mul_wide)(s->tr[j].t, &s->a[j], &s->b[j]))
THR(thr_sqr_wide, FN(sqr_wide)(s->tr[j].t, &s->a[j]))
THR(thr_redc, FN(redc)(&s->r[j], s->ta[j].t))
THR(thr_add, FN(add)(&s->r[j], &s->a[j], &s->b[j]))
THR(thr_sub, FN(sub)(&s->r[j], &s->a[j], &s->b[j]))
THR(thr_neg, FN(neg)(&s->r[j], &s->a[j]))
THR(thr_mul_small, FN(mul_small)(&s->r[j], &s->a[j], FGB_SMALL))
THR(thr_inv, FN(inv)(&s->r[j], &s->a[j]))
THR(thr_inv_fermat, FN(inv_fermat)(&s->r[j], &s->a[j]))
THR(thr_is_square, s->ok[j] = FN(is_square)(&s->a[j]))
THR(thr_is_square_euler, s->ok[j] = FN(is_square_euler)(&s->a[j]))
#if SQRT_RATIO
LAT(lat_sqrt_ratio, FN(sqrt_ratio)(&s->x, &s->x, &s->b[0]))
THR(thr_sqrt_ratio, s->ok[j] = FN(sqrt_ratio)(&s->r[j], &s->a[j], &s->b[j]))
#endif
/* one batch per iteration, from a fixed input: consecutive batches are independent */
static LOOP_ALIGN void LOCAL(thr_inv_batch)(void *vs, size_t n)
{
    struct state *s = vs;
    for (size_t i = 0; i < n; i++) {
        FN(inv_batch)(s->bo, s->bi, FGB_BATCH, s->scratch);
        BARRIER();
    }
}
#if FP2
LAT(lat_fp2_add, FN(fp2_add)(&s->x2, &s->x2, &s->b2[0]))
LAT(lat_fp2_mul, FN(fp2_mul)(&s->x2, &s->x2, &s->b2[0]))
LAT(lat_fp2_sqr, FN(fp2_sqr)(&s->x2, &s->x2))
LAT(lat_fp2_inv, FN(fp2_inv)(&s->x2, &s->x2))
LAT(lat_fp2_sqrt, (FN(fp2_sqrt)(&s->r2[0], &s->xs2), s->xs2.c0.limb[0] += zero_dep(s->r2[0].c0.limb[0])))
LAT(lat_fp2_is_square, s->x2.c0.limb[0] += zero_dep((uint64_t)FN(fp2_is_square)(&s->x2)))
THR(thr_fp2_add, FN(fp2_add)(&s->r2[j], &s->a2[j], &s->b2[j]))
THR(thr_fp2_mul, FN(fp2_mul)(&s->r2[j], &s->a2[j], &s->b2[j]))
THR(thr_fp2_sqr, FN(fp2_sqr)(&s->r2[j], &s->a2[j]))
THR(thr_fp2_inv, FN(fp2_inv)(&s->r2[j], &s->a2[j]))
THR(thr_fp2_sqrt, FN(fp2_sqrt)(&s->r2[j], &s->sq2[j]))
THR(thr_fp2_is_square, s->ok[j] = FN(fp2_is_square)(&s->a2[j]))
LAT(lat_fp2_inv_batch, FN(fp2_inv_batch)(s->bl2, s->bl2, FGB_BATCH, s->scratch2))
static LOOP_ALIGN void LOCAL(thr_fp2_inv_batch)(void *vs, size_t n)
{
    struct state *s = vs;
    for (size_t i = 0; i < n; i++) {
        FN(fp2_inv_batch)(s->bo2, s->bi2, FGB_BATCH, s->scratch2);
        BARRIER();
    }
}
#endif
THR(thr_sqrt, FN(sqrt)(&s->r[j], &s->sq[j]))
THR(thr_from_bytes, FN(from_bytes)(&s->r[j], s->by[j]))
THR(thr_to_bytes, FN(to_bytes)(s->byo[j], &s->a[j]))
THR(thr_from_bytes_wide, FN(from_bytes_wide)(&s->r[j], s->wby[j], NB + 16))

/* ---- timing loops for the per-level kernels ---- */
#define KLOOPS_mul(L)                                                                       \
    LAT(FGB_CAT(klat_mul_, L), FN(FGB_CAT(mul_, L))(s->x.limb, s->x.limb, s->b[0].limb))    \
    THR(FGB_CAT(kthr_mul_, L), FN(FGB_CAT(mul_, L))(s->r[j].limb, s->a[j].limb, s->b[j].limb))
#define KLOOPS_sqr(L)                                                                       \
    LAT(FGB_CAT(klat_sqr_, L), FN(FGB_CAT(sqr_, L))(s->x.limb, s->x.limb))                  \
    THR(FGB_CAT(kthr_sqr_, L), FN(FGB_CAT(sqr_, L))(s->r[j].limb, s->a[j].limb))
#define KLOOPS_mul_wide(L)                                                                  \
    LAT(FGB_CAT(klat_mul_wide_, L), FN(FGB_CAT(mul_wide_, L))(s->t.t, s->t.t, s->b[0].limb)) \
    THR(FGB_CAT(kthr_mul_wide_, L), FN(FGB_CAT(mul_wide_, L))(s->tr[j].t, s->a[j].limb, s->b[j].limb))
#define KLOOPS_sqr_wide(L)                                                                  \
    LAT(FGB_CAT(klat_sqr_wide_, L), FN(FGB_CAT(sqr_wide_, L))(s->t.t, s->t.t))              \
    THR(FGB_CAT(kthr_sqr_wide_, L), FN(FGB_CAT(sqr_wide_, L))(s->tr[j].t, s->a[j].limb))
#define KLOOPS_redc(L)                                                                      \
    LAT(FGB_CAT(klat_redc_, L), FN(FGB_CAT(redc_, L))(s->rt.t, s->rt.t))                    \
    THR(FGB_CAT(kthr_redc_, L), FN(FGB_CAT(redc_, L))(s->r[j].limb, s->ta[j].t))
#define KERNEL_LOOPS(L) KLOOPS_mul(L) KLOOPS_sqr(L) KLOOPS_mul_wide(L) KLOOPS_sqr_wide(L) KLOOPS_redc(L)

KERNEL_LOOPS(c)
#if HAVE_ASM
KERNEL_LOOPS(x86_64)
KERNEL_LOOPS(bmi2)
KERNEL_LOOPS(adx)
#endif
#if HAVE_A64
KERNEL_LOOPS(aarch64)
#endif
#if ZEN_MUL
KLOOPS_mul(adx_zen)
#endif
#if ZEN_SQR
KLOOPS_sqr(adx_zen)
#endif
#if ZEN_MUL_WIDE
KLOOPS_mul_wide(adx_zen)
#endif
#if ZEN_SQR_WIDE
KLOOPS_sqr_wide(adx_zen)
#endif
#if IFMA_MUL
KLOOPS_mul(ifma)
#endif
#if IFMA_SQR
KLOOPS_sqr(ifma)
#endif
#if ZEN_REDC
KLOOPS_redc(adx_zen)
#endif

/* ---- dispatch overhead: one loop, two callees ----
 * The rows above time fg_NAME_OP and fg_NAME_OP_LEVEL with separately written loops,
 * and where a call sits in the code moved those medians by up to +-5 cycles either way
 * (p503 sqr_wide "dispatched" 6 cycles faster than its own kernel). Here each pair of
 * loops comes from one macro, starts on a 64-byte boundary and compiles to the same
 * instructions (one loads d_OP, the other k_OP, at the same displacement size): only
 * the callee differs. The call is indirect in both, perfectly predicted. */
#define VIA_LAT(name, call)                                             \
    static LOOP_ALIGN void LOCAL(name)(void *vv, size_t n)               \
    {                                                                    \
        const struct via *v = vv;                                        \
        struct state *s = v->s;                                          \
        for (size_t i = 0; i < n; i++) {                                 \
            call;                                                        \
            BARRIER();                                                   \
        }                                                                \
    }
#define VIA_THR(name, call)                                             \
    static LOOP_ALIGN void LOCAL(name)(void *vv, size_t n)               \
    {                                                                    \
        const struct via *v = vv;                                        \
        struct state *s = v->s;                                          \
        for (size_t i = 0; i < n; i++) {                                 \
            for (int j = 0; j < W; j++)                                  \
                call;                                                    \
            BARRIER();                                                   \
        }                                                                \
    }
#define VIA_PAIR(op, lat_args, thr_args)                                 \
    VIA_LAT(FGB_CAT(vdlat_, op), v->FGB_CAT(d_, op) lat_args)            \
    VIA_LAT(FGB_CAT(vklat_, op), v->FGB_CAT(k_, op) lat_args)            \
    VIA_THR(FGB_CAT(vdthr_, op), v->FGB_CAT(d_, op) thr_args)            \
    VIA_THR(FGB_CAT(vkthr_, op), v->FGB_CAT(k_, op) thr_args)
/* the same addresses in both: &s->x == s->x.limb etc.; casts only retype the pointer */
#define P(x) ((void *)(x))
VIA_PAIR(mul, (P(&s->x), P(&s->x), P(&s->b[0])), (P(&s->r[j]), P(&s->a[j]), P(&s->b[j])))
VIA_PAIR(sqr, (P(&s->x), P(&s->x)), (P(&s->r[j]), P(&s->a[j])))
VIA_PAIR(mul_wide, (s->t.t, P(&s->t.f), P(&s->b[0])), (s->tr[j].t, P(&s->a[j]), P(&s->b[j])))
VIA_PAIR(sqr_wide, (s->t.t, P(&s->t.f)), (s->tr[j].t, P(&s->a[j])))
VIA_PAIR(redc, (P(&s->rt.f), s->rt.t), (P(&s->r[j]), s->ta[j].t))
#undef P

static void *via_state(void *vs, int kernel)
{
    struct state *s = vs;
    return kernel < 0 ? (void *)&s->vd : (void *)&s->vk[kernel];
}

/* ---- untimed helpers (limb arrays) ---- */
static void h_mul(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    fe x, y, z;
    memcpy(x.limb, a, sizeof x.limb);
    memcpy(y.limb, b, sizeof y.limb);
    FN(mul)(&z, &x, &y);
    memcpy(r, z.limb, sizeof z.limb);
}
static void h_mul_small(uint64_t *r, const uint64_t *a, uint32_t c)
{
    fe x, z;
    memcpy(x.limb, a, sizeof x.limb);
    FN(mul_small)(&z, &x, c);
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

/* Every available kernel against the dispatched entry point (by kernel id; NULL
 * where a kernel does not exist: adx's Zen form exists for some ops only). */
typedef void (*k_bin)(uint64_t *, const uint64_t *, const uint64_t *);
typedef void (*k_un)(uint64_t *, const uint64_t *);
struct kset {
    k_bin mul, mul_wide;
    k_un sqr, sqr_wide, redc;
};
static const struct kset kernels[FGB_NKERNELS] = {
    {FN(mul_c), FN(mul_wide_c), FN(sqr_c), FN(sqr_wide_c), FN(redc_c)},
#if HAVE_ASM
    {FN(mul_x86_64), FN(mul_wide_x86_64), FN(sqr_x86_64), FN(sqr_wide_x86_64), FN(redc_x86_64)},
    {FN(mul_bmi2), FN(mul_wide_bmi2), FN(sqr_bmi2), FN(sqr_wide_bmi2), FN(redc_bmi2)},
    {FN(mul_adx), FN(mul_wide_adx), FN(sqr_adx), FN(sqr_wide_adx), FN(redc_adx)},
#endif
#if HAVE_A64
    [FG_ISA_AARCH64] = {FN(mul_aarch64), FN(mul_wide_aarch64), FN(sqr_aarch64), FN(sqr_wide_aarch64),
                        FN(redc_aarch64)},
#endif
#if ZEN_MUL || ZEN_MUL_WIDE || ZEN_SQR || ZEN_SQR_WIDE || ZEN_REDC
    [FG_KERNEL_ADX_ZEN] = {
#if ZEN_MUL
        .mul = FN(mul_adx_zen),
#endif
#if ZEN_MUL_WIDE
        .mul_wide = FN(mul_wide_adx_zen),
#endif
#if ZEN_SQR
        .sqr = FN(sqr_adx_zen),
#endif
#if ZEN_SQR_WIDE
        .sqr_wide = FN(sqr_wide_adx_zen),
#endif
#if ZEN_REDC
        .redc = FN(redc_adx_zen),
#endif
    },
#endif
#if IFMA_MUL
    [FG_ISA_IFMA] = {.mul = FN(mul_ifma),
#if IFMA_SQR
                     .sqr = FN(sqr_ifma),
#endif
    },
#endif
};

static int selftest(void *vs, char *msg, size_t len)
{
    struct state *s = vs;
    int bad = 0;
    fg_isa saved = fg_isa_active();
    msg[0] = 0;
    for (int L = 0; L < FGB_NKERNELS; L++) {
        const struct kset *k = &kernels[L];
        if (!(k->mul || k->sqr || k->mul_wide || k->sqr_wide || k->redc) ||
            !fg_isa_force((fg_isa)fgb_kernel_level(L)))
            continue;
        fg_isa_force(saved);
        for (int j = 0; j < W; j++) {
            uint64_t want[2 * N], got[2 * N];
            const char *what = NULL;
/* the kernel k->op (if this kernel id has one) against the entry point's h_op */
#define SELFTEST_OP(op, words, ...)                                      \
            if (k->op) {                                                 \
                FGB_CAT(h_, op)(want, __VA_ARGS__);                      \
                k->op(got, __VA_ARGS__);                                 \
                if (memcmp(want, got, 8 * (words))) what = #op;          \
            }
            SELFTEST_OP(mul, N, s->a[j].limb, s->b[j].limb)
            SELFTEST_OP(sqr, N, s->a[j].limb)
            SELFTEST_OP(mul_wide, 2 * N, s->a[j].limb, s->b[j].limb)
            SELFTEST_OP(sqr_wide, 2 * N, s->a[j].limb)
            SELFTEST_OP(redc, N, s->ta[j].t)
#undef SELFTEST_OP
            if (what) {
                if (!bad)
                    snprintf(msg, len, "%s: %s_%s differs from the dispatched entry point",
                             STR(FG_FIELD), what, fgb_kernel_names[L]);
                bad++;
            }
        }
    }
    fg_isa_force(saved);
    return bad;
}

/* ---- result checks of the public ops against references built from other API parts ---- */
static int fe_same(const fe *x, const fe *y) { return !memcmp(x->limb, y->limb, sizeof x->limb); }

/* r = a^e, e given as N limbs, left-to-right square-and-multiply over the dispatched
 * mul/sqr (independent of the generated addition chains and of safegcd). */
static void ref_pow(fe *r, const fe *a, const uint64_t e[N])
{
    fe acc;
    FN(one)(&acc);
    for (int i = 64 * N - 1; i >= 0; i--) {
        FN(sqr)(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1)
            FN(mul)(&acc, &acc, a);
    }
    *r = acc;
}
/* e = p - k for small k (p > k), or (p - 1) / 2 when half */
static void p_minus(uint64_t e[N], uint64_t k, int half)
{
    uint64_t borrow = k;
    for (int i = 0; i < N; i++) {
        uint64_t v = FN(P)[i];
        e[i] = v - borrow;
        borrow = v < borrow;
    }
    if (half)
        for (int i = 0; i < N; i++)
            e[i] = (e[i] >> 1) | (i + 1 < N ? e[i + 1] << 63 : 0);
}
/* Euler's criterion: 1 if a is a square (0 included) */
static int ref_is_square(const fe *a)
{
    uint64_t e[N];
    fe r, one;
    p_minus(e, 1, 1);
    ref_pow(&r, a, e);
    FN(one)(&one);
    return FN(is_zero)(&r) | fe_same(&r, &one);
}

/* The base-field test inputs: the random a[], 1 and p-1; *nz excludes the zero appended last. */
#define NCHK (W + 3)
static int base_inputs(const struct state *s, fe in[NCHK])
{
    for (int j = 0; j < W; j++)
        in[j] = s->a[j];
    FN(one)(&in[W]);
    FN(neg)(&in[W + 1], &in[W]);
    FN(zero)(&in[W + 2]);
    return W + 2; /* nonzero ones */
}

#if FP2
static int fe2_same(const fe2 *x, const fe2 *y) { return fe_same(&x->c0, &y->c0) && fe_same(&x->c1, &y->c1); }
/* schoolbook (a0 + a1 u)(b0 + b1 u) with u^2 = NONRES, from the base field's mul/add/neg */
static void ref_fp2_mul(fe2 *r, const fe2 *a, const fe2 *b)
{
    fe t0, t1, t2, t3, nr;
    FN(from_u64)(&nr, (uint64_t)(NONRES < 0 ? -(NONRES) : NONRES));
    if (NONRES < 0)
        FN(neg)(&nr, &nr);
    FN(mul)(&t0, &a->c0, &b->c0);
    FN(mul)(&t1, &a->c1, &b->c1);
    FN(mul)(&t2, &a->c0, &b->c1);
    FN(mul)(&t3, &a->c1, &b->c0);
    FN(mul)(&t1, &t1, &nr);
    FN(add)(&r->c0, &t0, &t1);
    FN(add)(&r->c1, &t2, &t3);
}
/* a is a square in Fp2 iff its norm a0^2 - NONRES a1^2 is a square in Fp */
static int ref_fp2_is_square(const fe2 *a)
{
    fe2 c, n;
    c.c0 = a->c0;
    FN(neg)(&c.c1, &a->c1);
    ref_fp2_mul(&n, a, &c);
    return ref_is_square(&n.c0);
}
#define NCHK2 (W + 5)
static int fp2_inputs(const struct state *s, fe2 in[NCHK2])
{
    fe one, m1;
    FN(one)(&one);
    FN(neg)(&m1, &one);
    for (int j = 0; j < W; j++)
        in[j] = s->a2[j];
    FN(fp2_one)(&in[W]);
    FN(fp2_zero)(&in[W + 1]);
    in[W + 1].c1 = one;                     /* u */
    in[W + 2].c0 = m1, in[W + 2].c1 = m1;   /* (p-1)(1 + u) */
    FN(fp2_zero)(&in[W + 3]);
    in[W + 3].c1 = m1;                      /* -u */
    FN(fp2_zero)(&in[W + 4]);               /* zero last */
    return W + 4;
}
#endif

#define FAIL(...) do { snprintf(msg, len, __VA_ARGS__); return 0; } while (0)

static int check(void *vs, int op, char *msg, size_t len)
{
    struct state *s = vs;
    fe in[NCHK], one, r, q, z;
    int nz = base_inputs(s, in);
    uint64_t e[N];
    FN(one)(&one);
    FN(zero)(&z);
    switch (op) {
    case FGB_INV:
    case FGB_INV_FERMAT: {
        int fermat = op == FGB_INV_FERMAT;
        p_minus(e, 2, 0);
        for (int i = 0; i <= nz; i++) {
            int ok = fermat ? FN(inv_fermat)(&r, &in[i]) : FN(inv)(&r, &in[i]);
            if (i == nz) {
                if (ok != 0 || !fe_same(&r, &z))
                    FAIL("%s(0) returned %d and a nonzero value, want 0 and 0", fgb_op_names[op], ok);
                break;
            }
            FN(mul)(&q, &r, &in[i]);
            if (ok != 1 || !fe_same(&q, &one))
                FAIL("%s(a)*a != 1 (or returned %d) on input %d", fgb_op_names[op], ok, i);
            ref_pow(&q, &in[i], e);
            if (!fe_same(&q, &r))
                FAIL("%s(a) != a^(p-2) on input %d", fgb_op_names[op], i);
            if (fermat) {
                FN(inv)(&q, &in[i]);
                if (!fe_same(&q, &r))
                    FAIL("inv_fermat(a) != inv(a) on input %d", i);
            }
        }
        snprintf(msg, len, "%s(a)*a == 1 and == a^(p-2) by square-and-multiply%s on %d inputs "
                 "(random, 1, p-1); %s(0) == 0", fgb_op_names[op], fermat ? " and == inv(a)" : "",
                 nz, fgb_op_names[op]);
        return 1;
    }
    case FGB_INV_BATCH: {
        static fe bin[FGB_BATCH], bout[FGB_BATCH], bsc[FGB_BATCH];
        for (int i = 0; i < FGB_BATCH; i++)
            bin[i] = s->bi[i];
        bin[1] = z, bin[7] = one, bin[FGB_BATCH - 1] = in[W + 1], bin[FGB_BATCH / 2] = z;
        FN(inv_batch)(bout, bin, FGB_BATCH, bsc);
        for (int i = 0; i < FGB_BATCH; i++) {
            FN(inv)(&q, &bin[i]);
            if (!fe_same(&q, &bout[i]))
                FAIL("inv_batch element %d of %d != inv of it", i, FGB_BATCH);
        }
        FN(inv_batch)(bin, bin, FGB_BATCH, bsc); /* in place, as the latency loop runs it */
        for (int i = 0; i < FGB_BATCH; i++)
            if (!fe_same(&bin[i], &bout[i]))
                FAIL("inv_batch in place (out == in) differs at element %d", i);
        FN(inv_batch)(bout, &in[0], 1, bsc);
        FN(inv)(&q, &in[0]);
        if (!fe_same(&q, &bout[0]))
            FAIL("inv_batch with n = 1 != inv");
        snprintf(msg, len, "inv_batch == inv element by element, n = %d (with zeros, 1, p-1) out of place "
                 "and in place, and n = 1", FGB_BATCH);
        return 1;
    }
    case FGB_FROM_BYTES_WIDE: {
        /* the timed length, NB + 16 bytes: the integer a + h 2^(8 NB) (a's
         * encoding below, 16 bytes h above) against a + h T, with T = 256^NB
         * and h built from words by from_u64 and mul */
        uint8_t w[NB + 16], hb[16];
        fe t, h, x, c32;
        FN(from_u64)(&t, 256);
        FN(one)(&q);
        for (int i = 0; i < NB; i++)
            FN(mul)(&q, &q, &t);                      /* T */
        FN(from_u64)(&c32, UINT64_C(1) << 32);
        for (int i = 0; i <= nz; i++) {
            uint64_t hi = UINT64_C(0x9e3779b97f4a7c15) * (uint64_t)(i + 1), lo = ~hi ^ (uint64_t)i;
            for (int k = 0; k < 8; k++) {            /* h = hi 2^64 + lo, 16 bytes */
                hb[k] = (uint8_t)(lo >> (8 * k));
                hb[8 + k] = (uint8_t)(hi >> (8 * k));
            }
            FN(to_bytes)(w + (BIG ? 16 : 0), &in[i]);
            for (int k = 0; k < 16; k++)
                w[BIG ? 15 - k : NB + k] = hb[k];
            if (!FN(from_bytes_wide)(&r, w, sizeof w))
                FAIL("from_bytes_wide rejected %d bytes", (int)sizeof w);
            FN(from_u64)(&h, hi);
            FN(mul)(&h, &h, &c32);
            FN(mul)(&h, &h, &c32);
            FN(from_u64)(&x, lo);
            FN(add)(&h, &h, &x);
            FN(mul)(&h, &h, &q);
            FN(add)(&x, &in[i], &h);
            if (!fe_same(&r, &x))
                FAIL("from_bytes_wide(a + h 2^(8 BYTES)) != a + h 256^BYTES, input %d", i);
        }
        snprintf(msg, len, "from_bytes_wide of a + h 2^(8 BYTES) == a + h 256^BYTES (h 16 bytes), on %d inputs",
                 nz + 1);
        return 1;
    }
    case FGB_MUL_SMALL: {
        /* against mul by the constant as an element, for the timed constant and
         * both ends of the range */
        static const uint32_t cs[] = {FGB_SMALL, 0, 1, 3, 0xffffffffu};
        for (int j = 0; j < (int)(sizeof cs / sizeof cs[0]); j++) {
            fe c;
            FN(from_u64)(&c, cs[j]);
            for (int i = 0; i <= nz; i++) {
                FN(mul_small)(&r, &in[i], cs[j]);
                FN(mul)(&q, &in[i], &c);
                if (!fe_same(&r, &q))
                    FAIL("mul_small(a, %u) != mul(a, from_u64(%u)), input %d", cs[j], cs[j], i);
            }
        }
        snprintf(msg, len, "mul_small(a, c) == mul(a, from_u64(c)), c = %u, 0, 1, 3, 2^32-1, on %d inputs",
                 FGB_SMALL, nz + 1);
        return 1;
    }
    case FGB_IS_SQUARE:
    case FGB_IS_SQUARE_EULER:
    case FGB_SQRT: {
        fe all[NCHK + W];
        int n = 0;
        for (int i = 0; i <= nz; i++)
            all[n++] = in[i];
        for (int j = 0; j < W; j++)
            all[n++] = s->sq[j];
        int squares = 0, non = 0;
        for (int i = 0; i < n; i++) {
            int want = ref_is_square(&all[i]);
            squares += want, non += !want;
            if (i >= nz + 1 && !want)
                FAIL("reference: a^2 is not a square (Euler's criterion), input %d", i);
            if (op == FGB_IS_SQUARE || op == FGB_IS_SQUARE_EULER) {
                int got = op == FGB_IS_SQUARE ? FN(is_square)(&all[i]) : FN(is_square_euler)(&all[i]);
                if (got != want)
                    FAIL("%s != Euler's criterion a^((p-1)/2) on input %d", fgb_op_names[op], i);
            } else {
                int ok = FN(sqrt)(&r, &all[i]);
                FN(sqr)(&q, &r);
                if (ok != want || (ok && !fe_same(&q, &all[i])) || (!ok && !fe_same(&r, &z)))
                    FAIL("sqrt on input %d: returned %d (want %d), or r^2 != a, or r != 0", i, ok, want);
            }
        }
        snprintf(msg, len, "%s against Euler's criterion a^((p-1)/2) by square-and-multiply on %d inputs "
                 "(%d squares incl. 0, %d non-squares)%s", fgb_op_names[op], n, squares, non,
                 op == FGB_SQRT ? "; r^2 == a, r = 0 for a non-square" : "");
        return 1;
    }
#if SQRT_RATIO
    case FGB_SQRT_RATIO: {
        /* u over v for u, v among the inputs (0 included) and the squares:
         * the flag is Euler's criterion on u v (u/v is a square exactly
         * when u v is), r^2 v == u or Z u, r = 0 for v = 0 */
        fe all[NCHK + W], zf, zu;
        int n = 0, squares = 0, non = 0;
        for (int i = 0; i <= nz; i++)
            all[n++] = in[i];
        for (int j = 0; j < W; j++)
            all[n++] = s->sq[j];
        FN(from_u64)(&zf, (uint64_t)(UC(SQRT_RATIO_Z) < 0 ? -(UC(SQRT_RATIO_Z)) : UC(SQRT_RATIO_Z)));
        if (UC(SQRT_RATIO_Z) < 0)
            FN(neg)(&zf, &zf);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j += 3) {
                const fe *u = &all[i], *v = &all[(i + j) % n];
                int vzero = fe_same(v, &z), want;
                FN(mul)(&q, u, v);
                want = vzero ? fe_same(u, &z) : ref_is_square(&q);
                squares += want, non += !want;
                int ok = FN(sqrt_ratio)(&r, u, v);
                FN(sqr)(&q, &r);
                FN(mul)(&q, &q, v);
                FN(mul)(&zu, u, &zf);
                if (ok != want || (vzero && !fe_same(&r, &z)) || (!vzero && !fe_same(&q, want ? u : &zu)))
                    FAIL("sqrt_ratio on inputs %d, %d: returned %d (want %d), or r^2 v != u (Z u), or r != 0 "
                         "for v = 0", i, (i + j) % n, ok, want);
            }
        snprintf(msg, len, "sqrt_ratio(u, v): the flag against Euler's criterion on u v (%d squares, %d not), "
                 "r^2 v == u or Z u, r = 0 for v = 0", squares, non);
        return 1;
    }
#endif
#if FP2
    case FGB_FP2_ADD:
    case FGB_FP2_MUL:
    case FGB_FP2_SQR:
    case FGB_FP2_INV:
    case FGB_FP2_SQRT:
    case FGB_FP2_IS_SQUARE: {
        fe2 x[NCHK2], y, w, t, o2, z2;
        int n2 = fp2_inputs(s, x);
        FN(fp2_one)(&o2);
        FN(fp2_zero)(&z2);
        for (int i = 0; i <= n2; i++) {
            const fe2 *a = &x[i], *b = &s->b2[i % W];
            switch (op) {
            case FGB_FP2_ADD:
                FN(fp2_add)(&y, a, b);
                FN(add)(&w.c0, &a->c0, &b->c0);
                FN(add)(&w.c1, &a->c1, &b->c1);
                if (!fe2_same(&y, &w))
                    FAIL("fp2_add != componentwise add on input %d", i);
                break;
            case FGB_FP2_MUL:
                FN(fp2_mul)(&y, a, b);
                ref_fp2_mul(&w, a, b);
                if (!fe2_same(&y, &w))
                    FAIL("fp2_mul != schoolbook from the base field on input %d", i);
                FN(fp2_mul)(&y, a, a);
                ref_fp2_mul(&w, a, a);
                if (!fe2_same(&y, &w))
                    FAIL("fp2_mul(a, a) != schoolbook on input %d", i);
                break;
            case FGB_FP2_SQR:
                FN(fp2_sqr)(&y, a);
                ref_fp2_mul(&w, a, a);
                if (!fe2_same(&y, &w))
                    FAIL("fp2_sqr != schoolbook a*a on input %d", i);
                break;
            case FGB_FP2_INV: {
                int ok = FN(fp2_inv)(&y, a);
                if (i == n2) {
                    if (ok != 0 || !fe2_same(&y, &z2))
                        FAIL("fp2_inv(0) returned %d and a nonzero value, want 0 and 0", ok);
                    break;
                }
                ref_fp2_mul(&w, &y, a);
                if (ok != 1 || !fe2_same(&w, &o2))
                    FAIL("fp2_inv(a)*a != 1 (schoolbook) or returned %d, input %d", ok, i);
                break;
            }
            case FGB_FP2_SQRT:
            case FGB_FP2_IS_SQUARE:
                for (int sq = 0; sq < 2; sq++) { /* a itself, then a^2 */
                    if (sq)
                        ref_fp2_mul(&t, a, a);
                    else
                        t = *a;
                    int want = ref_fp2_is_square(&t);
                    const char *which = sq ? "the square of input" : "input";
                    if (sq && !want)
                        FAIL("reference: a^2 has a non-square norm, input %d", i);
                    if (op == FGB_FP2_IS_SQUARE) {
                        if (FN(fp2_is_square)(&t) != want)
                            FAIL("fp2_is_square on %s %d != Euler's criterion on the norm (want %d)", which, i, want);
                        continue;
                    }
                    int ok = FN(fp2_sqrt)(&y, &t);
                    ref_fp2_mul(&w, &y, &y);
                    if (ok != want || (ok && !fe2_same(&w, &t)) || (!ok && !fe2_same(&y, &z2)))
                        FAIL("fp2_sqrt on %s %d: returned %d (want %d), or r^2 != a, or r != 0", which, i, ok,
                             want);
                }
                break;
            }
        }
        static const char *const what[] = {
            "fp2_add == componentwise base add", "fp2_mul == schoolbook from base mul/add (a*b, a*a)",
            "fp2_sqr == schoolbook a*a", "fp2_inv(a)*a == 1 (schoolbook mul), fp2_inv(0) == 0",
            "fp2_sqrt: r^2 == a (schoolbook), success iff the norm is a square (Euler), on a and a^2",
            "fp2_is_square == Euler's criterion on the norm (schoolbook a * conj(a)), on a and a^2"};
        snprintf(msg, len, "%s, on %d inputs (random, 0, 1, u, -u, (p-1)(1+u))", what[op - FGB_FP2_ADD], n2 + 1);
        return 1;
    }
    case FGB_FP2_INV_BATCH: {
        static fe2 bin[FGB_BATCH], bout[FGB_BATCH], bsc[FGB_BATCH];
        fe2 x[NCHK2], y;
        int n2 = fp2_inputs(s, x);
        for (int i = 0; i < FGB_BATCH; i++)
            bin[i] = i <= n2 ? x[i] : s->bi2[i]; /* the check inputs (0 among them) first */
        FN(fp2_zero)(&bin[FGB_BATCH - 1]);
        FN(fp2_inv_batch)(bout, bin, FGB_BATCH, bsc);
        for (int i = 0; i < FGB_BATCH; i++) {
            FN(fp2_inv)(&y, &bin[i]);
            if (!fe2_same(&y, &bout[i]))
                FAIL("fp2_inv_batch element %d of %d != fp2_inv of it", i, FGB_BATCH);
        }
        FN(fp2_inv_batch)(bin, bin, FGB_BATCH, bsc); /* in place, as the latency loop runs it */
        for (int i = 0; i < FGB_BATCH; i++)
            if (!fe2_same(&bin[i], &bout[i]))
                FAIL("fp2_inv_batch in place (out == in) differs at element %d", i);
        snprintf(msg, len, "fp2_inv_batch == fp2_inv element by element, n = %d (with zeros, 1, u, -u, "
                 "(p-1)(1+u)) out of place and in place", FGB_BATCH);
        return 1;
    }
#endif
#if LAZY
    case FGB_MUL_LAZY:
    case FGB_SQR_LAZY: {
        /* operands x and x + p (both below 2p): the lazy result below 2p and,
         * made canonical, the canonical product */
        uint64_t p2[N];
        unsigned __int128 c = 0;
        for (int k = 0; k < N; k++) {
            c += (unsigned __int128)FN(P)[k] * 2;
            p2[k] = (uint64_t)c;
            c >>= 64;
        }
        for (int i = 0; i < nz; i++) {
            fe x[2], y = in[(i + 1) % nz], l;
            x[0] = in[i];
            c = 0;
            for (int k = 0; k < N; k++) {
                c += (unsigned __int128)in[i].limb[k] + FN(P)[k];
                x[1].limb[k] = (uint64_t)c;
                c >>= 64;
            }
            for (int v = 0; v < 2; v++) {
                int below = 0;
                if (op == FGB_MUL_LAZY) {
                    FN(mul_lazy)(&l, &x[v], &y);
                    FN(mul)(&r, &in[i], &y);
                } else {
                    FN(sqr_lazy)(&l, &x[v]);
                    FN(sqr)(&r, &in[i]);
                }
                for (int k = N - 1; k >= 0; k--)
                    if (l.limb[k] != p2[k]) {
                        below = l.limb[k] < p2[k];
                        break;
                    }
                FN(canon)(&q, &l);
                if (!below || !fe_same(&q, &r))
                    FAIL("%s on input %d%s: not below 2p, or canon(result) != %s", fgb_op_names[op], i,
                         v ? " + p" : "", op == FGB_MUL_LAZY ? "mul" : "sqr");
            }
        }
        snprintf(msg, len, "%s(x%s) below 2p and canon() of it == %s, x = a and a + p, on %d inputs",
                 fgb_op_names[op], op == FGB_MUL_LAZY ? ", b" : "", op == FGB_MUL_LAZY ? "mul(a, b)" : "sqr(a)", nz);
        return 1;
    }
#endif
    default:
        return -1;
    }
}
#undef FAIL

#define APIU(OP, op) [OP] = {{LOCAL(FGB_CAT(lat_, op)), 1}, {LOCAL(FGB_CAT(thr_, op)), W}}
#define DIRECT_OP(OP, op, L) [OP] = {{LOCAL(klat_##op##_##L), 1}, {LOCAL(kthr_##op##_##L), W}}
#define DIRECT(L)                                                                       \
    {                                                                                   \
        DIRECT_OP(FGB_MUL, mul, L), DIRECT_OP(FGB_SQR, sqr, L),                         \
        DIRECT_OP(FGB_MUL_WIDE, mul_wide, L), DIRECT_OP(FGB_SQR_WIDE, sqr_wide, L),     \
        DIRECT_OP(FGB_REDC, redc, L),                                                   \
    }

const struct fgb_field FGB_CAT(fgb_field_, FG_FIELD) = {
    .name = STR(FG_FIELD),
    .limbs = N,
    .bytes = NB,
    .bits = UC(BITS),
    .montgomery = MONT,
    .have_asm = HAVE_ASM | HAVE_A64,
    .have_fp2 = FP2,
    .p = FN(P),
    .state_size = sizeof(struct state),
    .init = init,
    .inputs = inputs,
    .api = {
        APIU(FGB_MUL, mul), APIU(FGB_SQR, sqr), APIU(FGB_MUL_WIDE, mul_wide),
        APIU(FGB_SQR_WIDE, sqr_wide), APIU(FGB_REDC, redc), APIU(FGB_ADD, add),
        APIU(FGB_SUB, sub), APIU(FGB_NEG, neg), APIU(FGB_MUL_SMALL, mul_small), APIU(FGB_INV, inv), APIU(FGB_INV_FERMAT, inv_fermat),
        [FGB_INV_BATCH] = {{LOCAL(lat_inv_batch), FGB_BATCH}, {LOCAL(thr_inv_batch), FGB_BATCH}},
        APIU(FGB_IS_SQUARE, is_square), APIU(FGB_IS_SQUARE_EULER, is_square_euler), APIU(FGB_SQRT, sqrt),
        APIU(FGB_FROM_BYTES, from_bytes), APIU(FGB_TO_BYTES, to_bytes),
        APIU(FGB_FROM_BYTES_WIDE, from_bytes_wide),
#if SQRT_RATIO
        APIU(FGB_SQRT_RATIO, sqrt_ratio),
#endif
#if LAZY
        APIU(FGB_MUL_LAZY, mul_lazy), APIU(FGB_SQR_LAZY, sqr_lazy),
#endif
#if FP2
        APIU(FGB_FP2_ADD, fp2_add), APIU(FGB_FP2_MUL, fp2_mul), APIU(FGB_FP2_SQR, fp2_sqr),
        APIU(FGB_FP2_INV, fp2_inv), APIU(FGB_FP2_SQRT, fp2_sqrt), APIU(FGB_FP2_IS_SQUARE, fp2_is_square),
        [FGB_FP2_INV_BATCH] = {{LOCAL(lat_fp2_inv_batch), FGB_BATCH}, {LOCAL(thr_fp2_inv_batch), FGB_BATCH}},
#endif
    },
    .label = {
#if FP2
        /* CIRCL's SIDH benchmark names (BenchmarkFp2ElementMul, BenchmarkFp503MontgomeryReduce, ...);
         * the base-field ones carry the bit length of p, as p503 -> Fp503 there */
        [FGB_FP2_ADD] = "Fp2ElementAdd", [FGB_FP2_MUL] = "Fp2ElementMul",
        [FGB_FP2_SQR] = "Fp2ElementSquare", [FGB_FP2_INV] = "Fp2ElementInv",
#if MONT
        [FGB_REDC] = "Fp" STR(UC(BITS)) "MontgomeryReduce", [FGB_MUL] = "Fp" STR(UC(BITS)) "Multiply",
        [FGB_ADD] = "Fp" STR(UC(BITS)) "AddReduced", [FGB_SUB] = "Fp" STR(UC(BITS)) "SubReduced",
#endif
#endif
    },
    .direct = {
        DIRECT(c),
#if HAVE_ASM
        DIRECT(x86_64), DIRECT(bmi2), DIRECT(adx),
#endif
#if HAVE_A64
        [FG_ISA_AARCH64] = DIRECT(aarch64),
#endif
#if ZEN_MUL || ZEN_MUL_WIDE || ZEN_SQR || ZEN_SQR_WIDE || ZEN_REDC
        [FG_KERNEL_ADX_ZEN] = {
#if ZEN_MUL
            DIRECT_OP(FGB_MUL, mul, adx_zen),
#endif
#if ZEN_SQR
            DIRECT_OP(FGB_SQR, sqr, adx_zen),
#endif
#if ZEN_MUL_WIDE
            DIRECT_OP(FGB_MUL_WIDE, mul_wide, adx_zen),
#endif
#if ZEN_SQR_WIDE
            DIRECT_OP(FGB_SQR_WIDE, sqr_wide, adx_zen),
#endif
#if ZEN_REDC
            DIRECT_OP(FGB_REDC, redc, adx_zen),
#endif
        },
#endif
#if IFMA_MUL
        [FG_ISA_IFMA] = {DIRECT_OP(FGB_MUL, mul, ifma),
#if IFMA_SQR
                         DIRECT_OP(FGB_SQR, sqr, ifma),
#endif
        },
#endif
    },
    .via = {
#define VIA(OP, op)                                                                        \
        [OP] = {{{LOCAL(FGB_CAT(vdlat_, op)), 1}, {LOCAL(FGB_CAT(vdthr_, op)), W}},          \
                {{LOCAL(FGB_CAT(vklat_, op)), 1}, {LOCAL(FGB_CAT(vkthr_, op)), W}}}
        VIA(FGB_MUL, mul), VIA(FGB_SQR, sqr), VIA(FGB_MUL_WIDE, mul_wide),
        VIA(FGB_SQR_WIDE, sqr_wide), VIA(FGB_REDC, redc),
#undef VIA
    },
    .via_state = via_state,
    .uses = {
#if HAVE_A64 /* level 1 is aarch64 there, which runs its own kernels */
#define USES_1(U, T) FG_ISA_AARCH64
#else
#define USES_1(U, T) UC(FGB_CAT(U, _AT_X86_64##T##_USES))
#endif
#define USES(OP, U, T) [OP] = {FG_ISA_C, USES_1(U, T), UC(FGB_CAT(U, _AT_BMI2##T##_USES)), \
                               UC(FGB_CAT(U, _AT_ADX##T##_USES)), UC(FGB_CAT(U, _AT_IFMA##T##_USES))}
        [FG_TUNE_GENERIC] = {USES(FGB_MUL, MUL, ), USES(FGB_SQR, SQR, ), USES(FGB_MUL_WIDE, MUL_WIDE, ),
                             USES(FGB_SQR_WIDE, SQR_WIDE, ), USES(FGB_REDC, REDC, )},
#define ZEN_USES {USES(FGB_MUL, MUL, _ZEN), USES(FGB_SQR, SQR, _ZEN), USES(FGB_MUL_WIDE, MUL_WIDE, _ZEN), \
                  USES(FGB_SQR_WIDE, SQR_WIDE, _ZEN), USES(FGB_REDC, REDC, _ZEN)}
        [FG_TUNE_ZEN] = ZEN_USES,
        [FG_TUNE_ZEN4] = ZEN_USES, /* zen's Fp kernels: zen4 differs at ifma in the Fp2 kernels alone */
#undef ZEN_USES
#undef USES
#undef USES_1
    },
#if HAVE_ASM
#define COST(OP, U, K) [OP] = {0, UC(FGB_CAT(U, _X86_64_##K)), UC(FGB_CAT(U, _BMI2_##K)), UC(FGB_CAT(U, _ADX_##K)), 0, \
                               ZEN_COST(U, K)}
#define ZEN_COST(U, K) FGB_CAT(ZEN_COST_, ZEN_##U)(U, K)   /* adx_zen's counts, 0 without one */
#define ZEN_COST_0(U, K) 0
#define ZEN_COST_1(U, K) UC(FGB_CAT(U, _ADX_ZEN_##K))
    .mults = {COST(FGB_MUL, MUL, MULTS), COST(FGB_SQR, SQR, MULTS), COST(FGB_MUL_WIDE, MUL_WIDE, MULTS),
              COST(FGB_SQR_WIDE, SQR_WIDE, MULTS), COST(FGB_REDC, REDC, MULTS)},
    .p06 = {COST(FGB_MUL, MUL, P06), COST(FGB_SQR, SQR, P06), COST(FGB_MUL_WIDE, MUL_WIDE, P06),
            COST(FGB_SQR_WIDE, SQR_WIDE, P06), COST(FGB_REDC, REDC, P06)},
    .alu = {COST(FGB_MUL, MUL, ALU), COST(FGB_SQR, SQR, ALU), COST(FGB_MUL_WIDE, MUL_WIDE, ALU),
            COST(FGB_SQR_WIDE, SQR_WIDE, ALU), COST(FGB_REDC, REDC, ALU)},
#undef COST
#if FP2 && UC(HAVE_FP2_MUL_BMI2)
    .fp2_mults[0][FG_ISA_BMI2] = UC(FP2_MUL_BMI2_MULTS), .fp2_p06[0][FG_ISA_BMI2] = UC(FP2_MUL_BMI2_P06),
    .fp2_alu[0][FG_ISA_BMI2] = UC(FP2_MUL_BMI2_ALU),
#endif
#if FP2 && UC(HAVE_FP2_MUL_ADX)
    .fp2_mults[0][FG_ISA_ADX] = UC(FP2_MUL_ADX_MULTS), .fp2_p06[0][FG_ISA_ADX] = UC(FP2_MUL_ADX_P06),
    .fp2_alu[0][FG_ISA_ADX] = UC(FP2_MUL_ADX_ALU),
#endif
#if FP2 && UC(HAVE_FP2_SQR_BMI2)
    .fp2_mults[1][FG_ISA_BMI2] = UC(FP2_SQR_BMI2_MULTS), .fp2_p06[1][FG_ISA_BMI2] = UC(FP2_SQR_BMI2_P06),
    .fp2_alu[1][FG_ISA_BMI2] = UC(FP2_SQR_BMI2_ALU),
#endif
#if FP2 && UC(HAVE_FP2_SQR_ADX)
    .fp2_mults[1][FG_ISA_ADX] = UC(FP2_SQR_ADX_MULTS), .fp2_p06[1][FG_ISA_ADX] = UC(FP2_SQR_ADX_P06),
    .fp2_alu[1][FG_ISA_ADX] = UC(FP2_SQR_ADX_ALU),
#endif
#if FP2 && UC(HAVE_FP2_MUL_ADX_ZEN)
    .fp2_mults[0][FG_KERNEL_ADX_ZEN] = UC(FP2_MUL_ADX_ZEN_MULTS),
    .fp2_p06[0][FG_KERNEL_ADX_ZEN] = UC(FP2_MUL_ADX_ZEN_P06),
    .fp2_alu[0][FG_KERNEL_ADX_ZEN] = UC(FP2_MUL_ADX_ZEN_ALU),
#endif
#if FP2 && UC(HAVE_FP2_SQR_ADX_ZEN)
    .fp2_mults[1][FG_KERNEL_ADX_ZEN] = UC(FP2_SQR_ADX_ZEN_MULTS),
    .fp2_p06[1][FG_KERNEL_ADX_ZEN] = UC(FP2_SQR_ADX_ZEN_P06),
    .fp2_alu[1][FG_KERNEL_ADX_ZEN] = UC(FP2_SQR_ADX_ZEN_ALU),
#endif
#if FP2
    .fp2_ifma = {UC(HAVE_FP2_IFMA) + 0, UC(HAVE_FP2_SQR_IFMA) + 0},
    .fp2_adx_uses = {{UC(FP2_MUL_AT_ADX_USES), UC(FP2_SQR_AT_ADX_USES)},
                     {UC(FP2_MUL_AT_ADX_ZEN_USES), UC(FP2_SQR_AT_ADX_ZEN_USES)},
                     {UC(FP2_MUL_AT_ADX_ZEN_USES), UC(FP2_SQR_AT_ADX_ZEN_USES)}},
#endif
#endif
    .mul = h_mul,
    .sqr = h_sqr,
    .mul_wide = h_mul_wide,
    .sqr_wide = h_sqr_wide,
    .redc = h_redc,
    .mul_small = h_mul_small,
    .add = h_add,
    .inv = h_inv,
    .one = h_one,
    .selftest = selftest,
    .check = check,
};
