/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen-bench: timing core.
 *
 * Method (printed with every table):
 * - RDTSC fenced by LFENCE on both sides (on AArch64: CNTVCT_EL0 between ISBs), on a
 *   thread pinned to one core.
 * - A case is a loop of `iters` iterations calling the measured function `calls`
 *   times each; one timed run of that loop is a batch. `iters` is calibrated so a
 *   batch lasts at least target_batch_ticks. Statistics are over batches.
 * - Overhead is measured, not assumed: T0 = median ticks of an empty timed region
 *   (the fences and RDTSCs), L = median ticks per iteration of an empty loop with the
 *   same barrier. Per call = ((batch - T0) / iters - L) / calls.
 * - All cases of a group (one field and op) are measured in interleaved rounds, each
 *   round starting with an untimed warm-up batch, so frequency drift and noisy
 *   neighbours spread over the whole group instead of biasing one row.
 */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "fgb.h"
#include "fg_cpu.h"
#include "fgb_peers.h"

const char *const fgb_op_names[FGB_NOPS] = {
    "mul", "sqr", "mul_wide", "sqr_wide", "redc", "add", "sub", "neg", "mul_small",
    "inv", "inv_fermat", "inv_batch", "is_square", "is_square_euler", "sqrt", "from_bytes", "to_bytes",
    "from_bytes_wide",
    "mul_lazy", "sqr_lazy",
    "fp2_add", "fp2_mul", "fp2_sqr", "fp2_inv", "fp2_sqrt", "fp2_is_square", "fp2_inv_batch", "sqrt_ratio",
};
/* levels 2..4 exist on x86-64 alone (fg_isa_force refuses them on AArch64) */
const char *const fgb_level_names[FGB_NLEVELS] = {"c", FGB_ASM_LEVEL, "bmi2", "adx", "ifma"};
const char *const fgb_kernel_names[FGB_NKERNELS] = {"c", FGB_ASM_LEVEL, "bmi2", "adx", "ifma", "adx_zen"};

int fgb_kernel_level(int kernel)
{
    return kernel == FG_KERNEL_ADX_ZEN ? FG_ISA_ADX : kernel;
}

uint64_t fgb_rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double g_t0, g_loop; /* measured overhead: ticks per batch, ticks per iteration */

/* The clock (fgb.h): the TSC on x86-64, the generic timer's virtual count on AArch64.
 * The fences keep the timed code from moving across the read: LFENCE waits for the
 * instructions before it to complete; ISB does as much for MRS, which may otherwise
 * read the counter early or late. */
static inline uint64_t tsc(void)
{
#if defined(__aarch64__)
    uint64_t t;
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(t) : : "memory");
    return t;
#else
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
#endif
}

#if defined(__aarch64__)
static double counter_hz(void) /* CNTFRQ_EL0: the rate the firmware states for the count */
{
    uint64_t f;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
    return (double)f;
}

/* The step the count is seen to move by between two reads: the reads' own cost
 * in ticks, or the count's granularity where that is coarser (qemu-user moves it
 * about once a microsecond); the median of 15 observed steps */
static double counter_step(void)
{
    double v[15];
    for (int k = 0; k < 15; k++) {
        uint64_t a = tsc(), b;
        while ((b = tsc()) == a)
            ;
        v[k] = (double)(b - a);
    }
    return fgb_median(v, 15);
}
#endif

void fgb_clock_adjust(struct fgb_timer_cfg *c)
{
#if defined(__aarch64__)
    /* The same wall time as on a ~3 GHz TSC, in counter ticks (CNTFRQ unset: assume
     * 1 GHz), and at least 100 steps of the count a batch (1% resolution) */
    double k = counter_hz() > 0 ? counter_hz() / 3e9 : 1.0 / 3, floor = 100 * counter_step();
    c->target_batch_ticks *= k;
    if (c->target_batch_ticks < floor)
        c->target_batch_ticks = floor;
    c->budget_ticks *= k;
    if (c->budget_ticks < 50 * c->target_batch_ticks)
        c->budget_ticks = 50 * c->target_batch_ticks;
#else
    (void)c; /* the figures are TSC ticks already */
#endif
}

