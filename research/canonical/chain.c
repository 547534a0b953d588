/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* What canonical output costs p503's adx mul (or sqr): cost_canonical (the
 * generated kernel) against cost_lazy (the same kernel storing its [0, 2p)
 * result, see strip_tail.py), RDTSC, alternating batch by batch in one process.
 * Latency: x = mul(x, b) chained, as fieldgen-bench times it; throughput: 8
 * independent calls. Prints medians and the median paired difference in TSC
 * ticks. Checks first that the lazy result is the canonical one or it plus p.
 *
 *   python3 strip_tail.py ../../generated/p503/fg_p503_x86_64.S canonical_cost.S [--op sqr]
 *   cc -O2 chain.c canonical_cost.S -o chain && taskset -c 1 ./chain
 * (a squaring kernel ignores b).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

typedef void kernel(uint64_t *r, const uint64_t *a, const uint64_t *b);
kernel cost_canonical, cost_lazy;

enum { ITERS = 2000, ROUNDS = 401, W = 8 };
static const uint64_t P[8] = {~0ull, ~0ull, ~0ull, 0xabffffffffffffffull, 0x13085bda2211e7a0ull,
                              0x1b9bf6c87b7e7dafull, 0x6045c6bdda77a4d0ull, 0x004066f541811e1eull};
static uint64_t x[8] __attribute__((aligned(64))), b[8] __attribute__((aligned(64)));
static uint64_t ra[W][8] __attribute__((aligned(64))), rr[W][8] __attribute__((aligned(64)));

static inline uint64_t tsc(void) { _mm_lfence(); uint64_t t = __rdtsc(); _mm_lfence(); return t; }
static int cmp(const void *u, const void *v) { double a = *(const double *)u, c = *(const double *)v; return a < c ? -1 : a > c; }

__attribute__((noinline)) static double lat(kernel *k)
{
    uint64_t t0 = tsc();
    for (int i = 0; i < ITERS; i++) k(x, x, b);
    return (double)(tsc() - t0) / ITERS;
}
__attribute__((noinline)) static double thr(kernel *k)
{
    uint64_t t0 = tsc();
    for (int i = 0; i < ITERS / W; i++)
        for (int j = 0; j < W; j++) k(rr[j], ra[j], b);
    return (double)(tsc() - t0) / ITERS;
}

int main(void)
{
    for (int i = 0; i < 8; i++) {
        x[i] = ((uint64_t)rand() << 40) ^ ((uint64_t)rand() << 20) ^ (uint64_t)rand();
        b[i] = x[i] * 0x9e3779b97f4a7c15ull;
    }
    x[7] &= 0x3fffffffffffffull, b[7] &= 0x3fffffffffffffull;        /* below p */
    for (int j = 0; j < W; j++) memcpy(ra[j], x, sizeof x), ra[j][0] ^= (uint64_t)j;
    for (int t = 0; t < 1000; t++) {            /* lazy == canonical or canonical + p */
        uint64_t c[8], l[8], s[8];
        unsigned char cy = 0;
        cost_canonical(c, x, b), cost_lazy(l, x, b);
        for (int i = 0; i < 8; i++) cy = _addcarry_u64(cy, c[i], P[i], (unsigned long long *)&s[i]);
        if (memcmp(c, l, sizeof c) && memcmp(s, l, sizeof s)) { printf("MISMATCH\n"); return 1; }
        memcpy(x, c, sizeof c);
    }
    static double m[4][ROUNDS], d[2][ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        m[0][r] = lat(cost_canonical), m[1][r] = lat(cost_lazy);
        m[2][r] = thr(cost_canonical), m[3][r] = thr(cost_lazy);
        d[0][r] = m[1][r] - m[0][r], d[1][r] = m[3][r] - m[2][r];
    }
    for (int v = 0; v < 4; v++) qsort(m[v], ROUNDS, sizeof(double), cmp);
    for (int v = 0; v < 2; v++) qsort(d[v], ROUNDS, sizeof(double), cmp);
    printf("p503 adx kernel, ticks   canonical  lazy [0,2p)  lazy - canonical (paired)\n");
    printf("latency (chained)        %9.1f  %11.1f  %+.1f\n", m[0][ROUNDS / 2], m[1][ROUNDS / 2], d[0][ROUNDS / 2]);
    printf("throughput (8 calls)     %9.1f  %11.1f  %+.1f\n", m[2][ROUNDS / 2], m[3][ROUNDS / 2], d[1][ROUNDS / 2]);
    return 0;
}
