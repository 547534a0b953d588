/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* How p503's sqr latency moves with what runs before its first instruction:
 * chained calls x = sqr(x) of fg_p503_sqr_adx directly, through thunks of n
 * NOPs and a jmp (nop_thunks.S), through the dispatcher's instructions
 * (thunks.S) and through fg_p503_sqr itself; interleaved rounds of 200
 * calls, medians in TSC ticks. A measurement, not a test.
 *
 *   cc -O2 -I../../generated/p503 -I../../runtime nop_thunks.c nop_thunks.S \
 *      thunks.S ../../build/libfieldgen.a -o nop_thunks && taskset -c 1 ./nop_thunks
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>
#include "fg_p503.h"

typedef void (*fn)(uint64_t *, const uint64_t *);
#define T(n) void n(uint64_t *, const uint64_t *);
T(nops0) T(nops1) T(nops2) T(nops3) T(nops4) T(nops6) T(nops8) T(nops12) T(nops16) T(nops24) T(thunk_dispatch_sqr)
static void dispatched(uint64_t *r, const uint64_t *a) { fg_p503_sqr((fg_p503 *)r, (const fg_p503 *)a); }

enum { NK = 13, ROUNDS = 2001, CALLS = 200 };
static const fn f[NK] = {fg_p503_sqr_adx, nops0, nops1, nops2, nops3, nops4, nops6, nops8,
                         nops12, nops16, nops24, thunk_dispatch_sqr, dispatched};
static const char *const name[NK] = {"direct", "0 nops + jmp", "1 nop", "2 nops", "3 nops", "4 nops",
                                     "6 nops", "8 nops", "12 nops", "16 nops", "24 nops",
                                     "dispatcher's instructions", "fg_p503_sqr"};
static uint64_t x[FG_P503_LIMBS] = {1, 2, 3, 4, 5, 6, 7, 8};

static inline uint64_t tsc(void) { _mm_lfence(); uint64_t t = __rdtsc(); _mm_lfence(); return t; }
static int cmp(const void *a, const void *b) { double u = *(const double *)a, v = *(const double *)b; return u < v ? -1 : u > v; }
__attribute__((noinline)) static double run(fn g)
{
    uint64_t t0 = tsc();
    for (int i = 0; i < CALLS; i++) g(x, x);
    return (double)(tsc() - t0) / CALLS;
}

int main(void)
{
    static double s[NK][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < NK; k++) { run(f[k]); s[k][r] = run(f[k]); }
    for (int k = 0; k < NK; k++) {
        qsort(s[k], ROUNDS, sizeof(double), cmp);
        printf("%-26s %7.2f ticks (p25 %.2f, p75 %.2f)\n", name[k], s[k][ROUNDS / 2], s[k][ROUNDS / 4], s[k][3 * ROUNDS / 4]);
    }
    return 0;
}
