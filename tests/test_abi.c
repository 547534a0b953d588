/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* ABI and memory-safety test of every assembly kernel of one field
 * (-DFG_FIELD=name -DFG_FIELD_UC=NAME), at one level:
 *   - each call goes through fg_abi_call, which checks that rbx, rbp,
 *     r12-r15 and rsp survive and the direction flag is clear;
 *   - outputs and inputs sit flush against PROT_NONE guard pages, at the end
 *     and at the start, so any read or write outside the object faults;
 *   - every pointer misaligned by 1..7 bytes, and every aliasing pattern
 *     (r == a, r == b, r == a == b, t overlapping a or b, r inside t);
 * each result compared with the portable C kernel on aligned copies.
 *
 * Then, per kernel, unwinding: a 40 us interval timer interrupts a loop of
 * calls, and from each signal that lands inside the kernel (the unwinder's
 * own lookup of the interrupted address, _Unwind_FindEnclosingFunction, must
 * name it) libgcc's unwinder, which reads only the call-frame information,
 * must walk out of the kernel to the loop's caller: what debuggers,
 * profilers and crash reporters need of the .cfi directives.
 *
 * At the adx level also adx's Zen forms (fg_NAME_OP_adx_zen) and the assembly
 * Fp2 mul and sqr, and at ifma the AVX-512 IFMA Fp2 mul and sqr and the
 * hybrid Fp2 mul and sqr (where the field has them), compared with an Fp2 product
 * built from the C kernels.
 *
 *   test_abi_NAME --level x86_64|bmi2|adx|ifma [--count N]   (77: level unavailable) */
#define _GNU_SOURCE /* timer_create, REG_RIP */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unwind.h>

#include "fg_abi.h"
#include "fg_guard.h"
#include "fg_test_field.h"

#define W (8 * N) /* bytes of one element */

static unsigned long failures, checks;

static void element(uint64_t x[N]) /* canonical internal value */
{
    FE e;
    fgt_element(&e);
    if (rnd() % 4 == 0) { /* p - 1 */
        F(from_u64)(&e, 1);
        F(neg)(&e, &e);
    }
    memcpy(x, e.limb, W);
}

struct kernel {
    const char *name;
    const void *fn;      /* level kernel */
    int in_words, out_words, nin;
    int b_words;         /* words of the second input (0: N) */
};
#define B_WORDS(k) ((k)->b_words ? (k)->b_words : N)

#if C(HAVE_FP2) && (C(HAVE_FP2_IFMA) || C(HAVE_FP2_MUL_IFMA_ZEN) || C(HAVE_FP2_SQR_IFMA_ZEN) || C(HAVE_FP2_SQR_ADX) || C(HAVE_FP2_MUL_ADX) || \
                     C(HAVE_FP2_MUL_BMI2) || C(HAVE_FP2_SQR_BMI2))
#include "fg_fp2_reference.h"
#endif

/* whether a kernel's name is op's: "mul", "mul_adx_zen" (adx's Zen form),
 * "mul_ifma" (the ifma level's Fp mul; "sqr_ifma" its squaring entry) or
 * "fp2_mul_ifma_zen" (the hybrid Fp2 mul) */
static int is_op(const char *name, const char *op)
{
    size_t n = strlen(op);
    return !strncmp(name, op, n) && (!name[n] || !strcmp(name + n, "_adx_zen") || !strcmp(name + n, "_ifma") ||
                                     !strcmp(name + n, "_ifma_zen"));
}

static void reference(const char *name, uint64_t *out, const uint64_t *a, const uint64_t *b)
{
    if (is_op(name, "mul")) F(mul_c)(out, a, b);
    else if (is_op(name, "sqr")) F(sqr_c)(out, a);
    else if (is_op(name, "mul_wide")) F(mul_wide_c)(out, a, b);
    else if (is_op(name, "sqr_wide")) F(sqr_wide_c)(out, a);
#if C(HAVE_LAZY)
    else if (is_op(name, "mul_lazy")) F(mul_lazy_c)(out, a, b);
    else if (is_op(name, "sqr_lazy")) F(sqr_lazy_c)(out, a);
#endif
#if C(HAVE_FP2) && (C(HAVE_FP2_IFMA) || C(HAVE_FP2_MUL_IFMA_ZEN) || C(HAVE_FP2_SQR_IFMA_ZEN) || C(HAVE_FP2_SQR_ADX) || C(HAVE_FP2_MUL_ADX) || \
                     C(HAVE_FP2_MUL_BMI2) || C(HAVE_FP2_SQR_BMI2))
    else if (is_op(name, "fp2_mul")) fp2_mul_reference(out, a, b);
    else if (is_op(name, "fp2_sqr")) fp2_mul_reference(out, a, a);
