/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen-bench: shared declarations.
 *
 * The benchmark is split by concern:
 *   fgb_field.c  generic per-field source, compiled once per field with
 *                -DFG_FIELD=name -DFG_FIELD_UC=NAME; exports `fgb_field_<name>`,
 *                a table of timing loops (public entry points and per-level kernels).
 *   fgb_timer.c  timing core (RDTSC, or CNTVCT_EL0 on AArch64): pinning, TSC/core ratio,
 *                overhead, batches, stats.
 *   fgb_peers.c  OpenSSL and GMP peers: selection by modulus, checks, timing loops.
 *   fgb_alloc.c  malloc/calloc/realloc/free interposition with counters.
 *   fgb_json.c   JSON writer helpers and a small JSON reader (for --compare/--from-json).
 *   fgb_icount.c --instructions: instructions per call under Valgrind's callgrind.
 *   fgb_main.c   command line, orchestration, table, compare, plot, threads.
 * Nothing here knows a field by name: the list of fields comes from CMake
 * (FIELDGEN_FIELDS) through the generated header fgb_fields.h.
 */
#ifndef FGB_H
#define FGB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "fg_cpu.h" /* FG_TUNES */

enum fgb_op {
    FGB_MUL, FGB_SQR, FGB_MUL_WIDE, FGB_SQR_WIDE, FGB_REDC, /* kernel ops: per-level entry points */
    FGB_ADD, FGB_SUB, FGB_NEG,
    FGB_MUL_SMALL,  /* r = c a, c = FGB_SMALL (a 32-bit curve constant) */
    FGB_INV,        /* safegcd (Bernstein-Yang) */
    FGB_INV_FERMAT, /* a^(p-2) over the generated addition chain */
    FGB_INV_BATCH,  /* Montgomery's trick over FGB_BATCH elements; figures are per element */
    FGB_IS_SQUARE,       /* divsteps (4 limbs and more) or binary GCD */
    FGB_IS_SQUARE_EULER, /* a^((p-1)/2) over the generated addition chain */
    FGB_SQRT, FGB_FROM_BYTES, FGB_TO_BYTES,
    FGB_FROM_BYTES_WIDE, /* BYTES + 16 bytes (RFC 9380's L for 128-bit security) mod p */
    /* mul and sqr without the final subtraction (fields whose header has
     * FG_NAME_HAVE_LAZY 1; loops are NULL otherwise), compared with the peers' mul and sqr */
    FGB_MUL_LAZY, FGB_SQR_LAZY,
    /* Fp2 (fields whose header has FG_NAME_HAVE_FP2 1; loops are NULL otherwise) */
    FGB_FP2_ADD, FGB_FP2_MUL, FGB_FP2_SQR, FGB_FP2_INV, FGB_FP2_SQRT,
    FGB_FP2_IS_SQUARE, /* the Legendre symbol of the norm */
    FGB_FP2_INV_BATCH, /* Montgomery's trick over FGB_BATCH Fp2 elements; figures are per element */
    FGB_SQRT_RATIO,    /* RFC 9380's sqrt_ratio(u, v) (fields whose header has FG_NAME_HAVE_SQRT_RATIO 1) */
    FGB_NOPS
};
/* What differs by architecture, in one place (the rest of the bench is the same
 * code on both). The level values are per architecture (fg_cpu.h): level 1 is
 * x86_64 on x86-64 and aarch64 on AArch64, where no level lies above it. The
 * clock: on x86-64 the TSC (RDTSC fenced by LFENCE), whose ticks the bench converts
 * to core cycles when it can (fgb_core_per_tick); on AArch64 the generic timer's
 * virtual count CNTVCT_EL0 (read between ISBs), whose ticks run at a fixed rate
 * (CNTFRQ_EL0, often 24 MHz to 1 GHz) unrelated to the core clock, so figures stay
 * in counter ticks there. */
