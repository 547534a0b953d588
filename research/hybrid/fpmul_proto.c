/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Checks hyb_mul (fpmul_proto.py) against fg_p503_mul_adx_zen on 200,000
 * inputs (r separate and r = a; NOCHECK=1 skips it for the novec and nodep
 * variants, whose results are wrong), then times both, chained (latency)
 * and eight independent calls (throughput), round by round in one process:
 * medians of ROUNDS (argument, default 201) rounds, TSC ticks per call.
 *
 *   ./fpmul_proto.py 1.0 > proto.S && cc -O2 -I../../generated/p503 -I../../runtime \
 *      fpmul_proto.c proto.S ../../build/libfieldgen.a -o proto && taskset -c 1 ./proto
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
#include "fg_p503.h"
void hyb_mul(uint64_t *r, const uint64_t *a, const uint64_t *b);
static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static void elem(uint64_t *x, int t)
{
    for (int i = 0; i < 8; i++) x[i] = rnd();
    x[7] %= 0x0040000000000000ull;
    if (t % 13 == 0) for (int i = 0; i < 7; i++) x[i] = ~0ull;
    if (t % 17 == 0) memset(x, 0, 64);
}
static inline uint64_t tsc(void) { _mm_lfence(); uint64_t t = __rdtsc(); _mm_lfence(); return t; }
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 201;
    int check = getenv("NOCHECK") == NULL;
    for (int t = 0; check && t < 200000; t++) {
        uint64_t a[8], b[8], r0[8], r1[8], r2[8];
        elem(a, t); elem(b, t / 3);
        fg_p503_mul_adx_zen(r0, a, b);
        hyb_mul(r1, a, b);
        memcpy(r2, a, 64); hyb_mul(r2, r2, b);
        if (memcmp(r0, r1, 64) || memcmp(r0, r2, 64)) {
            printf("mismatch at %d\n", t);
            for (int i = 0; i < 8; i++) printf("%016lx %016lx\n", r0[i], r1[i]);
            return 1;
        }
    }
    puts(check ? "check ok (200000 inputs, r = a aliasing too)" : "not checked (NOCHECK)");
    enum { I = 2000 };
    double *l0 = malloc(rounds * 8), *l1 = malloc(rounds * 8), *t0v = malloc(rounds * 8), *t1v = malloc(rounds * 8);
    static uint64_t x[8], y[8], X[8][8];
    elem(x, 1); elem(y, 2);
    for (int j = 0; j < 8; j++) elem(X[j], j + 5);
    for (int r = 0; r < rounds; r++) {
        uint64_t s0 = tsc();
        for (int i = 0; i < I; i++) fg_p503_mul_adx_zen(x, x, y);
        uint64_t s1 = tsc();
        for (int i = 0; i < I; i++) hyb_mul(x, x, y);
        uint64_t s2 = tsc();
        for (int i = 0; i < I / 8; i++) for (int j = 0; j < 8; j++) fg_p503_mul_adx_zen(X[j], X[j], y);
        uint64_t s3 = tsc();
        for (int i = 0; i < I / 8; i++) for (int j = 0; j < 8; j++) hyb_mul(X[j], X[j], y);
        uint64_t s4 = tsc();
        l0[r] = (double)(s1 - s0) / I; l1[r] = (double)(s2 - s1) / I;
        t0v[r] = (double)(s3 - s2) / I; t1v[r] = (double)(s4 - s3) / I;
    }
    qsort(l0, rounds, 8, cmpd); qsort(l1, rounds, 8, cmpd); qsort(t0v, rounds, 8, cmpd); qsort(t1v, rounds, 8, cmpd);
    int m = rounds / 2;
    printf("latency  adx_zen %.1f  hybrid %.1f ticks  (%.3f)\n", l0[m], l1[m], l1[m] / l0[m]);
    printf("throughput adx_zen %.1f  hybrid %.1f ticks  (%.3f)\n", t0v[m], t1v[m], t1v[m] / t0v[m]);
    return 0;
}
