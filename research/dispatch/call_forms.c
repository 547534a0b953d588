/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* What the dispatcher's instructions cost an application, placement apart:
 * p256 mul and sqr, p503 mul, sqr and redc in latency chains (each result the
 * next input), each called directly from its own loop (every loop 64-byte
 * aligned and never inlined, so the loops differ in the call's target alone):
 * the kernel itself, the library's dispatched entry point, and the entry forms
 * of call_forms.S in front of the same kernel (a JMP, the dispatcher's test
 * shapes as GCC compiles them and as conditional tail jumps, four NOPs). All
 * in one process, round by round; medians of 201 rounds of 1000 calls, TSC
 * ticks per call, and the difference to the kernel called directly. Build it
 * once more with -DOFFSET=16 (or 32, 48) to move the forms. A measurement,
 * not a test.
 *
 *   cc -O2 -I../../generated/p256 -I../../generated/p503 -I../../runtime call_forms.c \
 *      call_forms.S ../../build/libfieldgen.a -o call_forms && taskset -c 1 ./call_forms
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>
#include "fg_p256.h"
#include "fg_p503.h"

#define FORM_DECLS(op, ...)                                                                        \
    void op##_jmp(__VA_ARGS__), op##_gcc1(__VA_ARGS__), op##_jnz1(__VA_ARGS__), op##_gcc2(__VA_ARGS__), \
        op##_jnz2(__VA_ARGS__), op##_nops(__VA_ARGS__);
FORM_DECLS(p256_mul, uint64_t *, const uint64_t *, const uint64_t *)
FORM_DECLS(p256_sqr, uint64_t *, const uint64_t *)
FORM_DECLS(p503_mul, uint64_t *, const uint64_t *, const uint64_t *)
FORM_DECLS(p503_sqr, uint64_t *, const uint64_t *)
FORM_DECLS(p503_redc, uint64_t *, const uint64_t *)

/* x: the chained operand (for redc its low half, the high half below p);
 * y: the fixed multiplier; both below every p here */
static uint64_t x[16] __attribute__((aligned(64))), y[8] __attribute__((aligned(64)));

#define LOOP(name, call)                                                                           \
    __attribute__((noinline, aligned(64))) static void name(int n)                                 \
    {                                                                                              \
        for (int i = 0; i < n; i++) {                                                              \
            call;                                                                                  \
            __asm__ volatile("" ::: "memory");                                                     \
        }                                                                                          \
    }
/* one op: the kernel, the entry point, the six forms */
#define OP_LOOPS(op, kernel, entry, type, ...)                                                     \
    LOOP(op##_0, kernel(__VA_ARGS__))                                                              \
    LOOP(op##_1, entry((type *)(void *)x, (const type *)(const void *)x EXTRA_##op))               \
    LOOP(op##_2, op##_jmp(__VA_ARGS__))                                                            \
    LOOP(op##_3, op##_gcc1(__VA_ARGS__))                                                           \
    LOOP(op##_4, op##_jnz1(__VA_ARGS__))                                                           \
    LOOP(op##_5, op##_gcc2(__VA_ARGS__))                                                           \
    LOOP(op##_6, op##_jnz2(__VA_ARGS__))                                                           \
    LOOP(op##_7, op##_nops(__VA_ARGS__))
#define EXTRA_p256_mul , (const fg_p256 *)(const void *)y
#define EXTRA_p256_sqr
#define EXTRA_p503_mul , (const fg_p503 *)(const void *)y
#define EXTRA_p503_sqr
#define EXTRA_p503_redc
OP_LOOPS(p256_mul, fg_p256_mul_adx_zen, fg_p256_mul, fg_p256, x, x, y)
OP_LOOPS(p256_sqr, fg_p256_sqr_adx_zen, fg_p256_sqr, fg_p256, x, x)
OP_LOOPS(p503_mul, fg_p503_mul_adx_zen, fg_p503_mul, fg_p503, x, x, y)
OP_LOOPS(p503_sqr, fg_p503_sqr_adx_zen, fg_p503_sqr, fg_p503, x, x)
/* redc(r, t): r over t's low half */
LOOP(p503_redc_0, fg_p503_redc_adx(x, x))
LOOP(p503_redc_1, fg_p503_redc((fg_p503 *)(void *)x, x))
LOOP(p503_redc_2, p503_redc_jmp(x, x))
LOOP(p503_redc_3, p503_redc_gcc1(x, x))
LOOP(p503_redc_4, p503_redc_jnz1(x, x))
LOOP(p503_redc_5, p503_redc_gcc2(x, x))
LOOP(p503_redc_6, p503_redc_jnz2(x, x))
LOOP(p503_redc_7, p503_redc_nops(x, x))

static inline uint64_t tsc(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}
static int cmpd(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;
    return (u > v) - (u < v);
}

#define ROW(op) {op##_0, op##_1, op##_2, op##_3, op##_4, op##_5, op##_6, op##_7}
int main(void)
{
    enum { NOPS = 5, NFORMS = 8, ROUNDS = 201, ITERS = 1000 };
    static void (*const fn[NOPS][NFORMS])(int) = {ROW(p256_mul), ROW(p256_sqr), ROW(p503_mul), ROW(p503_sqr),
                                                   ROW(p503_redc)};
    static const char *const op[NOPS] = {"p256 mul", "p256 sqr", "p503 mul", "p503 sqr", "p503 redc"};
    static const char *const form[NFORMS] = {"kernel", "dispatched", "jmp", "gcc1", "jnz1", "gcc2", "jnz2", "nops"};
    static double t[NOPS][NFORMS][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int o = 0; o < NOPS; o++) {
            for (int i = 0; i < 16; i++) /* each op's chain from the same start */
                x[i] = 0x0123456789abcdefull * (uint64_t)(i + 1) >> 12;
            for (int i = 0; i < 8; i++)
                y[i] = 0x0fedcba987654321ull * (uint64_t)(i + 3) >> 12;
            for (int k = 0; k < NFORMS; k++) {
                uint64_t s = tsc();
                fn[o][k](ITERS);
                t[o][k][r] = (double)(tsc() - s) / ITERS;
            }
        }
    printf("%-10s", "ticks");
    for (int k = 0; k < NFORMS; k++)
        printf(" %10s", form[k]);
    printf("\n");
    for (int o = 0; o < NOPS; o++) {
        printf("%-10s", op[o]);
        double base = 0;
        for (int k = 0; k < NFORMS; k++) {
            qsort(t[o][k], ROUNDS, sizeof t[o][k][0], cmpd);
            double m = t[o][k][ROUNDS / 2];
            if (!k)
                base = m;
            if (k)
                printf(" %+10.2f", m - base);
            else
                printf(" %10.2f", m);
        }
        printf("\n");
    }
    return 0;
}