#if defined(__aarch64__)
#define FGB_ASM_LEVEL "aarch64"
#define FGB_TICKS "counter ticks"
#define FGB_CLOCK_NAME "CNTVCT_EL0"
#define FGB_CLOCK_METHOD "CNTVCT_EL0 between ISBs"
#define FGB_CLOCK_READ "MRS"
#define FGB_BASE_PATH "(MUL/UMULH)" /* the peers' path at level 1 */
#else
#define FGB_ASM_LEVEL "x86_64"
#define FGB_TICKS "TSC ticks"
#define FGB_CLOCK_NAME "TSC"
#define FGB_CLOCK_METHOD "RDTSC+LFENCE"
#define FGB_CLOCK_READ "RDTSC"
#define FGB_BASE_PATH "(MULQ)"
#endif
#define FGB_NKERNEL_OPS 5 /* ops FGB_MUL..FGB_REDC exist as fg_NAME_OP_LEVEL */
#define FGB_NLEVELS 5     /* fg_isa: c, x86_64, bmi2, adx, ifma */
#define FGB_NKERNELS FG_KERNELS /* kernel ids: the levels' (fg_isa), then adx's Zen form (FG_KERNEL_ADX_ZEN) */
#define FGB_MAXLIMBS 16
#define FGB_WAYS 8        /* independent calls per iteration of a throughput loop */
#define FGB_BATCH 64      /* elements per fg_NAME_inv_batch (and fp2_inv_batch) call */
#define FGB_SMALL 121666u /* mul_small's constant: X25519's (A + 2) / 4 */

extern const char *const fgb_op_names[FGB_NOPS];
extern const char *const fgb_level_names[FGB_NLEVELS];
extern const char *const fgb_kernel_names[FGB_NKERNELS]; /* fgb_level_names, then "adx_zen" */
int fgb_kernel_level(int kernel);                         /* the level whose instructions it uses */

/* A timing loop: `iters` iterations of `calls` calls each (see struct fgb_loop). */
typedef void (*fgb_loop_fn)(void *state, size_t iters);

struct fgb_loop {
    fgb_loop_fn fn;
    int calls; /* calls of the measured function per iteration */
};

/* Latency: each call's output is the next call's input (a dependency chain).
 * Throughput: FGB_WAYS independent calls per iteration on distinct inputs. */
struct fgb_loops {
    struct fgb_loop lat, thr;
};

/* What fgb_field.c exports for one field. Limb arrays are little-endian
 * 64-bit limbs; "internal" means the field's own representation (Montgomery
 * x*R mod p, or plain x for pseudo-Mersenne fields). */
