/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* SIDH speed harness (not a test; compiled per field: -DSIDH_F=p503 -DSIDH_FU=P503).
 * SIDH is broken (Castryck-Decru 2022): this measures Fp2 arithmetic.
 *
 *   bench_sidh_NAME [--reps N]
 *
 * Prints RDTSC ticks (LFENCE-fenced, median of N runs) of keygen_a, keygen_b,
 * shared_a, shared_b, the two shared secrets together and the full agreement
 * (all four), and of one fp2_mul and fp2_sqr (a chain of dependent calls,
 * median per call), and each figure divided by that fp2_mul: the unit-free
 * ratio to compare with PQCrypto-SIDH's (the same division of its figures).
 * Then the Fp2 operation counts of each SIDH operation, from a second copy of
 * sidh_impl.h whose field calls go through counting wrappers. Run pinned:
 * taskset -c 1 bench_sidh_p503. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "fg_cpu.h"

#include "sidh_per_field.h"
#include SIDH_FIELD_HEADER
#include SIDH_PARAMS_HEADER

/* ---- the counting copy ------------------------------------------------------ */
typedef FLD(fp2) cnt_fp2;
static unsigned long n_mul, n_sqr, n_add, n_inv;
#define CNT_WRAP_BIN(op, counter)                                                   \
    static void cnt_fp2_##op(cnt_fp2 *r, const cnt_fp2 *a, const cnt_fp2 *b)      \
    {                                                                              \
        counter++;                                                                 \
        FLD(fp2_##op)(r, a, b);                                                    \
    }
CNT_WRAP_BIN(mul, n_mul)
CNT_WRAP_BIN(add, n_add)
CNT_WRAP_BIN(sub, n_add)
static void cnt_fp2_sqr(cnt_fp2 *r, const cnt_fp2 *a)
{
    n_sqr++;
    FLD(fp2_sqr)(r, a);
}
static int cnt_fp2_inv(cnt_fp2 *r, const cnt_fp2 *a)
{
    n_inv++;
    return FLD(fp2_inv)(r, a);
}
static void cnt_fp2_inv_batch(cnt_fp2 *out, const cnt_fp2 *in, size_t n, cnt_fp2 *scratch)
{
    n_inv++;
    n_mul += 3 * (n - 1);
    FLD(fp2_inv_batch)(out, in, n, scratch);
}
#define cnt_fp2 cnt_fp2
#define cnt_fp2_one FLD(fp2_one)
#define cnt_fp2_cswap FLD(fp2_cswap)
#define cnt_fp2_from_bytes FLD(fp2_from_bytes)
#define cnt_fp2_to_bytes FLD(fp2_to_bytes)
#define cnt_from_u64 FLD(from_u64)
#define cnt_zero FLD(zero)

#define SIDH_FIELD(x) cnt_##x
#define SIDH_API(x) cnt_sidh_##x
#define SIDH_PARAM(x) XCAT3(sidh_, SIDH_F, _##x)
#define SIDH_EA K(SKA_BITS)
#define SIDH_SKB_BITS K(SKB_BITS)
#define SIDH_MAX_A XCAT3(SIDH_, SIDH_FU, _MAX_A)
#define SIDH_MAX_B XCAT3(SIDH_, SIDH_FU, _MAX_B)
#define SIDH_PTS_A XCAT3(SIDH_, SIDH_FU, _PTS_A)
#define SIDH_PTS_B XCAT3(SIDH_, SIDH_FU, _PTS_B)
#define SIDH_SKA_BYTES K(SKA_BYTES)
#define SIDH_SKB_BYTES K(SKB_BYTES)
#define SIDH_PK_BYTES K(PK_BYTES)
#define SIDH_SS_BYTES K(SS_BYTES)
#define SIDH_FP2_BYTES FC(FP2_BYTES)
int cnt_sidh_keygen_a(uint8_t pk[SIDH_PK_BYTES], const uint8_t ska[SIDH_SKA_BYTES]);
int cnt_sidh_keygen_b(uint8_t pk[SIDH_PK_BYTES], const uint8_t skb[SIDH_SKB_BYTES]);
int cnt_sidh_shared_a(uint8_t ss[SIDH_SS_BYTES], const uint8_t ska[SIDH_SKA_BYTES], const uint8_t pkb[SIDH_PK_BYTES]);
int cnt_sidh_shared_b(uint8_t ss[SIDH_SS_BYTES], const uint8_t skb[SIDH_SKB_BYTES], const uint8_t pka[SIDH_PK_BYTES]);
#include "sidh_impl.h"

/* ---- timing --------------------------------------------------------------------- */
static inline uint64_t ticks(void)
{
    uint64_t t;
    _mm_lfence();
    t = __rdtsc();
    _mm_lfence();
    return t;
}

/* Nanoseconds of CPU time this thread ran: blind to the time other processes
 * hold the core (the machine is shared), unlike RDTSC. */
static inline uint64_t cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    return v[n / 2];
}