#endif
    else F(redc_c)(out, a);
}

static void check(const char *what, const char *kname, uint64_t mask, const void *got, const uint64_t *want,
                  int words)
{
    char buf[64];
    checks++;
    if (mask) {
        if (failures++ < 20)
            fprintf(stderr, "FAIL %s %s: ABI violation: %s\n", kname, what, fg_abi_describe(mask, buf));
        return;
    }
    if (memcmp(got, want, 8 * (size_t)words) != 0 && failures++ < 20)
        fprintf(stderr, "FAIL %s %s: result differs from the C kernel\n", kname, what);
}

/* inputs: a (or t for redc), b */
static void make_inputs(const struct kernel *k, uint64_t *a, uint64_t *b)
{
    int i;
    for (i = 0; i < B_WORDS(k); i += N)
        element(b + i);
    if (is_op(k->name, "fp2_mul") || is_op(k->name, "fp2_sqr")) {
        element(a);
        element(a + N);
    } else if (k->in_words == 2 * N) { /* redc: a wide product, t < p*R (or any) */
        FE x, y;
        element(x.limb);
        element(y.limb);
        F(mul_wide_c)(a, x.limb, y.limb);
    } else {
        element(a);
    }
}

/* ---- unwinding through a kernel, from a timer signal ---- */
typedef void kernel_fn(uint64_t *, const uint64_t *, const uint64_t *);
static const void *volatile uw_kernel;  /* the kernel under test */
static void *volatile uw_target;        /* the return address into unwind_kernel */
static volatile unsigned long uw_signals, uw_inside, uw_reached;
static volatile int uw_stop;
static volatile uintptr_t uw_bad_ip;
#define UW_SAMPLES 50      /* signals inside the kernel, per kernel */
#define UW_SIGNALS 50000   /* at most, per kernel: 2 s */

static _Unwind_Reason_Code uw_step(struct _Unwind_Context *ctx, void *arg)
{
    if ((void *)_Unwind_GetIP(ctx) == uw_target) {
        *(int *)arg = 1;
        return _URC_END_OF_STACK;
    }
    return _URC_NO_REASON;
}

static void uw_signal(int sig, siginfo_t *si, void *ucv)
{
    const ucontext_t *uc = ucv;
    uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    int found = 0;
    (void)sig;
    (void)si;
    if (++uw_signals >= UW_SIGNALS)
        uw_stop = 1;
    if (_Unwind_FindEnclosingFunction((void *)ip) != uw_kernel)
        return; /* in the loop, not in the kernel (or the kernel has no unwind information) */
    _Unwind_Backtrace(uw_step, &found);
    if (found)
        uw_reached++;
    else if (!uw_bad_ip)
        uw_bad_ip = ip;
    if (++uw_inside >= UW_SAMPLES)
        uw_stop = 1;
}

static __attribute__((noinline)) void uw_loop(kernel_fn *fn, uint64_t *o, const uint64_t *a, const uint64_t *b)
{
    uw_target = __builtin_return_address(0);
    while (!uw_stop) { /* eight calls a test: more of the time in the kernel (a 1-limb one is a few instructions) */
        fn(o, a, b);
        fn(o, a, b);
        fn(o, a, b);
        fn(o, a, b);
        fn(o, a, b);
        fn(o, a, b);
        fn(o, a, b);
        fn(o, a, b);
    }
}