struct fgb_field {
    const char *name;
    int limbs, bytes, bits, montgomery, have_asm, have_fp2;
    const uint64_t *p;               /* the modulus, `limbs` limbs */
    size_t state_size;
    void (*init)(void *state, uint64_t seed); /* random canonical inputs, deterministic in seed */
    /* inputs: FGB_WAYS values a[] and b[] (internal, canonical), stride `limbs` */
    void (*inputs)(const void *state, const uint64_t **a, const uint64_t **b);
    struct fgb_loops api[FGB_NOPS];                           /* fg_NAME_OP (dispatched); fn NULL if absent */
    /* Names of the same benchmark in the SIDH libraries (CIRCL's Fp2ElementMul,
     * Fp503MontgomeryReduce, ...), derived from the field's macros; NULL if none. */
    const char *label[FGB_NOPS];
    struct fgb_loops direct[FGB_NKERNELS][FGB_NKERNEL_OPS];   /* fg_NAME_OP_KERNEL, fn NULL if absent */
    /* Dispatch overhead (fgb_field.c "one loop, two callees"): via[op][0] calls the
     * entry point fg_NAME_OP, via[op][1] a level's kernel, with the same loop code; the
     * loops take via_state(state, -1) or via_state(state, kernel id) as their state. */
    struct fgb_loops via[FGB_NKERNEL_OPS][2];
    void *(*via_state)(void *state, int kernel);
    /* uses[tune][op][level]: the kernel id fg_NAME_OP runs at `level` under tuning
     * `tune` (the header's FG_NAME_OP_AT_LEVEL_USES and _ZEN_USES: the backend may
     * route an op to another level's kernel, or on Zen to adx's Zen form) */
    int uses[FG_TUNES][FGB_NKERNEL_OPS][FGB_NLEVELS];
    /* What the kernel fg_NAME_OP_KERNEL executes, from the header's FG_NAME_OP_KERNEL_MULTS
     * , _P06 and _ALU (gen/fg/targets/x86_64/cost.py): 64x64 multiplications, carry/select/shift
     * instructions (ports 0 and 6), ALU instructions; by kernel id, 0 where there is none */
    int mults[FGB_NKERNEL_OPS][FGB_NKERNELS], p06[FGB_NKERNEL_OPS][FGB_NKERNELS], alu[FGB_NKERNEL_OPS][FGB_NKERNELS];
    /* The same for the scalar Fp2 kernels fg_NAME_fp2_OP_KERNEL ([0] mul, [1] sqr; by
     * kernel id, 0 where the field has none): fg_NAME_fp2_OP runs them at their level,
     * and adx's at ifma unless fp2_ifma[k] (that level has an IFMA kernel for the op);
     * fp2_adx_uses[tune][k]: the kernel id of the scalar kernel run at adx under `tune`. */
    int fp2_mults[2][FGB_NKERNELS], fp2_p06[2][FGB_NKERNELS], fp2_alu[2][FGB_NKERNELS], fp2_ifma[2];
    int fp2_adx_uses[FG_TUNES][2];
    /* Untimed helpers for peer checks (dispatched entry points, limb arrays). */
    void (*mul)(uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*sqr)(uint64_t *r, const uint64_t *a);
    void (*mul_wide)(uint64_t *t, const uint64_t *a, const uint64_t *b);
    void (*sqr_wide)(uint64_t *t, const uint64_t *a);
    void (*redc)(uint64_t *r, const uint64_t *t);
    void (*mul_small)(uint64_t *r, const uint64_t *a, uint32_t c);
    void (*add)(uint64_t *r, const uint64_t *a, const uint64_t *b);
    int (*inv)(uint64_t *r, const uint64_t *a);
    void (*one)(uint64_t *r);
    /* Consistency of the kernels at every level against the dispatched entry
     * point, on the field's inputs; returns the number of mismatches, writes a
     * description of the first to msg. */
    int (*selftest)(void *state, char *msg, size_t msglen);
    /* Result check of one public op against a reference built from other parts of
     * the API (inv(a)*a == 1, inv == a^(p-2) by square-and-multiply, batch ==
     * individual inv, Fp2 mul == schoolbook from base-field mul/add, ...), at the
     * currently active ISA level. Returns 1 if every input matched (msg says what
     * was checked), 0 on a mismatch (msg describes the first), -1 if the op has
     * no such check. */
    int (*check)(void *state, int op, char *msg, size_t msglen);
};

/* ---- timing core (fgb_timer.c) ---- */
struct fgb_stats {
    double median, min, max, q1, q3; /* per call, TSC ticks, overhead subtracted */
    int batches;
    size_t iters;                    /* iterations per batch */
    double allocs_per_call;          /* heap allocations counted during the batches */
};

struct fgb_timer_cfg {
    double target_batch_ticks;  /* a batch runs at least this long */
    int batches;                /* batches per case (median over these) */
    int rounds;                 /* batches are spread over this many interleaved rounds */
    double budget_ticks;        /* cap of time per case; never fewer than min_batches */
    int min_batches;            /* at least FGB_PAIRED_MIN: every case can be paired */
};

/* The batch length and budget of cfg (TSC ticks, as set for x86-64) in this clock's
 * ticks: on AArch64 the same wall time at CNTFRQ_EL0, and at least 100 of the
 * count's observed steps a batch; unchanged on x86-64. */
void fgb_clock_adjust(struct fgb_timer_cfg *cfg);
int fgb_pin_cpu(int *cpu_out);                 /* pin to core 1 if allowed, else first allowed */
void fgb_spin_warmup(double seconds);
double fgb_tsc_hz(void);                       /* TSC frequency estimate against CLOCK_MONOTONIC */
/* Core cycles per TSC tick from dependent-chain timing; 0 if not trustworthy.
 * detail receives a human-readable account. */
