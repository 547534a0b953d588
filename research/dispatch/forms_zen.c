/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The Zen tuning's dispatch paths (second and third test) in two forms: the
 * library's C dispatcher (fg_NAME_OP: on Zen 3 a taken branch past the generic
 * adx test, then a not-taken test and a tail jump; p751's mul one test more)
 * against conditional tail jumps (forms_zen.S: every failed test falls
 * through, the matching one jumps to the kernel). Each against the Zen-form
 * kernel called directly, latency (chained) and throughput (8 independent
 * calls), rounds of direct / C / jcc / direct; prints the median of each
 * form's per-round difference to the mean of the two direct batches, and
 * the quartiles, in TSC ticks. A measurement, not a test. Needs the zen
 * tuning at adx (selector 0x100: a Zen 3 core, or FIELDGEN_TUNE=zen on an
 * ADX CPU without IFMA).
 *
 *   cc -O2 -I../../runtime forms_zen.c forms_zen.S ../../build/libfieldgen.a \
 *      -o forms_zen && taskset -c 1 ./forms_zen
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>
#include "fg_cpu.h"
typedef void fn(uint64_t *r, const uint64_t *a, const uint64_t *b);
fn fg_p503_sqr_adx_zen, fg_p503_mul_adx_zen, fg_p751_mul_adx_zen, fg_p751_sqr_adx_zen;
fn j_p503_sqr, j_p503_mul, j_p751_mul, j_p751_sqr;
fn fg_p503_sqr, fg_p503_mul, fg_p751_mul, fg_p751_sqr;
enum { ROUNDS = 301, LAT = 2000, W = 8 };
static uint64_t x[W][16] __attribute__((aligned(64))), b[16] __attribute__((aligned(64)));
__attribute__((noinline, aligned(64))) static void lat(fn *f, int n)
{ for (int i = 0; i < n; i++) { f(x[0], x[0], b); __asm__ volatile("" ::: "memory"); } }
__attribute__((noinline, aligned(64))) static void thr(fn *f, int n)
{ for (int i = 0; i < n; i++) { for (int j = 0; j < W; j++) f(x[j], x[j], b); __asm__ volatile("" ::: "memory"); } }
static double ticks(int t, fn *f)
{ _mm_lfence(); uint64_t t0 = __rdtsc(); if (t) thr(f, LAT / W); else lat(f, LAT); _mm_lfence(); return (double)(__rdtsc() - t0) / LAT; }
static int cmp(const void *u, const void *v) { double a = *(const double *)u, c = *(const double *)v; return a < c ? -1 : a > c; }
int main(void)
{
    struct { const char *name; fn *k, *c, *j; } K[] = {
        {"p503 sqr", fg_p503_sqr_adx_zen, fg_p503_sqr, j_p503_sqr}, {"p503 mul", fg_p503_mul_adx_zen, fg_p503_mul, j_p503_mul},
        {"p751 mul", fg_p751_mul_adx_zen, fg_p751_mul, j_p751_mul}, {"p751 sqr", fg_p751_sqr_adx_zen, fg_p751_sqr, j_p751_sqr}};
    if (fg_cpu_sel != 0x100) {
        printf("needs the zen tuning at adx (selector 0x100), have %#x\n", fg_cpu_sel);
        return 77;
    }
    for (int i = 0; i < W; i++) for (int j = 0; j < 12; j++) x[i][j] = 0x123456789abcdefull * (i + j + 1) >> 8;
    for (int j = 0; j < 12; j++) b[j] = 0x0fedcba987654321ull * (j + 3) >> 8;
    for (int k = 0; k < 4; k++)
        for (int t = 0; t < 2; t++) {
            double dc[ROUNDS], dj[ROUNDS], base[ROUNDS];
            for (int r = 0; r < ROUNDS; r++) {
                double a = ticks(t, K[k].k), c = ticks(t, K[k].c), j = ticks(t, K[k].j), a2 = ticks(t, K[k].k);
                double m = (a + a2) / 2; dc[r] = c - m; dj[r] = j - m; base[r] = m;
            }
            qsort(dc, ROUNDS, sizeof *dc, cmp); qsort(dj, ROUNDS, sizeof *dj, cmp); qsort(base, ROUNDS, sizeof *base, cmp);
            printf("%-9s %s direct %.1f  C form %+.2f [%+.2f,%+.2f]  jcc form %+.2f [%+.2f,%+.2f]\n", K[k].name, t ? "thr" : "lat",
                   base[ROUNDS / 2], dc[ROUNDS / 2], dc[ROUNDS / 4], dc[3 * ROUNDS / 4], dj[ROUNDS / 2], dj[ROUNDS / 4], dj[3 * ROUNDS / 4]);
        }
    return 0;
}