static void unwind_kernel(const struct kernel *k)
{
    static timer_t timer;
    static int ready;
    uint64_t a[2 * N], b[2 * N], o[2 * N];
    const struct itimerspec every = {{0, 40000}, {0, 40000}}, off = {{0, 0}, {0, 0}};
    make_inputs(k, a, b);
    if (!ready) {
        struct sigaction sa;
        struct sigevent ev;
        int found = 0;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = uw_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_SIGNAL;
        ev.sigev_signo = SIGPROF;
        if (sigaction(SIGPROF, &sa, NULL) || timer_create(CLOCK_MONOTONIC, &ev, &timer)) {
            fprintf(stderr, "unwind check: no timer\n");
            exit(2);
        }
        _Unwind_Backtrace(uw_step, &found); /* the unwinder's first call allocates: not in a handler */
        ready = 1;
    }
    uw_kernel = k->fn;
    uw_signals = uw_inside = uw_reached = 0;
    uw_bad_ip = 0;
    uw_stop = 0;
    timer_settime(timer, 0, &every, NULL);
    uw_loop((kernel_fn *)(uintptr_t)k->fn, o, a, b);
    timer_settime(timer, 0, &off, NULL);
    checks++;
    if (uw_inside < UW_SAMPLES) {
        failures++;
        printf("FAIL unwind %s: %lu of %lu timer signals found the kernel by its unwind information\n", k->name,
               uw_inside, uw_signals);
    } else if (uw_reached != uw_inside) {
        failures++;
        printf("FAIL unwind %s: %lu of %lu signals inside the kernel did not unwind to its caller (first at +%lu)\n",
               k->name, uw_inside - uw_reached, uw_inside, (unsigned long)(uw_bad_ip - (uintptr_t)k->fn));
    }
}

static void run_kernel(const struct kernel *k, unsigned long count)
{
    unsigned long i;
    uint64_t a[2 * N], b[2 * N], want[2 * N];
    const size_t bw = 8 * (size_t)B_WORDS(k); /* bytes of b */
    unwind_kernel(k);
    for (i = 0; i < count; i++) {
        fg_guard ga, gb, go;
        uint8_t *pa, *pb, *po;
        unsigned char raw[3][16 * 2 * N + 16];
        uint64_t mask;
        int front = (int)(i & 1), mis = (int)(i % 8);
        make_inputs(k, a, b);
        reference(k->name, want, a, b);

        /* 1. guard pages: objects flush against PROT_NONE (end, then start) */
        pa = front ? fg_guard_alloc_front(&ga, 8 * (size_t)k->in_words) : fg_guard_alloc(&ga, 8 * (size_t)k->in_words);
        pb = front ? fg_guard_alloc_front(&gb, bw) : fg_guard_alloc(&gb, bw);
        po = front ? fg_guard_alloc_front(&go, 8 * (size_t)k->out_words) : fg_guard_alloc(&go, 8 * (size_t)k->out_words);
        if (!pa || !pb || !po) {
            fprintf(stderr, "guard allocation failed\n");
            exit(2);
        }
        memcpy(pa, a, 8 * (size_t)k->in_words);
        memcpy(pb, b, bw);
        mask = fg_abi_call(k->fn, (uint64_t)(uintptr_t)po, (uint64_t)(uintptr_t)pa, (uint64_t)(uintptr_t)pb);
        check(front ? "guard page before the objects" : "guard page after the objects", k->name, mask, po, want,
              k->out_words);
        fg_guard_free(&ga);
        fg_guard_free(&gb);
        fg_guard_free(&go);

        /* 2. misaligned by 1..7 bytes (and 0) */
        pa = raw[0] + mis, pb = raw[1] + (mis + 3) % 8, po = raw[2] + (mis + 5) % 8;
        memcpy(pa, a, 8 * (size_t)k->in_words);
        memcpy(pb, b, bw);
        mask = fg_abi_call(k->fn, (uint64_t)(uintptr_t)po, (uint64_t)(uintptr_t)pa, (uint64_t)(uintptr_t)pb);
        check("misaligned", k->name, mask, po, want, k->out_words);

        /* 3. aliasing: output over the first input, over the second, and
         *    (one-input kernels) in place; with a misaligned buffer */
        po = raw[0] + mis;
        memcpy(po, a, 8 * (size_t)k->in_words);
        memcpy(raw[1] + mis, b, bw);
        mask = fg_abi_call(k->fn, (uint64_t)(uintptr_t)po, (uint64_t)(uintptr_t)po, (uint64_t)(uintptr_t)(raw[1] + mis));
        check("output aliasing input a", k->name, mask, po, want, k->out_words);
        if (k->nin == 2) {
            memcpy(raw[0] + mis, a, 8 * (size_t)k->in_words);
            memcpy(raw[1] + mis, b, bw);
            po = raw[1] + mis;
            mask = fg_abi_call(k->fn, (uint64_t)(uintptr_t)po, (uint64_t)(uintptr_t)(raw[0] + mis), (uint64_t)(uintptr_t)po);
            check("output aliasing input b", k->name, mask, po, want, k->out_words);
            /* a == b == r */
            reference(k->name, want, a, a);
            po = raw[2] + mis;
            memcpy(po, a, 8 * (size_t)k->in_words);
            mask = fg_abi_call(k->fn, (uint64_t)(uintptr_t)po, (uint64_t)(uintptr_t)po, (uint64_t)(uintptr_t)po);
            check("r == a == b", k->name, mask, po, want, k->out_words);
        }
    }
}

