/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A field's IFMA kernels in the forms of their partial-vector accesses that
 * gen.py wrote (masked.S, pieces.S; overlap.S at 45ac87d), timed with the chained operand
 * (an Fp2 element, 2 NL limbs) ending at a 4 KiB page's end and at other
 * places; latency of 100 chained calls r = f(r, ...), median of 201
 * interleaved rounds, TSC ticks. A measurement, not a test. In the
 * directory gen.py wrote to:
 *
 *   cc -O2 -I. .../research/pages/page.c *.S -o page && taskset -c 1 ./page
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <x86intrin.h>
#include "forms.h"

typedef void (*f3)(uint64_t *, const uint64_t *, const uint64_t *);
typedef void (*f2)(uint64_t *, const uint64_t *);
#define DECLARE(t) \
    void fg_t_##t##_fp2_mul_ifma(uint64_t *, const uint64_t *, const uint64_t *); \
    void fg_t_##t##_fp2_sqr_ifma(uint64_t *, const uint64_t *); \
    void fg_t_##t##_mul_ifma(uint64_t *, const uint64_t *, const uint64_t *);
FORMS(DECLARE)
#define FP2_MUL(t) fg_t_##t##_fp2_mul_ifma,
#define FP2_SQR(t) fg_t_##t##_fp2_sqr_ifma,
#define FP_MUL(t) fg_t_##t##_mul_ifma,
#define NAME(t) #t,
static const f3 fp2_mul[] = {FORMS(FP2_MUL)};
static const f2 fp2_sqr[] = {FORMS(FP2_SQR)};
static const f3 fp_mul[] = {FORMS(FP_MUL)};
static const char *const form[] = {FORMS(NAME)};
enum { NF = sizeof fp2_mul / sizeof *fp2_mul, ROUNDS = 201, CALLS = 100, E = 16 * NL };

static inline uint64_t tsc(void) { _mm_lfence(); uint64_t t = __rdtsc(); _mm_lfence(); return t; }
static int cmp(const void *a, const void *b) { double u = *(const double *)a, v = *(const double *)b; return u < v ? -1 : u > v; }
static double t3(f3 f, uint64_t *x, const uint64_t *b)
{
    uint64_t t0 = tsc();
    for (int i = 0; i < CALLS; i++) f(x, x, b);
    return (double)(tsc() - t0) / CALLS;
}
static double t2(f2 f, uint64_t *x)
{
    uint64_t t0 = tsc();
    for (int i = 0; i < CALLS; i++) f(x, x);
    return (double)(tsc() - t0) / CALLS;
}

int main(void)
{
    uint8_t *pg = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    static uint64_t b[2 * NL] = {3, 5, 7, 11, 13};
    const int gap[] = {0, 8, 16, 64, 128, 888};      /* bytes between the element's end and the page's */
    static double s[3 * NF][ROUNDS];
    if (pg == MAP_FAILED) return 1;
    printf("%d limbs; the Fp2 operand's end GAP bytes before a page's end (the Fp mul's is its c1)\n", NL);
    static const char *const op[3] = {"Fp2 mul", "Fp2 sqr", "Fp mul"};
    printf("gap");
    for (int o = 0; o < 3; o++) {
        printf("   %s:", op[o]);
        for (int f = 0; f < NF; f++) printf(" %s", form[f]);
    }
    printf("\n");
    for (unsigned k = 0; k < sizeof gap / sizeof *gap; k++) {
        uint64_t *x = (uint64_t *)(pg + 4096 - E - gap[k]);
        for (int r = 0; r < ROUNDS; r++) {
            for (int i = 0; i < 2 * NL; i++) x[i] = (uint64_t)i + 1;
            for (int f = 0; f < NF; f++) {
                s[f][r] = t3(fp2_mul[f], x, b);
                s[NF + f][r] = t2(fp2_sqr[f], x);
                s[2 * NF + f][r] = t3(fp_mul[f], x + NL, b);
            }
        }
        printf("%4d", gap[k]);
        for (int j = 0; j < 3 * NF; j++) {
            qsort(s[j], ROUNDS, sizeof(double), cmp);
            printf(j % NF ? " / %.1f" : "   %.1f", s[j][ROUNDS / 2]);
        }
        printf("\n");
    }
    return 0;
}