enum { CHAIN = 2000, OPS = 6 };
static uint8_t ska[K(SKA_BYTES)], skb[K(SKB_BYTES)], pka[K(PK_BYTES)], pkb[K(PK_BYTES)], ssa[K(SS_BYTES)],
    ssb[K(SS_BYTES)];

static double fp2_chain(int square, int reps, uint64_t (*clock)(void))
{
    uint64_t *v = malloc(sizeof(uint64_t) * (size_t)reps);
    cnt_fp2 a, b;
    int r, i;
    double out;
    memset(&a, 0, sizeof a);
    FLD(fp2_one)(&a);
    FLD(fp2_add)(&b, &a, &a);
    FLD(fp2_add)(&a, &a, &b);
    a.c1 = b.c0;
    for (r = 0; r < reps; r++) {
        uint64_t t0 = clock();
        for (i = 0; i < CHAIN; i++) {
            if (square)
                FLD(fp2_sqr)(&a, &a);
            else
                FLD(fp2_mul)(&a, &a, &b);
        }
        v[r] = clock() - t0;
    }
    out = (double)median(v, reps) / CHAIN;
    free(v);
    if (FLD(fp2_is_zero)(&a))
        puts("(zero)");
    return out;
}

int main(int argc, char **argv)
{
    const char *names[OPS] = {"keygen_a", "keygen_b", "shared_a", "shared_b", "shared pair (A+B)", "full agreement"};
    uint64_t *v[OPS];
    uint64_t med[OPS];
    int reps = 31, r, i;
    double mul, sqr, m_eq = 0;
    const double tick_to_core = 1.42; /* NOTES.md: RDTSC ~2.6 GHz, core ~3.7 GHz here */
    if (argc == 3 && !strcmp(argv[1], "--reps"))
        reps = atoi(argv[2]);
    for (i = 0; i < (int)sizeof ska; i++)
        ska[i] = (uint8_t)(i * 29 + 3);
    for (i = 0; i < (int)sizeof skb; i++)
        skb[i] = (uint8_t)(i * 41 + 5);
    ska[sizeof ska - 1] &= 1;
    skb[sizeof skb - 1] &= 1;
    for (i = 0; i < OPS; i++)
        v[i] = malloc(sizeof(uint64_t) * (size_t)reps);
    API(keygen_a)(pka, ska);
    API(keygen_b)(pkb, skb);
    mul = fp2_chain(0, 2001, ticks);
    sqr = fp2_chain(1, 2001, ticks);
    for (r = 0; r < reps; r++) {
        uint64_t t[5];
        t[0] = ticks();
        API(keygen_a)(pka, ska);
        t[1] = ticks();
        API(keygen_b)(pkb, skb);
        t[2] = ticks();
        API(shared_a)(ssa, ska, pkb);
        t[3] = ticks();
        API(shared_b)(ssb, skb, pka);
        t[4] = ticks();
        for (i = 0; i < 4; i++)
            v[i][r] = t[i + 1] - t[i];
        v[4][r] = t[4] - t[2];
        v[5][r] = t[4] - t[0];
        if (memcmp(ssa, ssb, sizeof ssa) != 0) {
            puts("the parties disagree");
            return 1;
        }
    }
    mul = (mul + fp2_chain(0, 2001, ticks)) / 2; /* before and after, against drift */
    printf("SIDH%s, level %s, %d runs (median); RDTSC ticks, core cycles ~ ticks x %.2f\n", STR(SIDH_F),
           fg_isa_name(fg_isa_active()), reps, tick_to_core);
    printf("  fp2_mul %.1f ticks (~%.0f core cycles), fp2_sqr %.1f ticks (%.2f x mul)\n", mul, mul * tick_to_core, sqr,
           sqr / mul);
    printf("  %-18s %10s %10s  %-18s %8s %8s\n", "operation", "median", "min", "(ticks)", "med/mul", "min/mul");
    for (i = 0; i < OPS; i++) {
        uint64_t lo;
        med[i] = median(v[i], reps);
        lo = v[i][0]; /* sorted by median() */
        printf("  %-18s %10llu %10llu  ~%6.2f M core cyc %8.0f %8.0f\n", names[i], (unsigned long long)med[i],
               (unsigned long long)lo, (double)med[i] * tick_to_core / 1e6, (double)med[i] / mul, (double)lo / mul);
    }
    printf("  sum of the four medians: %.0f fp2_mul\n", (double)(med[0] + med[1] + med[2] + med[3]) / mul);
    /* The same by thread CPU time (ns), robust to the core being shared. */
    {
        double mul_ns = fp2_chain(0, 2001, cpu_ns), tot = 0;
        for (r = 0; r < reps; r++) {
            uint64_t t[5];
            t[0] = cpu_ns();
            API(keygen_a)(pka, ska);
            t[1] = cpu_ns();
            API(keygen_b)(pkb, skb);
            t[2] = cpu_ns();
            API(shared_a)(ssa, ska, pkb);
            t[3] = cpu_ns();
            API(shared_b)(ssb, skb, pka);
            t[4] = cpu_ns();
            for (i = 0; i < 4; i++)
                v[i][r] = t[i + 1] - t[i];
            v[4][r] = t[4] - t[2];
            v[5][r] = t[4] - t[0];
        }
        mul_ns = (mul_ns + fp2_chain(0, 2001, cpu_ns)) / 2;
        printf("  thread CPU time: fp2_mul %.1f ns\n", mul_ns);
        for (i = 0; i < OPS; i++) {
            med[i] = median(v[i], reps);
            printf("  %-18s %8.3f ms  %8.0f fp2_mul\n", names[i], (double)med[i] / 1e6, (double)med[i] / mul_ns);
            if (i < 4)
                tot += (double)med[i];
        }
        printf("  sum of the four medians: %.0f fp2_mul\n", tot / mul_ns);
    }
    /* Operation counts. */
    {
        unsigned long m[4], s[4], a[4], inv[4];
        for (i = 0; i < 4; i++) {
            n_mul = n_sqr = n_add = n_inv = 0;
            if (i == 0) cnt_sidh_keygen_a(pka, ska);
            if (i == 1) cnt_sidh_keygen_b(pkb, skb);
            if (i == 2) cnt_sidh_shared_a(ssa, ska, pkb);
            if (i == 3) cnt_sidh_shared_b(ssb, skb, pka);
            m[i] = n_mul, s[i] = n_sqr, a[i] = n_add, inv[i] = n_inv;
        }
        printf("  Fp2 operations (mul, sqr, add/sub, inversions; ladder and walk; timed fp2_mul-equivalent = mul + sqr x %.2f):\n",
               sqr / mul);
        for (i = 0; i < 4; i++)
            printf("  %-18s %6lu mul %6lu sqr %6lu add %lu inv  = %8.0f mul-equivalents\n", names[i], m[i], s[i], a[i],
                   inv[i], (double)m[i] + (double)s[i] * sqr / mul);
        for (i = 0; i < 4; i++)
            m_eq += (double)m[i] + (double)s[i] * sqr / mul;
        printf("  all four: %.0f mul-equivalents\n", m_eq);
    }
    for (i = 0; i < OPS; i++)
        free(v[i]);
    return 0;
}
