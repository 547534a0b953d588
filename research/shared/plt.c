/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Dispatched calls through a shared library, with and without PLT stubs.
 *
 * Build the four shipped fields into libfg.so twice, from sources before
 * protected visibility (the commit before it, 70a1bf1: every call from the
 * library to its own functions goes through a PLT stub) and from today's,
 * each in its own folder, then one program that finds the library through
 * ./sel, a link switched between the two:
 *
 *   for v in old new; do mkdir -p $v; ...; cc -O2 -fPIC -shared -I... \
 *       fg_p256.c fg_p256_x86_64.S ... fg_cpu.c -o $v/libfg.so; done
 *   cc -O2 -I... plt.c -Lnew -lfg -Wl,-rpath,'$ORIGIN/sel' -o plt
 *   for v in old new old new; do ln -sfn $v sel; taskset -c 1 ./plt; done
 *
 * Each row: the median over 301 samples of TSC ticks per call. "chain" is
 * x = op(x, y) in place (the next call loads what this one stored), "fed"
 * the same multiplication with its input written by an ALU operation on the
 * previous output, "tput" 8 independent chains. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

#include "fg_p256.h"
#include "fg_p503.h"

#define SAMPLES 301

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* prints the median ticks per call of `body` run `reps` times a sample */
#define BENCH(label, calls, body)                                                      \
    do {                                                                               \
        double s[SAMPLES];                                                             \
        for (int k = 0; k < SAMPLES; k++) {                                            \
            unsigned aux;                                                              \
            _mm_lfence();                                                              \
            uint64_t t0 = __rdtsc();                                                   \
            _mm_lfence();                                                              \
            body;                                                                      \
            uint64_t t1 = __rdtscp(&aux);                                              \
            _mm_lfence();                                                              \
            s[k] = (double)(t1 - t0) / (calls);                                        \
        }                                                                              \
        qsort(s, SAMPLES, sizeof s[0], cmp);                                           \
        printf("%-22s %9.2f\n", label, s[SAMPLES / 2]);                                \
    } while (0)

int main(void)
{
    fg_p256 a[8], b;
    fg_p503 c, d;
    fg_p503_fp2 u;
    for (int j = 0; j < 8; j++)
        fg_p256_from_u64(&a[j], 3 + (uint64_t)j);
    fg_p256_from_u64(&b, 5);
    fg_p503_from_u64(&c, 3);
    fg_p503_from_u64(&d, 5);
    u.c0 = c;
    u.c1 = d;
    BENCH("p256 mul chain", 2000, for (int i = 0; i < 2000; i++) fg_p256_mul(&a[0], &a[0], &b));
    BENCH("p256 sqr chain", 2000, for (int i = 0; i < 2000; i++) fg_p256_sqr(&a[0], &a[0]));
    BENCH("p256 mul fed", 2000, for (int i = 0; i < 2000; i++) {
        fg_p256_mul(&a[0], &a[1], &b);
        a[1].limb[0] ^= a[0].limb[3] & 1;
    });
    BENCH("p256 mul tput", 4000, for (int i = 0; i < 500; i++) for (int j = 0; j < 8; j++)
        fg_p256_mul(&a[j], &a[j], &b));
    BENCH("p503 mul chain", 2000, for (int i = 0; i < 2000; i++) fg_p503_mul(&c, &c, &d));
    BENCH("p503 fp2_mul chain", 200, for (int i = 0; i < 200; i++) fg_p503_fp2_mul(&u, &u, &u));
    BENCH("p256 inv_fermat chain", 20, for (int i = 0; i < 20; i++) fg_p256_inv_fermat(&a[0], &a[0]));
    BENCH("p503 inv_fermat chain", 5, for (int i = 0; i < 5; i++) fg_p503_inv_fermat(&c, &c));
    return (int)((a[0].limb[0] ^ c.limb[0] ^ u.c0.limb[0]) & 1) + 2 * (fg_p503_is_zero(&d) != 0);
}
