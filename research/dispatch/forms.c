/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Is a conditional tail jump a cheaper dispatcher than the C form? Each of six
 * kernels called directly, through the C-form thunk and through the `jge
 * kernel` thunk (forms.S), latency (x = op(x, b) chained) and throughput (8
 * independent calls), alternating batch by batch; prints each thunk's median
 * paired difference to the direct call in TSC ticks. A measurement, not a test.
 *
 *   cc -O2 -I../../runtime forms.c forms.S ../../build/libfieldgen.a -o forms \
 *      && taskset -c 1 ./forms
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>
#include "fg_cpu.h"

typedef void fn(uint64_t *r, const uint64_t *a, const uint64_t *b);   /* sqr ignores b */
#define DECL(tag, kernel) fn kernel, c_##tag, j_##tag;
DECL(p256_mul, fg_p256_mul_bmi2)
DECL(p256_sqr, fg_p256_sqr_adx)
DECL(p25519_mul, fg_p25519_mul_adx)
DECL(p503_mul, fg_p503_mul_adx)
DECL(p503_sqr, fg_p503_sqr_adx)
DECL(p751_sqr, fg_p751_sqr_adx)

enum { ROUNDS = 201, LAT = 2000, W = 8 };
static uint64_t x[W][16] __attribute__((aligned(64))), b[16] __attribute__((aligned(64)));

__attribute__((noinline, aligned(64))) static void lat(fn *f, int n)
{
    for (int i = 0; i < n; i++) {
        f(x[0], x[0], b);
        __asm__ volatile("" ::: "memory");
    }
}
__attribute__((noinline, aligned(64))) static void thr(fn *f, int n)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < W; j++) f(x[j], x[j], b);
        __asm__ volatile("" ::: "memory");
    }
}
static double ticks(int t, fn *f)
{
    _mm_lfence();
    uint64_t t0 = __rdtsc();
    if (t) thr(f, LAT / W); else lat(f, LAT);
    _mm_lfence();
    return (double)(__rdtsc() - t0) / LAT;
}
static int cmp(const void *u, const void *v) { double a = *(const double *)u, c = *(const double *)v; return a < c ? -1 : a > c; }

int main(void)
{
    static const struct { const char *name; fn *k, *c, *j; } K[] = {
        {"p256 mul", fg_p256_mul_bmi2, c_p256_mul, j_p256_mul}, {"p256 sqr", fg_p256_sqr_adx, c_p256_sqr, j_p256_sqr},
        {"p25519 mul", fg_p25519_mul_adx, c_p25519_mul, j_p25519_mul}, {"p503 mul", fg_p503_mul_adx, c_p503_mul, j_p503_mul},
        {"p503 sqr", fg_p503_sqr_adx, c_p503_sqr, j_p503_sqr}, {"p751 sqr", fg_p751_sqr_adx, c_p751_sqr, j_p751_sqr}};
    if (fg_isa_active() < FG_ISA_ADX) {
        printf("needs a CPU with BMI2 and ADX\n");
        return 77;
    }
    for (int j = 0; j < W; j++)
        for (int i = 0; i < 4; i++) x[j][i] = (uint64_t)(i + j + 1);   /* small: below every p */
    b[0] = 3;
    double sum_c = 0, sum_j = 0;
    printf("%-11s %-4s %8s   %s\n", "kernel", "mode", "direct", "C form - direct   jge - direct (ticks, paired medians)");
    for (unsigned q = 0; q < sizeof K / sizeof K[0]; q++)
        for (int t = 0; t < 2; t++) {
            static double m[ROUNDS], dc[ROUNDS], dj[ROUNDS];
            for (int r = 0; r < ROUNDS; r++) {
                double d = ticks(t, K[q].k);
                m[r] = d, dc[r] = ticks(t, K[q].c) - d, dj[r] = ticks(t, K[q].j) - d;
            }
            qsort(m, ROUNDS, sizeof m[0], cmp), qsort(dc, ROUNDS, sizeof dc[0], cmp), qsort(dj, ROUNDS, sizeof dj[0], cmp);
            printf("%-11s %-4s %8.1f   %+15.2f   %+12.2f\n", K[q].name, t ? "thr" : "lat", m[ROUNDS / 2], dc[ROUNDS / 2],
                   dj[ROUNDS / 2]);
            sum_c += dc[ROUNDS / 2], sum_j += dj[ROUNDS / 2];
        }
    printf("sum over the 12 rows: C form %+.2f, jge %+.2f\n", sum_c, sum_j);
    return 0;
}
