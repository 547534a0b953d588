/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* How a kernel's speed depends on where its data sits modulo 4 KiB.
 *
 * A chain x = f(x) through one buffer, the buffer moved in 64-byte steps
 * across one 4 KiB page while the stack stays put, so that every offset of
 * the data against the kernel's stack slots (mod 4096) is tried once. A load
 * whose address matches an earlier store's in its low 12 bits may wait for
 * that store (4K aliasing); a kernel that keeps operands on the stack shows
 * it as slower calls at a few offsets.
 *
 * Build and run from the repository root (after a Release build):
 *   gcc -O2 -Igenerated/p503 -Iruntime -o /tmp/alias4k \
 *       research/aliasing/alias4k.c build/libfieldgen.a
 *   taskset -c 1 /tmp/alias4k sqr     (or mul, fp2_mul, fp2_sqr)
 * Output: the frame's offset mod 4096, then "offset ticks" per line: TSC
 * ticks per call, the median of 31 runs of 200 chained calls, each run
 * visiting every offset in turn. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
#include "fg_p503.h"

static uint64_t ticks(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void call(const char *op, fg_p503_fp2 *x)
{
    if (!strcmp(op, "fp2_sqr"))
        fg_p503_fp2_sqr_adx(x, x);
    else if (!strcmp(op, "fp2_mul"))
        fg_p503_fp2_mul_adx(x, x, x);
    else if (!strcmp(op, "mul"))
        fg_p503_mul_adx(x->c0.limb, x->c0.limb, x->c1.limb);
    else
        fg_p503_sqr_adx(x->c0.limb, x->c0.limb);
}

int main(int argc, char **argv)
{
    static unsigned char page[3 * 4096] __attribute__((aligned(4096)));
    const char *op = argc > 1 ? argv[1] : "fp2_sqr";
    enum { RUNS = 31, CALLS = 200 };
    printf("frame mod 4096: %lu\n", (unsigned long)((uintptr_t)__builtin_frame_address(0) % 4096));
    enum { OFFSETS = 4096 / 64 };
    static double t[OFFSETS][RUNS];
    for (int off = 0; off < OFFSETS; off++) {
        fg_p503_fp2 *x = (fg_p503_fp2 *)(page + 4096 + 64 * off);
        for (int i = 0; i < FG_P503_LIMBS; i++) {   /* below p: top limbs small */
            x->c0.limb[i] = 0x9e3779b97f4a7c15u * (uint64_t)(i + 1);
            x->c1.limb[i] = 0xc2b2ae3d27d4eb4fu * (uint64_t)(i + 3);
        }
        x->c0.limb[FG_P503_LIMBS - 1] = x->c1.limb[FG_P503_LIMBS - 1] = 1;
    }
    /* every run visits every offset, so the host's slow and fast phases
     * spread over all offsets alike instead of over a stretch of them */
    for (int r = 0; r < RUNS; r++)
        for (int off = 0; off < OFFSETS; off++) {
            fg_p503_fp2 *x = (fg_p503_fp2 *)(page + 4096 + 64 * off);
            uint64_t t0 = ticks();
            for (int k = 0; k < CALLS; k++)
                call(op, x);
            t[off][r] = (double)(ticks() - t0) / CALLS;
        }
    for (int off = 0; off < OFFSETS; off++) {
        qsort(t[off], RUNS, sizeof t[off][0], by_value);
        printf("%4d %7.1f\n", 64 * off, t[off][RUNS / 2]);
    }
    return 0;
}
