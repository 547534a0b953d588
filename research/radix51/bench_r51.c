/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* research/radix51/bench_r51.c: TSC ticks per call of fieldgen's 4x64 C
 * fg_p25519_mul_c / sqr_c against this study's 5x51 C (r51.c), converting
 * per call (r51_mul / r51_sqr, and the other exits: r51_mul_b / r51_sqr_b,
 * r51_mul_p / r51_sqr_p) and not converting (r51_mul5 / r51_sqr5, the
 * bound of a representation kept in 5x51, whose loose output is what
 * fieldgen's 4x64 mul_lazy_c / sqr_lazy_c, also timed, compare with).
 * fg_p25519_mul_adx / sqr_adx are timed too, as context only.
 *
 * Build (x86-64; CC = gcc or clang; every file by the same compiler, -O3 as
 * CMake's Release, no -march), from the repository root:
 *   for CC in gcc clang; do nice -n 19 $CC -O3 -Igenerated/p25519 -Iruntime \
 *       research/radix51/bench_r51.c research/radix51/r51.c \
 *       generated/p25519/fg_p25519.c generated/p25519/fg_p25519_x86_64.S \
 *       runtime/fg_cpu.c -o /tmp/bench_r51_$CC; done
 * (the study also builds each with -march=native: research/radix51/run.sh)
 * Run (pinned, one process per compiler):
 *   nice -n 19 taskset -c 1 /tmp/bench_r51_gcc [rounds]
 *
 * Method: each round times, for every kernel in turn (interleaved, the order
 * rotated every round), a latency chain of CHAIN calls (x = f(x, y): the
 * output feeds the next call) and a throughput loop of CHAIN independent
 * calls over arrays, each between LFENCE; RDTSC ... LFENCE; RDTSC. The
 * figure is the median over rounds of ticks per call; the ratio column is
 * the median over rounds of the per-round ratio to the 4x64 C kernel.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

void r51_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void r51_sqr(uint64_t r[4], const uint64_t a[4]);
void r51_mul_b(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void r51_sqr_b(uint64_t r[4], const uint64_t a[4]);
void r51_mul_p(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void r51_sqr_p(uint64_t r[4], const uint64_t a[4]);
void r51_mul5(uint64_t r[5], const uint64_t a[5], const uint64_t b[5]);
void r51_sqr5(uint64_t r[5], const uint64_t a[5]);
void r51_to51(uint64_t a[5], const uint64_t x[4]);
void fg_p25519_mul_c(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void fg_p25519_sqr_c(uint64_t r[4], const uint64_t a[4]);
void fg_p25519_mul_lazy_c(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void fg_p25519_sqr_lazy_c(uint64_t r[4], const uint64_t a[4]);
void fg_p25519_mul_adx(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void fg_p25519_sqr_adx(uint64_t r[4], const uint64_t a[4]);

#define CHAIN 200
#define NK 14

typedef void (*mulf)(uint64_t *, const uint64_t *, const uint64_t *);
typedef void (*sqrf)(uint64_t *, const uint64_t *);

static const struct {
    const char *name;
    mulf mul;
    sqrf sqr;
    int five;
} K[NK] = {
    {"mul 4x64 C (fg_p25519_mul_c)", fg_p25519_mul_c, 0, 0},
    {"mul 5x51 C, converting (r51_mul)", r51_mul, 0, 0},
    {"mul 5x51 C, converting, exit b (r51_mul_b)", r51_mul_b, 0, 0},
    {"mul 5x51 C, converting, exit p (r51_mul_p)", r51_mul_p, 0, 0},
    {"mul 5x51 C, no conversion (r51_mul5)", (mulf)r51_mul5, 0, 1},
    {"mul_lazy 4x64 C (fg_p25519_mul_lazy_c)", fg_p25519_mul_lazy_c, 0, 0},
    {"mul adx asm (context)", fg_p25519_mul_adx, 0, 0},
    {"sqr 4x64 C (fg_p25519_sqr_c)", 0, fg_p25519_sqr_c, 0},
    {"sqr 5x51 C, converting (r51_sqr)", 0, r51_sqr, 0},
    {"sqr 5x51 C, converting, exit b (r51_sqr_b)", 0, r51_sqr_b, 0},
    {"sqr 5x51 C, converting, exit p (r51_sqr_p)", 0, r51_sqr_p, 0},
    {"sqr 5x51 C, no conversion (r51_sqr5)", 0, (sqrf)r51_sqr5, 1},
    {"sqr_lazy 4x64 C (fg_p25519_sqr_lazy_c)", 0, fg_p25519_sqr_lazy_c, 0},
    {"sqr adx asm (context)", 0, fg_p25519_sqr_adx, 0},
};

static uint64_t A[CHAIN][5], B[CHAIN][5], R[CHAIN][5];
static uint64_t A51[CHAIN][5], B51[CHAIN][5];

static inline uint64_t ticks(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

static double lat(int k)
{
    uint64_t x[5], y[5], t0, t1;
    int i;
    memcpy(x, K[k].five ? A51[0] : A[0], 40);
    memcpy(y, K[k].five ? B51[0] : B[0], 40);
    t0 = ticks();
    if (K[k].mul)
        for (i = 0; i < CHAIN; i++)
            K[k].mul(x, x, y);
    else
        for (i = 0; i < CHAIN; i++)
            K[k].sqr(x, x);
    t1 = ticks();
    R[0][0] ^= x[0];
    return (double)(t1 - t0) / CHAIN;
}

static double thr(int k)
{
    uint64_t(*a)[5] = K[k].five ? A51 : A, (*b)[5] = K[k].five ? B51 : B, t0, t1;
    int i;
    t0 = ticks();
    if (K[k].mul)
        for (i = 0; i < CHAIN; i++)
            K[k].mul(R[i], a[i], b[i]);
    else
        for (i = 0; i < CHAIN; i++)
            K[k].sqr(R[i], a[i]);
    t1 = ticks();
    return (double)(t1 - t0) / CHAIN;
}

static int cmpd(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmpd);
    return n & 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3001, r, k, i, j, w;
    double *L[NK], *T[NK], *RL[NK], *RT[NK];
    uint64_t s = 0x243f6a8885a308d3u;
    for (i = 0; i < CHAIN; i++) {
        for (j = 0; j < 4; j++) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            A[i][j] = s;
            s = s * 6364136223846793005u + 1442695040888963407u;
            B[i][j] = s;
        }
        A[i][3] >>= 1, B[i][3] >>= 1; /* canonical-ish: below 2^255 */
        r51_to51(A51[i], A[i]);
        r51_to51(B51[i], B[i]);
    }
    for (k = 0; k < NK; k++) {
        L[k] = malloc(rounds * sizeof(double));
        T[k] = malloc(rounds * sizeof(double));
        RL[k] = malloc(rounds * sizeof(double));
        RT[k] = malloc(rounds * sizeof(double));
    }
    for (w = 0; w < 200; w++) /* warm-up */
        for (k = 0; k < NK; k++)
            lat(k), thr(k);
    for (r = 0; r < rounds; r++) {
        for (i = 0; i < NK; i++) {
            k = (i + r) % NK;
            L[k][r] = lat(k);
            T[k][r] = thr(k);
        }
        for (k = 0; k < NK; k++) {
            int base = k < NK / 2 ? 0 : NK / 2;
            RL[k][r] = L[k][r] / L[base][r];
            RT[k][r] = T[k][r] / T[base][r];
        }
    }
    printf("%-46s %9s %9s %9s %9s\n", "kernel", "latency", "x 4x64 C", "thruput", "x 4x64 C");
    for (k = 0; k < NK; k++)
        printf("%-46s %9.1f %9.3f %9.1f %9.3f\n", K[k].name, median(L[k], rounds),
               median(RL[k], rounds), median(T[k], rounds), median(RT[k], rounds));
    printf("(TSC ticks per call, medians of %d rounds of %d calls)\n", rounds, CHAIN);
    return 0;
}