int main(int argc, char **argv)
{
    unsigned long count = 300;
    int level;
    rng_state = 0xab1;
    if (argc < 3 || strcmp(argv[1], "--level")) {
        fprintf(stderr, "usage: %s --level x86_64|bmi2|adx|ifma [--count N]\n", argv[0]);
        return 2;
    }
    if (argc == 5 && !strcmp(argv[3], "--count"))
        count = strtoul(argv[4], NULL, 10);
    level = fg_isa_parse(argv[2]);
    if (level <= FG_ISA_C) {
        fprintf(stderr, "the ABI test is for the assembly levels\n");
        return 2;
    }
#if C(HAVE_ASM)
    if ((int)fg_isa_best() < level) {
        printf("%s: level %s skipped: not available on this CPU\n", STR(FG_FIELD), argv[2]);
        return 77;
    }
    {
#define KERNELS(L)                                                                                   \
    {"mul", (const void *)F(CAT(mul_, L)), N, N, 2}, {"sqr", (const void *)F(CAT(sqr_, L)), N, N, 1},  \
        {"mul_wide", (const void *)F(CAT(mul_wide_, L)), N, 2 * N, 2},                                \
        {"sqr_wide", (const void *)F(CAT(sqr_wide_, L)), N, 2 * N, 1},                                \
        {"redc", (const void *)F(CAT(redc_, L)), 2 * N, N, 1}
        static const struct kernel x86_64[] = {KERNELS(x86_64)}, bmi2[] = {KERNELS(bmi2)}, adx[] = {KERNELS(adx)};
        const struct kernel *ks = level == FG_ISA_X86_64 ? x86_64 : level == FG_ISA_BMI2 ? bmi2 : adx;
        int i, nk = 5;
        for (i = 0; i < 5; i++)
            run_kernel(&ks[i], count);
/* one more kernel, from level `min` up: its name, in and out words, inputs, words of b */
#define MORE_KERNEL(min, name, fn, in_words, out_words, nin, b_words)                                  \
    if (level >= (min)) {                                                                               \
        static const struct kernel km = {name, (const void *)(fn), in_words, out_words, nin, b_words};  \
        run_kernel(&km, count);                                                                         \
        nk++;                                                                                           \
    }
/* an Fp2 kernel (2N-word operands and output) from level `min` up, with nin inputs */
#define FP2_KERNEL(min, op, fn, nin) MORE_KERNEL(min, op, fn, 2 * N, 2 * N, nin, (nin) == 2 ? 2 * N : 0)
/* adx's Zen form of an Fp kernel (fg_NAME_OP_adx_zen), from the adx level up */
#define ZEN_KERNEL(op, fn, nin, nout, ninputs) MORE_KERNEL(FG_ISA_ADX, op "_adx_zen", fn, nin, nout, ninputs, 0)
#if C(HAVE_LAZY)
        {
            /* the lazy mul and sqr of the level (inputs below p, so below 2p) */
            static const struct kernel lazy[3][2] = {
                {{"mul_lazy", (const void *)F(mul_lazy_x86_64), N, N, 2}, {"sqr_lazy", (const void *)F(sqr_lazy_x86_64), N, N, 1}},
                {{"mul_lazy", (const void *)F(mul_lazy_bmi2), N, N, 2}, {"sqr_lazy", (const void *)F(sqr_lazy_bmi2), N, N, 1}},
                {{"mul_lazy", (const void *)F(mul_lazy_adx), N, N, 2}, {"sqr_lazy", (const void *)F(sqr_lazy_adx), N, N, 1}},
            };
            const struct kernel *kl = lazy[(level > FG_ISA_ADX ? FG_ISA_ADX : level) - FG_ISA_X86_64];
            run_kernel(&kl[0], count);
            run_kernel(&kl[1], count);
            nk += 2;
        }
#endif
#if C(MUL_LAZY_HAVE_ADX_ZEN)
        ZEN_KERNEL("mul_lazy", F(mul_lazy_adx_zen), N, N, 2)
#endif
#if C(SQR_LAZY_HAVE_ADX_ZEN)
        ZEN_KERNEL("sqr_lazy", F(sqr_lazy_adx_zen), N, N, 1)
#endif
#if C(MUL_HAVE_ADX_ZEN)
        ZEN_KERNEL("mul", F(mul_adx_zen), N, N, 2)
#endif
#if C(SQR_HAVE_ADX_ZEN)
        ZEN_KERNEL("sqr", F(sqr_adx_zen), N, N, 1)
#endif
#if C(MUL_WIDE_HAVE_ADX_ZEN)
        ZEN_KERNEL("mul_wide", F(mul_wide_adx_zen), N, 2 * N, 2)
#endif
#if C(SQR_WIDE_HAVE_ADX_ZEN)
        ZEN_KERNEL("sqr_wide", F(sqr_wide_adx_zen), N, 2 * N, 1)
#endif
#if C(REDC_HAVE_ADX_ZEN)
        ZEN_KERNEL("redc", F(redc_adx_zen), 2 * N, N, 1)
#endif
#if C(MUL_HAVE_IFMA)
        MORE_KERNEL(FG_ISA_IFMA, "mul_ifma", F(mul_ifma), N, N, 2, 0)
#endif
#if C(SQR_HAVE_IFMA)
        MORE_KERNEL(FG_ISA_IFMA, "sqr_ifma", F(sqr_ifma), N, N, 1, 0)
#endif
#if C(HAVE_FP2) && C(HAVE_FP2_IFMA)
        FP2_KERNEL(FG_ISA_IFMA, "fp2_mul", CAT(FE, _fp2_mul_ifma), 2)
#endif
#if C(HAVE_FP2) && C(HAVE_FP2_MUL_BMI2)
        FP2_KERNEL(FG_ISA_BMI2, "fp2_mul", CAT(FE, _fp2_mul_bmi2), 2)
#endif
#if C(HAVE_FP2) && C(HAVE_FP2_MUL_ADX)
        FP2_KERNEL(FG_ISA_ADX, "fp2_mul", CAT(FE, _fp2_mul_adx), 2)
#endif
#if C(HAVE_FP2) && C(HAVE_FP2_SQR_BMI2)
        FP2_KERNEL(FG_ISA_BMI2, "fp2_sqr", CAT(FE, _fp2_sqr_bmi2), 1)
#endif
#if C(HAVE_FP2) && C(HAVE_FP2_SQR_ADX)
        FP2_KERNEL(FG_ISA_ADX, "fp2_sqr", CAT(FE, _fp2_sqr_adx), 1)
#endif
#if C(HAVE_FP2) && C(HAVE_FP2_MUL_ADX_ZEN)
        FP2_KERNEL(FG_ISA_ADX, "fp2_mul_adx_zen", CAT(FE, _fp2_mul_adx_zen), 2)
#endif
#if C(HAVE_FP2) && C(HAVE_FP2_SQR_ADX_ZEN)
        FP2_KERNEL(FG_ISA_ADX, "fp2_sqr_adx_zen", CAT(FE, _fp2_sqr_adx_zen), 1)
#endif
#if C(HAVE_FP2) && C(HAVE_FP2_SQR_IFMA)
        FP2_KERNEL(FG_ISA_IFMA, "fp2_sqr", CAT(FE, _fp2_sqr_ifma), 1)
#endif
#if C(HAVE_FP2) && C(HAVE_FP2_MUL_IFMA_ZEN)
        FP2_KERNEL(FG_ISA_IFMA, "fp2_mul_ifma_zen", CAT(FE, _fp2_mul_ifma_zen), 2)
#endif
#if C(HAVE_FP2) && C(HAVE_FP2_SQR_IFMA_ZEN)
        FP2_KERNEL(FG_ISA_IFMA, "fp2_sqr_ifma_zen", CAT(FE, _fp2_sqr_ifma_zen), 1)
#endif
        printf("%s %s abi: %d kernels, %lu checks, %lu failures\n", STR(FG_FIELD), argv[2], nk, checks, failures);
    }
    return failures ? 1 : 0;
#else
    printf("%s: level %s skipped: no assembly for this field in this build\n", STR(FG_FIELD), argv[2]);
    return 77;
#endif
}
