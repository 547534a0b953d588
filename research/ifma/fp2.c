/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* p751 Fp2 multiplication (u^2 = -1) with IFMA: c0 = a0*b0 + a1*(p - b1),
 * c1 = a0*b1 + a1*b0, four products accumulated column-wise (no carries),
 * then two Montgomery reductions. a0, a1 are the shifted (lane) operands,
 * pre-shifted by SH = 12 bits; digits of b0, b1, p - b1 are broadcast. */
#ifndef MEMB
#define MEMB 1 /* measured: -6..9% for Fp2 (throughput-bound), +2..5% for single mul */
#endif
#include "ifma.h"
#ifndef FP2IL
#define FP2IL 0
#endif
#ifndef FP2NA
#define FP2NA 2
#endif
extern ifma_tbl t751, t751z, t503, t503z;
extern const uint64_t fg_p503_P[8];
extern const uint64_t fg_p751_P[12];

static inline __attribute__((always_inline)) void
fp2_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const ifma_tbl *T, const ifma_tbl *TZ,
        const uint64_t *P, const int NL, const int ND, const int K)
{
    const int NB = (2 * ND + 7) / 8;
    const int NG = (ND + K - 1) / K;
    const __m512i Z = _mm512_setzero_si512();
    const __mmask8 km1 = (__mmask8)((1u << (NL - 8)) - 1);
    /* a digits (shifted) */
    __m512i A[2][2];
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        __m512i r0 = _mm512_loadu_si512(a + NL * h), r1 = _mm512_maskz_loadu_epi64(km1, a + NL * h + 8);
        A[h][0] = _mm512_srlv_epi64(_mm512_maskz_permutex2var_epi8(T->bk[0], r0, T->bidx[0], r1), T->bsh[0]);
        A[h][1] = _mm512_srlv_epi64(_mm512_maskz_permutex2var_epi8(T->bk[1], r0, T->bidx[1], r1), T->bsh[1]);
    }
    /* n = p - b1 (64-bit limbs, borrow lookahead), then digits -> stack */
    uint64_t nbuf[16] __attribute__((aligned(64)));
    {
        __m512i b0 = _mm512_loadu_si512(b + NL), b1 = _mm512_maskz_loadu_epi64(km1, b + NL + 8);
        __m512i p0 = _mm512_loadu_si512(P), p1 = _mm512_maskz_loadu_epi64(km1, P + 8);
        __m512i d0 = _mm512_sub_epi64(p0, b0), d1 = _mm512_sub_epi64(p1, b1);
        uint32_t g = _cvtmask8_u32(_mm512_cmplt_epu64_mask(p0, b0)) | (_cvtmask8_u32(_mm512_cmplt_epu64_mask(p1, b1)) << 8);
        uint32_t e = _cvtmask8_u32(_mm512_cmpeq_epu64_mask(p0, b0)) | (_cvtmask8_u32(_mm512_cmpeq_epu64_mask(p1, b1)) << 8);
        uint32_t bi = ((g << 1) + e) ^ e;
        const __m512i one = _mm512_set1_epi64(1);
        d0 = _mm512_mask_sub_epi64(d0, (__mmask8)bi, d0, one);
        d1 = _mm512_maskz_sub_epi64(km1, d1, _mm512_maskz_mov_epi64((__mmask8)(bi >> 8), one));
        __m512i n0 = _mm512_srlv_epi64(_mm512_maskz_permutex2var_epi8(TZ->bk[0], d0, TZ->bidx[0], d1), TZ->bsh[0]);
        __m512i n1 = _mm512_srlv_epi64(_mm512_maskz_permutex2var_epi8(TZ->bk[1], d0, TZ->bidx[1], d1), TZ->bsh[1]);
        _mm512_store_si512(nbuf, n0);
        _mm512_store_si512(nbuf + 8, n1);
    }
    enum { NA = FP2NA };
    __m512i Ril[2][4];
#pragma GCC unroll 2
    for (int x = 0; x < 2; x++)
#pragma GCC unroll 4
        for (int q = 0; q < 4; q++) Ril[x][q] = _mm512_setzero_si512();
    __m512i pa[2][4][NA], snap[2][4][4];
    int pn[2][4] = {{0}};
