/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* What the runtime dispatcher costs, apart from code placement: p503 sqr and
 * redc, 8 independent calls per iteration (throughput), the dispatched entry
 * point and variants against the adx kernel called directly, alternating
 * batch by batch in one process; prints the median per call and the median
 * of the paired differences with a ~95% interval, in TSC ticks (multiply by
 * the core/TSC ratio the benchmark prints). A measurement, not a test.
 *
 *   cc -O2 -I../../generated/p503 -I../../runtime dispatch_cost.c thunks.S \
 *      ../../build/libfieldgen.a -o dispatch_cost && taskset -c 1 ./dispatch_cost
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>
#include "fg_p503.h"
#include "fg_cpu.h"

void thunk_jmp_sqr(uint64_t *r, const uint64_t *a);
void thunk_dispatch_sqr(uint64_t *r, const uint64_t *a);

enum { CALLS = 8, ITERS = 250, ROUNDS = 401, NV = 7 };
static fg_p503 x[CALLS];
static uint64_t w[CALLS][2 * FG_P503_LIMBS];

static inline uint64_t tsc(void) { _mm_lfence(); uint64_t t = __rdtsc(); _mm_lfence(); return t; }
static int cmp(const void *a, const void *b) { double u = *(const double *)a, v = *(const double *)b; return u < v ? -1 : u > v; }

/* the dispatcher's branch written into the caller instead (direct call to the kernel) */
static inline void inline_redc(fg_p503 *r, const uint64_t *t)
{
    if (__builtin_expect(fg_cpu_isa >= FG_ISA_ADX, 1)) fg_p503_redc_adx(r->limb, t); else fg_p503_redc(r, t);
}

#define LOOP(name, call) \
    __attribute__((noinline)) static void name(int n) { for (int i = 0; i < n; i++) for (int j = 0; j < CALLS; j++) call; }
LOOP(redc_dispatched, fg_p503_redc(&x[j], w[j]))
LOOP(redc_direct, fg_p503_redc_adx(x[j].limb, w[j]))
LOOP(redc_inline, inline_redc(&x[j], w[j]))
LOOP(sqr_dispatched, fg_p503_sqr(&x[j], &x[j]))
LOOP(sqr_direct, fg_p503_sqr_adx(x[j].limb, x[j].limb))
LOOP(sqr_jmp_thunk, thunk_jmp_sqr(x[j].limb, x[j].limb))
LOOP(sqr_dispatch_thunk, thunk_dispatch_sqr(x[j].limb, x[j].limb))

int main(void)
{
    void (*const fn[NV])(int) = {redc_dispatched, redc_direct, redc_inline, sqr_dispatched, sqr_direct,
                                 sqr_jmp_thunk, sqr_dispatch_thunk};
    static const char *const name[NV] = {"redc dispatched", "redc direct", "redc inline branch", "sqr dispatched",
                                         "sqr direct", "sqr jmp thunk", "sqr dispatcher thunk"};
    static const int base[NV] = {1, 1, 1, 4, 4, 4, 4};
    static double s[NV][ROUNDS];
    if (fg_isa_active() < FG_ISA_ADX) {
        printf("needs a CPU with BMI2 and ADX\n");
        return 77;
    }
    for (int j = 0; j < CALLS; j++) {
        for (int i = 0; i < 2 * FG_P503_LIMBS; i++) w[j][i] = ((uint64_t)rand() << 33) ^ (uint64_t)rand();
        w[j][2 * FG_P503_LIMBS - 1] >>= 20;    /* below p * 2^512 */
        fg_p503_from_u64(&x[j], (uint64_t)j + 3);
    }
    for (int r = 0; r < ROUNDS; r++)
        for (int v = 0; v < NV; v++) {
            fn[v](50);
            uint64_t t0 = tsc();
            fn[v](ITERS);
            s[v][r] = (double)(tsc() - t0) / (ITERS * CALLS);
        }
    printf("%-22s %9s   %s\n", "variant", "ticks", "minus direct, paired [~95%]");
    for (int v = 0; v < NV; v++) {
        double d[ROUNDS], m[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) { d[r] = s[v][r] - s[base[v]][r]; m[r] = s[v][r]; }
        qsort(d, ROUNDS, sizeof d[0], cmp);
        qsort(m, ROUNDS, sizeof m[0], cmp);
        printf("%-22s %9.2f   %+.2f [%+.2f, %+.2f]\n", name[v], m[ROUNDS / 2], d[ROUNDS / 2], d[ROUNDS / 2 - 20],
               d[ROUNDS / 2 + 20]);
    }
    return 0;
}
