/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Could a hybrid *Fp* mul pay at 8 limbs?  The vector half it would need,
 * measured on its own.
 *
 * The split studied (p503, 8 limbs): the IFMA units compute a_H * b (a_H =
 * a's top 4 limbs, 32 of the 64 products), the scalar units a_L * b (4 clean
 * product rows) and the whole Montgomery reduction (40 MULX), and the vector
 * result is added in before reduction row 4, the first that needs column 4.
 * The scalar half would execute 72 MULX instead of 104 and about 85 fewer
 * instructions in all (337 -> ~255, about 0.43x bn_mul_mont at the kernel's
 * present rate), but only if the vector product arrives by the time the
 * scalar half reaches row 4: about 78 core cycles in (4 product rows and 4
 * reduction rows, 52 MULX and ~117 ALU instructions at the kernel's 2.16
 * per cycle). Deferring the vector part to the end instead (a_H * b_H, whose
 * products all land at 2^512 and up) leaves the scalar rows 4..7 ending in the
 * middle of the accumulator (carries ripple through occupied columns): about
 * 31 instructions saved, 0.51x at best.
 *
 * This program times the vector half alone as a chain (each result's low
 * half is the next call's a_H), written with intrinsics in its shortest
 * form: both operands to radix 2^52 by one VPERMB + VPSRLVQ + VPANDQ each,
 * 5 x 10 digit products on eight accumulators (chains three deep), one
 * carry-save step, exact carries by generate/propagate k-masks resolved in
 * a GPR, and the packing to 12 64-bit words by VPERMI2Q + shifts +
 * VPTERNLOGQ; checked against a schoolbook product on 100,000 inputs. Beside
 * it, in the same process, the shipped scalar kernel fg_p503_mul_adx_zen.
 * STAGE=1 stores the column sums right after the products (no carries, no
 * packing), STAGE=2 the converted operands (loads and conversion only):
 * how the chain's length divides (outputs unchecked in those two).
 *
 *   cc -O2 -march=native [-DSTAGE=1|2] -I../../generated/p503 -I../../runtime \
 *      fpmul_half.c ../../build/libfieldgen.a -o fpmul_half && taskset -c 1 ./fpmul_half
 *
 * Needs AVX-512 F, BW, VBMI and IFMA (a Zen 4 or a recent Intel core).
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
#include "fg_p503.h"

#ifndef STAGE
#define STAGE 0
#endif
#define M52 ((1ull << 52) - 1)

/* radix 2^52 conversion: digit l of block f takes the 8 bytes from bit 52 (8f + l) on */
static uint8_t conv_idx[2][64] __attribute__((aligned(64)));
static uint64_t conv_shift[2][8] __attribute__((aligned(64)));
static __mmask64 conv_keep[2];
/* packing: word w = d[k] >> r | d[k+1] << (52 - r) | d[k+2] << (104 - r), k = 64w / 52 */
static uint64_t pack_idx[3][16] __attribute__((aligned(64)));
static uint64_t pack_shift[3][16] __attribute__((aligned(64)));

static void init_tables(void)
{
    for (int f = 0; f < 2; f++)
        for (int l = 0; l < 8; l++) {
            int bit = 52 * (8 * f + l), byte = bit / 8;
            conv_shift[f][l] = (uint64_t)(bit % 8);
            for (int j = 0; j < 8; j++) {
                int sb = byte + j;
                conv_idx[f][8 * l + j] = (uint8_t)(sb & 63);
                if (sb < 64)
                    conv_keep[f] |= 1ull << (8 * l + j);
            }
        }
    for (int w = 0; w < 16; w++) {
        int k = 64 * w / 52, r = 64 * w - 52 * k;
        for (int t = 0; t < 3; t++)
            pack_idx[t][w] = (uint64_t)((k + t) & 15);
        pack_shift[0][w] = (uint64_t)r;
        pack_shift[1][w] = (uint64_t)(52 - r);
        pack_shift[2][w] = (uint64_t)(104 - r < 64 ? 104 - r : 64); /* 64: shifted out */
    }
}

static inline __m512i to_digits(__m512i raw, int f)
{
    __m512i g = _mm512_maskz_permutexvar_epi8(conv_keep[f], _mm512_load_si512(conv_idx[f]), raw);
    return _mm512_and_si512(_mm512_srlv_epi64(g, _mm512_load_si512(conv_shift[f])), _mm512_set1_epi64(M52));
}

/* out[0..11] = ah[0..3] * b[0..7] (ah: a's top half, little-endian 64-bit limbs) */
__attribute__((noinline)) static void vector_half(uint64_t out[12], const uint64_t ah[4], const uint64_t b[8])
{
    __m512i z = _mm512_setzero_si512();
    __m512i a = _mm512_maskz_mov_epi64(0x1f, to_digits(_mm512_zextsi256_si512(_mm256_loadu_si256((const void *)ah)), 0));
    __m512i braw = _mm512_loadu_si512(b);
    __m512i b0 = to_digits(braw, 0), b1 = _mm512_maskz_mov_epi64(0x03, to_digits(braw, 1));
#if STAGE == 2
    _mm512_storeu_si512(out, a);
    _mm256_storeu_si256((void *)(out + 8), _mm512_castsi512_si256(b0));
    return;
#endif
    /* b's digits moved up by s lanes, over two blocks of 8 columns */
    __m512i x0[6], x1[6];
    x0[0] = b0;
    x1[0] = b1;
#define SHIFTED(s) x0[s] = _mm512_alignr_epi64(b0, z, 8 - (s)); x1[s] = _mm512_alignr_epi64(b1, b0, 8 - (s));
    SHIFTED(1) SHIFTED(2) SHIFTED(3) SHIFTED(4) SHIFTED(5)
    /* digit i of a: lo(a_i b_j) at column i + j, hi at i + j + 1; even and odd i on separate accumulators */
    __m512i acc[2][4] = {{z, z, z, z}, {z, z, z, z}};
#define ROW(i)                                                                                  \
    {                                                                                           \
        __m512i ai = _mm512_permutexvar_epi64(_mm512_set1_epi64(i), a);                         \
        __m512i *c = acc[(i) & 1];                                                              \
        c[0] = _mm512_madd52lo_epu64(c[0], ai, x0[i]);                                          \
        c[1] = _mm512_madd52lo_epu64(c[1], ai, x1[i]);                                          \
        c[2] = _mm512_madd52hi_epu64(c[2], ai, x0[(i) + 1]);                                    \
        c[3] = _mm512_madd52hi_epu64(c[3], ai, x1[(i) + 1]);                                    \
    }
    ROW(0) ROW(1) ROW(2) ROW(3) ROW(4)
    __m512i s0 = _mm512_add_epi64(_mm512_add_epi64(acc[0][0], acc[0][2]), _mm512_add_epi64(acc[1][0], acc[1][2]));
    __m512i s1 = _mm512_add_epi64(_mm512_add_epi64(acc[0][1], acc[0][3]), _mm512_add_epi64(acc[1][1], acc[1][3]));
#if STAGE == 1
    _mm512_storeu_si512(out, s0);
    _mm256_storeu_si256((void *)(out + 8), _mm512_castsi512_si256(s1));
    return;
#endif
    /* one carry-save step: d_k = lo52(s_k) + (s_(k-1) >> 52), below 2^52 + 2^4 */
    __m512i m = _mm512_set1_epi64(M52);
    __m512i h0 = _mm512_srli_epi64(s0, 52), h1 = _mm512_srli_epi64(s1, 52);
    __m512i d0 = _mm512_add_epi64(_mm512_and_si512(s0, m), _mm512_alignr_epi64(h0, z, 7));
    __m512i d1 = _mm512_add_epi64(_mm512_and_si512(s1, m), _mm512_alignr_epi64(h1, h0, 7));
    /* exact: a carry of 1 out of every digit above 2^52 - 1, through digits equal to 2^52 - 1 */
    unsigned g = _mm512_cmpgt_epu64_mask(d0, m) | (unsigned)_mm512_cmpgt_epu64_mask(d1, m) << 8;
    d0 = _mm512_and_si512(d0, m);
    d1 = _mm512_and_si512(d1, m);
    unsigned p = _mm512_cmpeq_epu64_mask(d0, m) | (unsigned)_mm512_cmpeq_epu64_mask(d1, m) << 8;
    unsigned x = p | g, cin = (x + g) ^ x ^ g; /* bit k: a carry into digit k */
    __m512i ones = _mm512_set1_epi64(-1);
    d0 = _mm512_and_si512(_mm512_mask_sub_epi64(d0, (__mmask8)cin, d0, ones), m);
    d1 = _mm512_and_si512(_mm512_mask_sub_epi64(d1, (__mmask8)(cin >> 8), d1, ones), m);
    /* 15 digits to 12 words */
    __m512i w[2];
    for (int v = 0; v < 2; v++) {
        __m512i t0 = _mm512_permutex2var_epi64(d0, _mm512_load_si512(pack_idx[0] + 8 * v), d1);
        __m512i t1 = _mm512_permutex2var_epi64(d0, _mm512_load_si512(pack_idx[1] + 8 * v), d1);
        __m512i t2 = _mm512_permutex2var_epi64(d0, _mm512_load_si512(pack_idx[2] + 8 * v), d1);
        t0 = _mm512_srlv_epi64(t0, _mm512_load_si512(pack_shift[0] + 8 * v));
        t1 = _mm512_sllv_epi64(t1, _mm512_load_si512(pack_shift[1] + 8 * v));
        t2 = _mm512_sllv_epi64(t2, _mm512_load_si512(pack_shift[2] + 8 * v));
        w[v] = _mm512_ternarylogic_epi64(t0, t1, t2, 0xfe);
    }
    _mm512_storeu_si512(out, w[0]);
    _mm256_storeu_si256((void *)(out + 8), _mm512_castsi512_si256(w[1]));
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static inline uint64_t tsc(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}
static int cmpd(const void *x, const void *y)
{
    double u = *(const double *)x, v = *(const double *)y;
    return (u > v) - (u < v);
}

int main(void)
{
    init_tables();
    for (int t = 0; STAGE == 0 && t < 100000; t++) {
        uint64_t ah[4], b[8], out[12], ref[12] = {0};
        for (int i = 0; i < 4; i++)
            ah[i] = t % 7 == 0 ? ~0ull : rnd();
        for (int i = 0; i < 8; i++)
            b[i] = t % 5 == 0 ? ~0ull : rnd();
        for (int i = 0; i < 4; i++) {
            uint64_t c = 0;
            for (int j = 0; j < 8; j++) {
                unsigned __int128 s = (unsigned __int128)ah[i] * b[j] + ref[i + j] + c;
                ref[i + j] = (uint64_t)s;
                c = (uint64_t)(s >> 64);
            }
            ref[i + 8] = c;
        }
        vector_half(out, ah, b);
        if (memcmp(out, ref, sizeof ref)) {
            printf("vector half: wrong product at input %d\n", t);
            return 1;
        }
    }
    enum { ROUNDS = 201, ITERS = 2000 };
    static double tv[ROUNDS], ts[ROUNDS], ta[ROUNDS];
    static uint64_t x[12], y[8];
    for (int i = 0; i < 8; i++) {
        x[i] = rnd();
        y[i] = rnd();
    }
    fg_p503 fx, fy;
    memcpy(fx.limb, x, sizeof fx.limb);
    memcpy(fy.limb, y, sizeof fy.limb);
    fx.limb[7] >>= 12; /* below p */
    fy.limb[7] >>= 12;
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t t0 = tsc();
        for (int i = 0; i < ITERS; i++)
            vector_half(x, x, y); /* x's low 4 words: the next a_H */
        uint64_t t1 = tsc();
        for (int i = 0; i < ITERS; i++)
            fg_p503_mul_adx_zen(fx.limb, fx.limb, fy.limb);
        uint64_t t2 = tsc();
        for (int i = 0; i < ITERS; i++)
            __asm__ volatile("add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
                             "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0" : "+r"(x[11]));
        uint64_t t3 = tsc();
        tv[r] = (double)(t1 - t0) / ITERS;
        ts[r] = (double)(t2 - t1) / ITERS;
        ta[r] = (double)(t3 - t2) / ITERS / 8;
    }
    qsort(tv, ROUNDS, sizeof tv[0], cmpd);
    qsort(ts, ROUNDS, sizeof ts[0], cmpd);
    qsort(ta, ROUNDS, sizeof ta[0], cmpd);
    double cyc = 1 / ta[ROUNDS / 2]; /* core cycles per tick: one dependent ADD is one cycle */
    printf("stage %d%s: vector half %.1f ticks (%.0f core cycles), scalar p503 mul_adx_zen %.1f ticks (%.0f cycles), "
           "median of %d rounds of %d chained calls\n",
           STAGE, STAGE ? " (unchecked)" : ", checked", tv[ROUNDS / 2], tv[ROUNDS / 2] * cyc, ts[ROUNDS / 2],
           ts[ROUNDS / 2] * cyc, ROUNDS, ITERS);
    return 0;
}