#pragma GCC unroll 2
    for (int x = 0; x < 2; x++)
#pragma GCC unroll 4
        for (int q = 0; q < 4; q++)
#pragma GCC unroll 4
            for (int k = 0; k < NA; k++) pa[x][q][k] = fz();
#pragma GCC unroll 16
    for (int j = 0; j < ND; j++) {
        __m512i bj0 = ifma_adigit(b, NL, j, 0), bj1 = ifma_adigit(b + NL, NL, j, 0);
        __m512i nj = _mm512_set1_epi64((long long)nbuf[j]);
        /* (x, multiplier, which a) */
#pragma GCC unroll 4
        for (int t = 0; t < 4; t++) {
            int x = t >> 1, h = t & 1;
            __m512i mj = t == 0 ? bj0 : t == 1 ? nj : t == 2 ? bj1 : bj0;
#pragma GCC unroll 4
            for (int q = 0; q < NB; q++) {
                if (ovl(8 * q, 8 * q + 7, j, j + ND - 1)) {
                    int k = pn[x][q]++ % NA;
                    pa[x][q][k] = MLO(pa[x][q][k], mj, ifma_S(A[h][0], A[h][1], 8 * q - j));
                }
                if (ovl(8 * q, 8 * q + 7, j + 1, j + ND)) {
                    int k = pn[x][q]++ % NA;
                    pa[x][q][k] = MHI(pa[x][q][k], mj, ifma_S(A[h][0], A[h][1], 8 * q - j - 1));
                }
            }
        }
#pragma GCC unroll 4
        for (int g = 0; g < NG; g++) {
            int c0 = g * K, end = (g + 1) * K < ND ? (g + 1) * K : ND;
            if (j == end - 1)
#pragma GCC unroll 2
                for (int x = 0; x < 2; x++)
#pragma GCC unroll 4
                    for (int q = c0 / 8; q <= (end - 1) / 8; q++)
                        snap[x][g][q] = (NA == 3 ? _mm512_add_epi64(_mm512_add_epi64(pa[x][q][0], pa[x][q][1]), pa[x][q][NA - 1]) : _mm512_add_epi64(pa[x][q][0], pa[x][q][1]));
#if FP2IL
            if (j == end - 1) {
                ifma_red_group(g, snap[0], Ril[0], T, ND, K);
                ifma_red_group(g, snap[1], Ril[1], T, ND, K);
            }
#endif
        }
    }
    __m512i totp[2][4];
#pragma GCC unroll 2
    for (int x = 0; x < 2; x++)
#pragma GCC unroll 4
        for (int q = 0; q < NB; q++)
            totp[x][q] = (NA == 3 ? _mm512_add_epi64(_mm512_add_epi64(pa[x][q][0], pa[x][q][1]), pa[x][q][NA - 1]) : _mm512_add_epi64(pa[x][q][0], pa[x][q][1]));
#if FP2IL
    ifma_fin(r, totp[0], Ril[0], T, NL, ND);
    ifma_fin(r + NL, totp[1], Ril[1], T, NL, ND);
#elif FP2SEQ
    ifma_redfin(r, snap[0], totp[0], T, NL, ND, K);
    ifma_redfin(r + NL, snap[1], totp[1], T, NL, ND, K);
#else
    __m512i R[2][4];
#pragma GCC unroll 2
    for (int x = 0; x < 2; x++)
#pragma GCC unroll 4
        for (int q = 0; q < 4; q++) R[x][q] = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int g = 0; g < NG; g++) {
        ifma_red_group(g, snap[0], R[0], T, ND, K);
        ifma_red_group(g, snap[1], R[1], T, ND, K);
    }
    ifma_fin(r, totp[0], R[0], T, NL, ND);
    ifma_fin(r + NL, totp[1], R[1], T, NL, ND);
#endif
}

__attribute__((noinline)) void p751_fp2_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    fp2_mul(r, a, b, &t751, &t751z, fg_p751_P, 12, 15, 7);
}

__attribute__((noinline)) void p503_fp2_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    fp2_mul(r, a, b, &t503, &t503z, fg_p503_P, 8, 10, 4);
}