int fgb_pin_cpu(int *cpu_out)
{
    cpu_set_t allowed, one;
    int cpu = -1;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return -1;
    if (CPU_ISSET(1, &allowed))
        cpu = 1;
    else
        for (int i = 0; i < CPU_SETSIZE; i++)
            if (CPU_ISSET(i, &allowed)) {
                cpu = i;
                break;
            }
    if (cpu < 0)
        return -1;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return -1;
    if (cpu_out)
        *cpu_out = cpu;
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void fgb_spin_warmup(double seconds)
{
    volatile uint64_t x = 1;
    double end = now_s() + seconds;
    while (now_s() < end)
        for (int i = 0; i < 10000; i++)
            x = x * 6364136223846793005ULL + 1;
}

double fgb_tsc_hz(void)
{
    double best = 0;
    for (int k = 0; k < 3; k++) {
        double t0 = now_s();
        uint64_t c0 = tsc();
        while (now_s() - t0 < 0.02)
            ;
        double t1 = now_s();
        uint64_t c1 = tsc();
        best = (double)(c1 - c0) / (t1 - t0); /* the last (warmest) estimate */
    }
    return best;
}

#if defined(__x86_64__)
/* Dependent chains of known latency: 64-bit IMUL (3 cycles on every x86-64 core of
 * the last decade) and ADD reg,reg (1 cycle). Min over repeats is the cleanest. */
#define CHAIN 10000
static uint64_t chain_imul(int reps)
{
    uint64_t best = UINT64_MAX, x = 3;
    for (int r = 0; r < reps; r++) {
        uint64_t t0 = tsc();
        for (int i = 0; i < CHAIN / 10; i++)
            __asm__ __volatile__(".rept 10\n\timulq %0, %0\n\t.endr" : "+r"(x));
        uint64_t t1 = tsc();
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    return best;
}
static uint64_t chain_add(int reps)
{
    uint64_t best = UINT64_MAX, x = 3, y = 5;
    for (int r = 0; r < reps; r++) {
        uint64_t t0 = tsc();
        for (int i = 0; i < CHAIN / 10; i++)
            __asm__ __volatile__(".rept 10\n\taddq %1, %0\n\t.endr" : "+r"(x) : "r"(y));
        uint64_t t1 = tsc();
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    return best;
}
#endif

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double fgb_core_per_tick(char *detail, size_t len)
{
#if defined(__aarch64__)
    /* No multiply latency holds on every AArch64 core, so no chain can tell core
     * cycles here: the figures stay in counter ticks (fgb.h) */
    snprintf(detail, len,
             "CNTVCT_EL0 counts at %.4g MHz (CNTFRQ_EL0), a fixed rate unrelated to the core clock, "
             "%.3g ns a tick, seen to move in steps of %.0f; no core-cycle conversion on AArch64",
             counter_hz() / 1e6, counter_hz() > 0 ? 1e9 / counter_hz() : 0.0, counter_step());
    return 0.0;
#else
    /* Each chain: CHAIN/10 loop iterations x 10 instructions; the loop's own branch runs
     * in parallel with the chain. Repeat in rounds and keep the median of per-round mins.
     * Call fgb_measure_overhead() first: its T0 is subtracted. */
    double ri[9], ra[9];
    for (int k = 0; k < 9; k++) {
        /* g_t0 (fences + RDTSC, measured first) is not part of the chain */
        double ti = (double)chain_imul(100) - g_t0, ta = (double)chain_add(100) - g_t0;
        ri[k] = 3.0 * CHAIN / ti;
        ra[k] = 1.0 * CHAIN / ta;
    }
    qsort(ri, 9, sizeof ri[0], cmp);
    qsort(ra, 9, sizeof ra[0], cmp);
    double r_imul = ri[4], r_add = ra[4];
    double spread = fabs(r_imul - r_add) / r_imul;
    int ok = spread < 0.03 && r_imul > 0.2 && r_imul < 8;
    snprintf(detail, len,
             "core cycles per TSC tick: %.3f from a dependent IMUL chain (3 cycles each), "
             "%.3f from an ADD chain (1 cycle each); %s",
             r_imul, r_add,
             ok ? "they agree within 3%, using the IMUL figure"
                : "they disagree, so figures stay in TSC ticks");
    return ok ? r_imul : 0.0;
#endif
}

/* The product-row probe (research/ports/rows.py): rows as the adx kernels write
 * them, 8 MULX by rdx (loaded per row) with the other operand from memory, each
 * MULX's halves added by ADCX and ADOX into a 9-word window that moves up a word
 * a row, the row's low word stored; 8 rows a loop iteration. fgb_rows_mulx runs
 * the same rows with the MULX alone. Both take (iterations, a[8], b[8]). On cores
 * where MULX and the ALU instructions share issue (Zen 3) the full row costs
 * 1.2-1.35x the MULX alone; where MULX has ports of its own (the Intel cores
 * measured) the additions hide beside it. Top-level assembly (no .S needed by
 * the bench), ELF only, like the rest of the bench; x86-64 only (0 elsewhere). */
#if defined(__x86_64__)
#define FGB_ROWS_ASM(name, adds)                                                        \
    ".text\n.p2align 5\n.type " name ",@function\n" name ":\n"                          \
    "pushq %rbx\npushq %rbp\npushq %r12\npushq %r13\npushq %r14\npushq %r15\n"          \
    "subq $64, %rsp\nmovq %rdx, %r8\n.p2align 5\n1:\n"                                  \
    "fgb_row 0, " adds ", %r9, %r10, %r11, %r12, %r13, %r14, %r15, %rbx, %rbp\n"       \
    "fgb_row 8, " adds ", %r10, %r11, %r12, %r13, %r14, %r15, %rbx, %rbp, %r9\n"       \
    "fgb_row 16, " adds ", %r11, %r12, %r13, %r14, %r15, %rbx, %rbp, %r9, %r10\n"      \
    "fgb_row 24, " adds ", %r12, %r13, %r14, %r15, %rbx, %rbp, %r9, %r10, %r11\n"      \
    "fgb_row 32, " adds ", %r13, %r14, %r15, %rbx, %rbp, %r9, %r10, %r11, %r12\n"      \
    "fgb_row 40, " adds ", %r14, %r15, %rbx, %rbp, %r9, %r10, %r11, %r12, %r13\n"      \
    "fgb_row 48, " adds ", %r15, %rbx, %rbp, %r9, %r10, %r11, %r12, %r13, %r14\n"      \
    "fgb_row 56, " adds ", %rbx, %rbp, %r9, %r10, %r11, %r12, %r13, %r14, %r15\n"      \
    "decq %rdi\njnz 1b\naddq $64, %rsp\n"                                               \
    "popq %r15\npopq %r14\npopq %r13\npopq %r12\npopq %rbp\npopq %rbx\nret\n"           \
    ".size " name ", .-" name "\n"
__asm__(".macro fgb_mulx_add j, adds, lo, hi\n"
        "mulxq 8*\\j(%r8), %rax, %rcx\n"
        ".if \\adds\nadcxq %rax, \\lo\nadoxq %rcx, \\hi\n.endif\n"
        ".endm\n"
        ".macro fgb_row off, adds, w0, w1, w2, w3, w4, w5, w6, w7, w8\n"
        "movq \\off(%rsi), %rdx\nxorl %eax, %eax\n"
        "fgb_mulx_add 0, \\adds, \\w0, \\w1\nfgb_mulx_add 1, \\adds, \\w1, \\w2\n"
        "fgb_mulx_add 2, \\adds, \\w2, \\w3\nfgb_mulx_add 3, \\adds, \\w3, \\w4\n"
        "fgb_mulx_add 4, \\adds, \\w4, \\w5\nfgb_mulx_add 5, \\adds, \\w5, \\w6\n"
        "fgb_mulx_add 6, \\adds, \\w6, \\w7\nfgb_mulx_add 7, \\adds, \\w7, \\w8\n"
        "movq \\w0, \\off(%rsp)\n"
        ".endm\n" FGB_ROWS_ASM("fgb_rows_full", "1") FGB_ROWS_ASM("fgb_rows_mulx", "0")
        ".purgem fgb_row\n.purgem fgb_mulx_add\n");
void fgb_rows_full(long iters, const uint64_t *a, const uint64_t *b);
void fgb_rows_mulx(long iters, const uint64_t *a, const uint64_t *b);

#endif

int fgb_row_probe(double *mulx_ticks, double *op_ticks)
{
#if !defined(__x86_64__)
    (void)mulx_ticks, (void)op_ticks;
    return 0;
#else
    unsigned a7, b7, c7, d7;
    __asm__("cpuid" : "=a"(a7), "=b"(b7), "=c"(c7), "=d"(d7) : "a"(7), "c"(0));
    if ((b7 & 0x80100) != 0x80100) /* BMI2 and ADX */
        return 0;
    enum { ROUNDS = 101, ITERS = 256 };
    uint64_t a[8], b[8], s = 7;
    for (int i = 0; i < 8; i++) {
        a[i] = fgb_rng_next(&s);
        b[i] = fgb_rng_next(&s);
    }
    double tm[ROUNDS], tf[ROUNDS];
    fgb_rows_full(ITERS, a, b); /* warm */
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t t0 = tsc();
        fgb_rows_mulx(ITERS, a, b);
        uint64_t t1 = tsc();
        fgb_rows_full(ITERS, a, b);
        uint64_t t2 = tsc();
        tm[r] = ((double)(t1 - t0) - g_t0) / (ITERS * 64.0);      /* per MULX */
        tf[r] = ((double)(t2 - t1) - g_t0) / (ITERS * 64.0 * 3);  /* per operation: 24 a row */
    }
    *mulx_ticks = fgb_median(tm, ROUNDS);
    *op_ticks = fgb_median(tf, ROUNDS);
    return 1;
#endif
}

double fgb_median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof v[0], cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void empty_loop(void *s, size_t n)
{
    (void)s;
    for (size_t i = 0; i < n; i++)
        __asm__ __volatile__("" ::: "memory");
}
static fgb_loop_fn volatile empty_fn = empty_loop;

void fgb_measure_overhead(double *t0_ticks, double *loop_ticks_per_iter)
{
    enum { K = 1001, ITERS = 2000 };
    static double v[K];
    for (int k = 0; k < K; k++) {
        uint64_t a = tsc();
        empty_fn(NULL, 0);
        uint64_t b = tsc();
        v[k] = (double)(b - a);
    }
    g_t0 = fgb_median(v, K);
    for (int k = 0; k < K; k++) {
        uint64_t a = tsc();
        empty_fn(NULL, ITERS);
        uint64_t b = tsc();
        v[k] = ((double)(b - a) - g_t0) / ITERS;
    }
    g_loop = fgb_median(v, K);
    if (g_loop < 0)
        g_loop = 0;
    *t0_ticks = g_t0;
    *loop_ticks_per_iter = g_loop;
}

static fg_isa g_default_isa;
static int g_default_isa_set;

void fgb_set_default_isa(int isa)
{
    g_default_isa = (fg_isa)isa;
    g_default_isa_set = 1;
}

static void select_isa(const struct fgb_case *c)
{
    if (!g_default_isa_set)
        fgb_set_default_isa(fg_isa_active());
    fg_isa_force(c->force_isa >= 0 ? (fg_isa)c->force_isa : g_default_isa);
    fgb_peers_mask(c->openssl_mask);
}

static uint64_t batch(const struct fgb_case *c, size_t iters)
{
    uint64_t a = tsc();
    c->loop.fn(c->state, iters);
    uint64_t b = tsc();
    return b - a;
}

/* The median of a[i] - b[i] (ratio 0) or a[i] / b[i] (ratio 1) over the batches
 * both cases have, and its 95% confidence interval (fgb.h) */
static int paired(const struct fgb_case *a, const struct fgb_case *b, int ratio, double out[3])
{
    int m = a->n_ordered < b->n_ordered ? a->n_ordered : b->n_ordered;
    if (!a->ordered || !b->ordered || m < FGB_PAIRED_MIN)
        return 0;
    double *d = malloc((size_t)m * sizeof *d);
    if (!d)
        return 0;
    for (int i = 0; i < m; i++)
        d[i] = ratio ? a->ordered[i] / b->ordered[i] : a->ordered[i] - b->ordered[i];
    out[0] = fgb_median(d, m); /* sorts d */
    /* ranks m/2 -+ 1.96 sqrt(m)/2 (1-based), clamped */
    double h = 0.98 * sqrt((double)m);
    int lo = (int)floor(0.5 * m - h), hi = (int)ceil(0.5 * m + h);
    if (lo < 1)
        lo = 1;
    if (hi > m)
        hi = m;
    out[1] = d[lo - 1];
    out[2] = d[hi - 1];
    free(d);
    return m;
}

int fgb_paired_delta(const struct fgb_case *a, const struct fgb_case *b, double out[3])
{
    return paired(a, b, 0, out);
}

int fgb_paired_ratio(const struct fgb_case *a, const struct fgb_case *b, double out[3])
{
    return paired(a, b, 1, out);
}

void fgb_measure_group(struct fgb_case *cs, int n, const struct fgb_timer_cfg *cfg)
{
    if (n <= 0)
        return;
    /* Calibrate: double iters until one batch reaches the target (best of 3). */
    for (int i = 0; i < n; i++) {
        struct fgb_case *c = &cs[i];
        select_isa(c);
        size_t it = 1;
        double bt = 0;
        for (;;) {
            uint64_t best = UINT64_MAX;
            for (int k = 0; k < 3; k++) {
                uint64_t t = batch(c, it);
                if (t < best)
                    best = t;
                if ((double)t > 20 * cfg->target_batch_ticks)
                    break; /* long calls: one try is plenty */
            }
            bt = (double)best;
            if (bt >= cfg->target_batch_ticks || it >= ((size_t)1 << 26))
                break;
            size_t grow = bt > 0 ? (size_t)(1.2 * cfg->target_batch_ticks / bt * (double)it) : 2 * it;
            it = grow > 2 * it ? grow : 2 * it;
        }
        c->st.iters = it;
        int want = cfg->batches;
        if (bt * want > cfg->budget_ticks)
            want = (int)(cfg->budget_ticks / bt);
        if (want < cfg->min_batches)
            want = cfg->min_batches;
        c->want = want;
        c->samples = calloc((size_t)want, sizeof(double));
        c->nsamples = 0;
        c->st.allocs_per_call = 0;
    }
    uint64_t *allocs = calloc((size_t)n, sizeof *allocs);
    double *calls = calloc((size_t)n, sizeof *calls);
    int rounds = cfg->rounds < 1 ? 1 : cfg->rounds;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) {
            struct fgb_case *c = &cs[i];
            int upto = (int)((long)c->want * (r + 1) / rounds);
            if (c->nsamples >= upto)
                continue;
            select_isa(c);
            batch(c, c->st.iters); /* warm-up: caches, predictors, frequency */
            int start = c->nsamples;
            uint64_t a0 = fgb_alloc_count();
            while (c->nsamples < upto) {
                uint64_t t = batch(c, c->st.iters);
                double per = (((double)t - g_t0) / (double)c->st.iters - g_loop) / c->loop.calls;
                c->samples[c->nsamples++] = per;
            }
            allocs[i] += fgb_alloc_count() - a0;
            calls[i] += (double)(upto - start) * (double)c->st.iters * c->loop.calls;
        }
    }
    for (int i = 0; i < n; i++) {
        struct fgb_case *c = &cs[i];
        int m = c->nsamples;
        if (c->ordered) {
            c->n_ordered = m < c->max_ordered ? m : c->max_ordered;
            memcpy(c->ordered, c->samples, (size_t)c->n_ordered * sizeof(double));
        }
        qsort(c->samples, (size_t)m, sizeof(double), cmp);
        c->st.batches = m;
        c->st.min = c->samples[0];
        c->st.max = c->samples[m - 1];
        c->st.median = m % 2 ? c->samples[m / 2] : 0.5 * (c->samples[m / 2 - 1] + c->samples[m / 2]);
        c->st.q1 = c->samples[m / 4];
        c->st.q3 = c->samples[(3 * m) / 4 < m ? (3 * m) / 4 : m - 1];
        c->st.allocs_per_call = calls[i] > 0 ? (double)allocs[i] / calls[i] : 0;
        free(c->samples);
        c->samples = NULL;
    }
    if (g_default_isa_set)
        fg_isa_force(g_default_isa);
    fgb_peers_mask(0);
    free(allocs);
    free(calls);
}