double fgb_core_per_tick(char *detail, size_t len);
/* The product-row probe (fgb_timer.c): TSC ticks per MULX of rows of 8 MULX alone,
 * and per operation of the same rows with their 16 ADCX/ADOX (24 operations a row);
 * 0 without BMI2 and ADX. Call fgb_measure_overhead() first. */
int fgb_row_probe(double *mulx_ticks, double *op_ticks);
double fgb_median(double *v, int n);            /* sorts v; NAN when n == 0 */
void fgb_measure_overhead(double *t0_ticks, double *loop_ticks_per_iter);

/* One measured case. Group measurement interleaves all cases of a group
 * (one field and op) round by round, so slow drift affects them alike. */
struct fgb_case {
    struct fgb_loop loop;
    void *state;
    int force_isa;     /* >= 0: fg_isa_force(force_isa) before each batch set; -1: dispatch default */
    int openssl_mask;  /* 1: OpenSSL's BMI2/ADX capability bits cleared for this case's batch sets
                        * (fgb_peers_mask), so its MULQ paths run beside the other cases */
    struct fgb_stats st;
    /* optional: when non-NULL, fgb_measure_group also stores the per-call samples
     * here in the order they were taken (at most max_ordered; n_ordered = count),
     * so that two cases of one group can be compared batch by batch */
    double *ordered;
    int max_ordered, n_ordered;
    /* internal */
    double *samples;
    int nsamples, want;
};
/* Paired difference of two cases measured in one group with ordered samples:
 * the median of a[i] - b[i] over the batches both have, with a distribution-free
 * 95% confidence interval for that median (order statistics of the sorted
 * differences, normal approximation to the binomial). Returns the pair count,
 * 0 below FGB_PAIRED_MIN pairs (no figure). */
#define FGB_PAIRED_MIN 8
int fgb_paired_delta(const struct fgb_case *a, const struct fgb_case *b, double out[3]);
/* The same for the ratio a[i] / b[i] (our call against a peer's, batch by batch). */
int fgb_paired_ratio(const struct fgb_case *a, const struct fgb_case *b, double out[3]);
void fgb_set_default_isa(int isa); /* the level "dispatch" rows run at (start-up choice) */
void fgb_measure_group(struct fgb_case *cases, int n, const struct fgb_timer_cfg *cfg);

/* ---- allocation counters (fgb_alloc.c) ---- */
uint64_t fgb_alloc_count(void);   /* malloc+calloc+realloc+memalign-family calls so far */
int fgb_alloc_selftest(void);     /* 1 if interposition is live (a malloc is counted) */

/* ---- helpers ---- */
uint64_t fgb_rng_next(uint64_t *s); /* splitmix64 */
int fgb_in_list(const char *list, const char *name); /* name in the comma-separated list (NULL: all) */
/* Child processes of this program (fgb_runs.c): argv[0] (searched in PATH) with its
 * stdout on the returned pipe and env = {NAME, value, ..., NULL} set; NULL on failure. */
FILE *fgb_spawn_piped(const char *const *argv, const char *const *env, pid_t *pid);
/* Appends --field/--op/--level LIST for the lists given (non-NULL) at argv[a]; returns the new a. */
int fgb_selection_args(const char **argv, int a, const char *fields, const char *ops, const char *levels);

/* ---- instruction counts (fgb_icount.c) ---- */
/* --instructions: re-run under Valgrind's callgrind and print instructions per call
 * for the selected fields, ops and levels; returns the exit status. */
int fgb_icount_run(const char *field_list, const char *op_list, const char *level_list, uint64_t seed,
                   int no_peers);
/* --instructions-child DIR: the run under callgrind (dumps in DIR), rows on stdout. */
int fgb_icount_child(const char *dir, const struct fgb_field *const *fields, int nfields,
                     const char *field_list, const char *op_list, const char *level_list, uint64_t seed,
                     int no_peers);

#endif
