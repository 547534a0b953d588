/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The IFMA Fp2 mul against the adx one where its inputs come from scalar code.
 *
 * The IFMA kernels read each half of an operand with one 64-byte load. A load
 * can take its data forwarded from one earlier store that covers it, never
 * from several: after the IFMA kernel's own 64-byte stores it forwards, after
 * a scalar kernel's or the C code's 8-byte stores it waits until they reach
 * the cache. The bench's chains (fp2_mul feeding fp2_mul) see only the first
 * case; a curve's formulas mostly the second. This times, at the ifma and the
 * adx level (fg_isa_force), TSC ticks per call or per step, best of 300 runs
 * of 32 (per op: 64):
 *   mul       x = x * b, chained (the bench's latency loop)
 *   sqr+mul   x = x^2, x = x * b (the scalar squaring feeds the mul)
 *   add+mul   x = x + b, x = x * b (the C addition feeds the mul)
 *   xDBL      SIDH's point doubling on (X : Z): 4 mul, 2 sqr, 4 add/sub
 *   xDBLADD   SIDH's ladder step: 6 mul, 4 sqr, 8 add/sub, more of them
 *             independent of each other
 * for p503 (whose ifma level runs the IFMA Fp2 mul and the adx Fp2 sqr) and
 * p751 (IFMA mul and sqr). The element values are fixed multiples of one: the
 * functions are constant-time, so any values do.
 *
 * Build and run from the repository root (after a Release build):
 *   gcc -O2 -Igenerated/p503 -Igenerated/p751 -Iruntime -o /tmp/sidh_steps \
 *       research/forwarding/sidh_steps.c build/libfieldgen.a
 *   taskset -c 1 /tmp/sidh_steps */
#include <stdint.h>
#include <stdio.h>
#include <x86intrin.h>
#include "fg_cpu.h"
#include "fg_p503.h"
#include "fg_p751.h"

enum { MUL, SQR_MUL, ADD_MUL, XDBL, XDBLADD, NCASES };
static const char *const case_names[NCASES] = {"mul", "sqr+mul", "add+mul", "xDBL", "xDBLADD"};
static const double per_call[NCASES] = {1, 2, 2, 1, 1}; /* calls per loop step */

static uint64_t ticks(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

#define DEFINE(F)                                                                        \
    static F##_fp2 F##_XP, F##_ZP, F##_XQ, F##_ZQ, F##_A24, F##_C24, F##_xPQ;            \
    static void F##_xdbl(void)                                                           \
    {                                                                                    \
        F##_fp2 t0, t1;                                                                  \
        F##_fp2_sub(&t0, &F##_XP, &F##_ZP);                                              \
        F##_fp2_add(&t1, &F##_XP, &F##_ZP);                                              \
        F##_fp2_sqr(&t0, &t0);                                                           \
        F##_fp2_sqr(&t1, &t1);                                                           \
        F##_fp2_mul(&F##_ZP, &F##_C24, &t0);                                             \
        F##_fp2_mul(&F##_XP, &F##_ZP, &t1);                                              \
        F##_fp2_sub(&t1, &t1, &t0);                                                      \
        F##_fp2_mul(&t0, &F##_A24, &t1);                                                 \
        F##_fp2_add(&F##_ZP, &F##_ZP, &t0);                                              \
        F##_fp2_mul(&F##_ZP, &F##_ZP, &t1);                                              \
    }                                                                                    \
    static void F##_xdbladd(void)                                                        \
    {                                                                                    \
        F##_fp2 t0, t1, t2;                                                              \
        F##_fp2_add(&t0, &F##_XP, &F##_ZP);                                              \
        F##_fp2_sub(&t1, &F##_XP, &F##_ZP);                                              \
        F##_fp2_sqr(&F##_XP, &t0);                                                       \
        F##_fp2_sub(&t2, &F##_XQ, &F##_ZQ);                                              \
        F##_fp2_add(&F##_XQ, &F##_XQ, &F##_ZQ);                                          \
        F##_fp2_mul(&t0, &t0, &t2);                                                      \
        F##_fp2_sqr(&F##_ZP, &t1);                                                       \
        F##_fp2_mul(&t1, &t1, &F##_XQ);                                                  \
        F##_fp2_sub(&t2, &F##_XP, &F##_ZP);                                              \
        F##_fp2_mul(&F##_XP, &F##_XP, &F##_ZP);                                          \
        F##_fp2_mul(&F##_XQ, &F##_A24, &t2);                                             \
        F##_fp2_sub(&F##_ZQ, &t0, &t1);                                                  \
        F##_fp2_add(&F##_ZP, &F##_XQ, &F##_ZP);                                          \
        F##_fp2_add(&F##_XQ, &t0, &t1);                                                  \
        F##_fp2_mul(&F##_ZP, &F##_ZP, &t2);                                              \
        F##_fp2_sqr(&F##_ZQ, &F##_ZQ);                                                   \
        F##_fp2_sqr(&F##_XQ, &F##_XQ);                                                   \
        F##_fp2_mul(&F##_ZQ, &F##_xPQ, &F##_ZQ);                                         \
    }                                                                                    \
    static double F##_run(int c)                                                         \
    {                                                                                    \
        uint64_t best = UINT64_MAX;                                                      \
        for (int r = 0; r < 300; r++) {                                                  \
            uint64_t t0 = ticks();                                                       \
            for (int i = 0; i < 32; i++)                                                 \
                switch (c) {                                                             \
                case MUL:                                                                \
                    F##_fp2_mul(&F##_XP, &F##_XP, &F##_A24);                             \
                    F##_fp2_mul(&F##_XP, &F##_XP, &F##_A24);                             \
                    break;                                                               \
                case SQR_MUL:                                                            \
                    F##_fp2_sqr(&F##_XP, &F##_XP);                                       \
                    F##_fp2_mul(&F##_XP, &F##_XP, &F##_A24);                             \
                    break;                                                               \
                case ADD_MUL:                                                            \
                    F##_fp2_add(&F##_XP, &F##_XP, &F##_A24);                             \
                    F##_fp2_mul(&F##_XP, &F##_XP, &F##_A24);                             \
                    break;                                                               \
                case XDBL:                                                               \
                    F##_xdbl();                                                          \
                    break;                                                               \
                default:                                                                 \
                    F##_xdbladd();                                                       \
                }                                                                        \
            uint64_t t = ticks() - t0;                                                   \
            if (t < best)                                                                \
                best = t;                                                                \
        }                                                                                \
        return (double)best / 32 / (c == MUL ? 2 : per_call[c]);                         \
    }                                                                                    \
    static void F##_init(void)                                                           \
    {                                                                                    \
        F##_fp2 *v[] = {&F##_XP, &F##_ZP, &F##_XQ, &F##_ZQ, &F##_A24, &F##_C24, &F##_xPQ}; \
        for (int k = 0; k < 7; k++) {                                                    \
            F##_fp2_one(v[k]);                                                           \
            for (int j = 0; j < k + 2; j++)                                              \
                F##_fp2_add(v[k], v[k], v[k]);                                           \
        }                                                                                \
    }

DEFINE(fg_p503)
DEFINE(fg_p751)

int main(void)
{
    static const char *const levels[] = {"ifma", "adx"};
    if (fg_isa_best() < FG_ISA_IFMA) {
        printf("sidh_steps: this CPU has no AVX-512 IFMA level\n");
        return 0;
    }
    fg_p503_init();
    fg_p751_init();
    printf("TSC ticks per call (mul, sqr+mul, add+mul: per Fp2 call; xDBL, xDBLADD: per step)\n");
    for (int round = 0; round < 3; round++)
        for (int l = 0; l < 2; l++) {
            fg_isa_force((fg_isa)fg_isa_parse(levels[l]));
            printf("%-5s", levels[l]);
            for (int c = 0; c < NCASES; c++)
                printf("  p503 %s %.1f", case_names[c], fg_p503_run(c));
            printf("\n     ");
            for (int c = 0; c < NCASES; c++)
                printf("  p751 %s %.1f", case_names[c], fg_p751_run(c));
            printf("\n");
        }
    return 0;
}
