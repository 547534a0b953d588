/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#include "ifma.h"
#include <stdio.h>

static uint64_t getbits(const uint64_t *x, int n, int pos, int len)
{ /* bits [pos, pos+len) of x (n limbs), pos may be negative */
    uint64_t r = 0;
    for (int k = 0; k < len; k++) {
        int b = pos + k;
        if (b < 0 || b >= 64 * n) continue;
        r |= ((x[b / 64] >> (b % 64)) & 1) << k;
    }
    return r;
}

void ifma_init(ifma_tbl *T, const uint64_t *p, int NL, int ND, int SHB, int K, int SHA)
{
    memset(T, 0, sizeof *T);
    uint64_t buf[16];
    /* B digits */
    for (int v = 0; v < 2; v++) {
        uint8_t idx[64]; uint64_t sh[8]; __mmask64 km = 0;
        memset(idx, 0, 64); memset(sh, 0, sizeof sh);
        for (int l = 0; l < 8; l++) {
            int j = 8 * v + l;
            if (j >= ND) continue;
            int pos = 52 * j - SHB;
            int start = pos >= 0 ? pos / 8 : -((-pos + 7) / 8);
            sh[l] = (uint64_t)(pos - 8 * start);
            for (int k = 0; k < 8; k++) {
                int src = start + k;
                if (src >= 0 && src < 8 * NL) { idx[8 * l + k] = (uint8_t)src; km |= 1ull << (8 * l + k); }
            }
        }
        memcpy(&T->bidx[v], idx, 64);
        memcpy(&T->bsh[v], sh, 64);
        T->bk[v] = km;
    }
    /* C = (p+1) >> 52K */
    uint64_t p1[17] = {0};
    unsigned __int128 cy = 1;
    for (int i = 0; i < NL; i++) { cy += p[i]; p1[i] = (uint64_t)cy; cy >>= 64; }
    p1[NL] = (uint64_t)cy;
    for (int i = 0; i < 52 * K; i++) if ((p1[i / 64] >> (i % 64)) & 1) { fprintf(stderr, "p+1 not divisible by 2^52K\n"); }
    uint64_t C[20]; int NC = 0;
    for (int j = 0; j < 20; j++) { C[j] = getbits(p1, NL + 1, 52 * K + 52 * j, 52); if (C[j]) NC = j + 1; }
    if (NC > ND - K) fprintf(stderr, "C has %d digits > ND-K = %d: kernel assumption broken\n", NC, ND - K);
    for (int c = 0; c < 16; c++)
        for (int q = 0; q < 4; q++) {
            for (int l = 0; l < 8; l++) {
                int j = 8 * q + l - c - K;
                buf[l] = (j >= 0 && j < NC) ? C[j] : 0;
            }
            memcpy(&T->KL[c][q], buf, 64);
            for (int l = 0; l < 8; l++) {
                int j = 8 * q + l - c - K - 1;
                buf[l] = (j >= 0 && j < NC) ? C[j] : 0;
            }
            memcpy(&T->KH[c][q], buf, 64);
        }
    for (int c = 0; c < 17; c++) {
        memset(buf, 0, 64);
        if (c / 8 < 4) { buf[c % 8] = 1; memcpy(&T->E[c][c / 8], buf, 64); }
    }
    /* a digit i broadcast: bytes of a << SHA replicated in every lane */
    for (int i = 0; i < 16; i++) {
        uint8_t idx[64]; __mmask64 km = 0;
        int pos = 52 * i - SHA, st = pos >= 0 ? pos / 8 : -((-pos + 7) / 8);
        for (int l = 0; l < 8; l++)
            for (int k = 0; k < 8; k++) {
                int src = st + k;
                idx[8 * l + k] = (uint8_t)(src >= 0 && src < 8 * NL ? src : 0);
                if (src >= 0 && src < 8 * NL && i < ND) km |= 1ull << (8 * l + k);
            }
        memcpy(&T->aidx[i], idx, 64);
        T->ak[i] = km;
        T->ash[i] = pos - 8 * st;
    }
    /* complement of p digits */
    for (int v = 0; v < 2; v++) {
        for (int l = 0; l < 8; l++) {
            int c = 8 * v + l;
            buf[l] = c < ND ? ((1ull << 52) - 1 - getbits(p, NL, 52 * c, 52)) + (c == 0) : 0;
        }
        memcpy(&T->pc[v], buf, 64);
    }
    /* 52 -> 64 conversion */
    for (int v = 0; v < 2; v++)
        for (int t = 0; t < 3; t++) {
            uint64_t ix[8], s[8];
            for (int l = 0; l < 8; l++) {
                int k = 8 * v + l, j = (64 * k) / 52, o = 64 * k - 52 * j;
                int jj = j + t, sv = t == 0 ? o : 52 * t - o;
                if (jj > 15 || sv >= 64 || k >= NL) { jj = 0; sv = 64; }
                ix[l] = (uint64_t)jj; s[l] = (uint64_t)sv;
            }
            memcpy(&T->oidx[t][v], ix, 64);
            memcpy(&T->osh[t][v], s, 64);
        }
}

ifma_tbl t503, t503s, t503z, t751, t751s, t751z;
extern const uint64_t fg_p503_P[8], fg_p751_P[12];

void ifma_setup(void)
{
    ifma_init(&t503, fg_p503_P, 8, 10, 8, 4, 0);
    ifma_init(&t503s, fg_p503_P, 8, 10, 4, 4, 4);
    ifma_init(&t503z, fg_p503_P, 8, 10, 0, 4, 0);
    ifma_init(&t751, fg_p751_P, 12, 15, 12, 7, 0);
    ifma_init(&t751s, fg_p751_P, 12, 15, 6, 7, 6);
    ifma_init(&t751z, fg_p751_P, 12, 15, 0, 7, 0);
}

__attribute__((noinline)) void p503_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b)
{ ifma_mont(r, a, b, &t503, 8, 10, 4, 0); }
__attribute__((noinline)) void p503_sqr_ifma(uint64_t *r, const uint64_t *a)
{ ifma_mont(r, a, a, &t503s, 8, 10, 4, 1); }
__attribute__((noinline)) void p751_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b)
{ ifma_mont(r, a, b, &t751, 12, 15, 7, 0); }
__attribute__((noinline)) void p751_sqr_ifma(uint64_t *r, const uint64_t *a)
{ ifma_mont(r, a, a, &t751s, 12, 15, 7, 1); }
