/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Feasibility study: radix-2^52 AVX-512 IFMA Montgomery multiplication for
 * primes p = 2^e*3^f - 1 (so -p^-1 = 1 mod 2^52*K for 52K <= e).
 * Input/output: uint64_t[NL] Montgomery form, R = 2^(64 NL). Internally b is
 * pre-shifted by SH = 52*ND - 64*NL bits and we divide by 2^(52 ND).
 * Reduction: groups of K digit-columns; in each group m_c = lo52(v_c) and
 * h_c = v_c >> 52 (no carry chain): both are "quotient digits" (h_c at column
 * c+1), so T + sum (m_c + h_c 2^52) 2^(52c) p is divisible by 2^(52 (c0+K)),
 * and (p+1) = C*2^(52K) turns every quotient digit q at column c into + q*C at
 * column c+K. Only the last h of a group is carried (added) into the next one.
 */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#ifndef NCRIT
#define NCRIT 8
#endif
#ifndef TVEC
#define TVEC 1
#endif
#ifndef PNA
#define PNA 3
#endif
#ifndef V2
#define V2 0
#endif
#ifndef FIN2
#define FIN2 0
#endif
#ifndef MEMB
#define MEMB 0
#endif
#ifndef AREG
#define AREG 0
#endif
#ifndef INTERLEAVE
#define INTERLEAVE 1
#endif
#ifndef STAGE
#define STAGE 0
#endif

typedef struct {
    __m512i bidx[2];      /* vpermi2b byte index for B digits (b << SH) */
    __mmask64 bk[2];
    __m512i bsh[2];
    __m512i KL[16][4], KH[16][4], E[17][4]; /* per column c, acc block q */
    __m512i pc[2];        /* (2^52-1 - p_c) for c < ND, +1 at c = 0 */
    __m512i aidx[16];     /* vpermi2b index: digit i of a << SHA in every lane */
    __mmask64 ak[16];
    int ash[16];
    __m512i oidx[3][2], osh[3][2];
} ifma_tbl;

/* p: NL limbs; fills table */
void ifma_init(ifma_tbl *T, const uint64_t *p, int NL, int ND, int SHB, int K, int SHA);

static inline __attribute__((always_inline)) __m512i fz(void)
{
    __m512i z;
    __asm__ volatile("vpxord %0, %0, %0" : "=v"(z));
    return z;
}
#define MLO(acc, x, y) _mm512_madd52lo_epu64(acc, x, y)
#define MHI(acc, x, y) _mm512_madd52hi_epu64(acc, x, y)
#define M52V _mm512_set1_epi64((long long)((1ull << 52) - 1))

static inline __attribute__((always_inline)) __m512i ifma_adigit(const uint64_t *a, int NL, int i, int SHA)
{
    int pos = 52 * i - SHA;
    if (pos < 0) {
        uint64_t w0;
        memcpy(&w0, a, 8);
        return _mm512_slli_epi64(_mm512_set1_epi64((long long)w0), -pos);
    }
    int byte = pos / 8;
    if (byte + 8 > 8 * NL) byte = 8 * NL - 8;
    int sh = pos - 8 * byte;
    uint64_t w;
    memcpy(&w, (const unsigned char *)a + byte, 8);
    __m512i v = _mm512_set1_epi64((long long)w);
    return sh ? _mm512_srli_epi64(v, sh) : v;
}

static inline __attribute__((always_inline)) __m512i ifma_S(__m512i B0, __m512i B1, int t)
{
    const __m512i Z = _mm512_setzero_si512();
    if (t <= -8 || t >= 16) return Z;
    if (t <= 0) return t == -8 ? Z : (t == 0 ? B0 : _mm512_alignr_epi64(B0, Z, 8 + t));
    if (t < 8) return _mm512_alignr_epi64(B1, B0, t);
    if (t == 8) return B1;
    return _mm512_alignr_epi64(Z, B1, t - 8);
}

static inline __attribute__((always_inline)) int ovl(int a0, int a1, int b0, int b1)
{
    return a0 <= b1 && b0 <= a1;
}

static inline __attribute__((always_inline)) __m512i bcast_lane(__m512i v, int l)
{
    if (l == 0) return _mm512_broadcastq_epi64(_mm512_castsi512_si128(v));
    return _mm512_permutexvar_epi64(_mm512_set1_epi64(l), v);
}

/* tree sum of n vectors */
static inline __attribute__((always_inline)) __m512i tsum(__m512i *v, int n)
{
#pragma GCC unroll 6
    for (int lev = 0; lev < 6; lev++) {
        int w = 1 << lev;
#pragma GCC unroll 64
        for (int i = 0; i < 64; i += 2 * w)
            if (i + w < n) v[i] = _mm512_add_epi64(v[i], v[i + w]);
    }
    return v[0];
}

#define ADDT(f, x, y) do { int k_ = n % NC_; ch[k_] = f(n < NC_ ? fz() : ch[k_], x, y); n++; } while (0)
static inline __attribute__((always_inline)) void
ifma_red_group(int g, __m512i snap[4][4], __m512i *R, const ifma_tbl *T, const int ND, const int K)
{
    const int NC = ND - K; /* digits of C = (p+1)/2^(52K); checked in ifma_init */
    const int NB = (2 * ND + 7) / 8;
    const __m512i M = M52V;
    const __m512i Z = _mm512_setzero_si512();
    int c0 = g * K, end = (g + 1) * K < ND ? (g + 1) * K : ND;
    int qa = c0 / 8, qz = (end - 1) / 8;
    __m512i lo[4], hi[4], Mv[4], Ev[4], Tv[4];
#pragma GCC unroll 4
    for (int q = qa; q <= qz; q++) {
        __m512i v = _mm512_add_epi64(snap[g][q], R[q]);
        lo[q] = _mm512_and_si512(v, M);
        hi[q] = _mm512_srli_epi64(v, 52);
    }
    /* one carry-save step inside the group: s_c = lo_c + hi_(c-1), so
     * s_c < 2^52 + 2^12: quotient digits m_c = lo52(s_c) (at column c) and
     * e_c = s_c >> 52 in {0,1} (at column c+1, e*C needs no high half); the
     * last column's carry hi + e goes into the next group's first column. */
#pragma GCC unroll 4
    for (int q = qa; q <= qz; q++) {
        __m512i sh = _mm512_alignr_epi64(hi[q], q > qa ? hi[q - 1] : Z, 7);
        unsigned km = 0;
        for (int l = 0; l < 8; l++) { int c = 8 * q + l; if (c > c0 && c < end) km |= 1u << l; }
        __m512i sv = _mm512_mask_add_epi64(lo[q], (__mmask8)km, lo[q], sh);
        Mv[q] = _mm512_and_si512(sv, M);
        Ev[q] = _mm512_srli_epi64(sv, 52);
        if (q == qz) Tv[q] = _mm512_add_epi64(Ev[q], hi[q]);
    }
    int nxt0 = end < ND ? end : 0, nxt1 = end < ND ? ((g + 2) * K < ND ? (g + 2) * K : ND) - 1 : 8 * NB - 1;
    __m512i mcv[16], ecv[16], tcv;
#if MEMB
    /* quotient digits through an aligned stack buffer: the IFMAs then take
     * them as {1to8} memory broadcasts (load ports) instead of VPERMQ (p5) */
    uint64_t mb[4][8] __attribute__((aligned(64))), eb[4][8] __attribute__((aligned(64))), tb[8] __attribute__((aligned(64)));
#pragma GCC unroll 4
    for (int q = qa; q <= qz; q++) {
        _mm512_store_si512(mb[q], Mv[q]);
        _mm512_store_si512(eb[q], Ev[q]);
    }
    _mm512_store_si512(tb, Tv[qz]);
    __asm__ volatile("" ::: "memory");
#pragma GCC unroll 16
    for (int c = c0; c < end; c++) {
        mcv[c - c0] = _mm512_set1_epi64((long long)mb[c / 8][c % 8]);
        if (c + 1 < end) ecv[c - c0] = _mm512_set1_epi64((long long)eb[c / 8][c % 8]);
    }
    tcv = _mm512_set1_epi64((long long)tb[(end - 1) % 8]);
#else
#pragma GCC unroll 16
    for (int c = c0; c < end; c++) {
        mcv[c - c0] = bcast_lane(Mv[c / 8], c % 8);
        if (c + 1 < end) ecv[c - c0] = bcast_lane(Ev[c / 8], c % 8);
    }
    tcv = bcast_lane(Tv[qz], (end - 1) % 8);
#endif
#pragma GCC unroll 2
    for (int pass = 0; pass < 2; pass++)
#pragma GCC unroll 4
    for (int q = 0; q < NB; q++) {
        int crit = ovl(8 * q, 8 * q + 7, nxt0, nxt1);
        if (crit != (pass == 0)) continue;
        const int NC_ = crit ? NCRIT : 2;
        __m512i ch[8];
        int n = 0;
        if (q == end / 8) ADDT(_mm512_madd52lo_epu64, tcv, T->E[end][q]);
#pragma GCC unroll 16
        for (int c = c0; c < end; c++) {
            if (ovl(8 * q, 8 * q + 7, c + K, c + K + NC - 1))
                ADDT(_mm512_madd52lo_epu64, mcv[c - c0], T->KL[c][q]);
            if (ovl(8 * q, 8 * q + 7, c + K + 1, c + K + NC))
                ADDT(_mm512_madd52hi_epu64, mcv[c - c0], T->KH[c][q]);
            if (c + 1 < end && ovl(8 * q, 8 * q + 7, c + 1 + K, c + K + NC))
                ADDT(_mm512_madd52lo_epu64, ecv[c - c0], T->KL[c + 1][q]);
        }
        int m = n < NC_ ? n : NC_;
        __m512i t[9];
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++) if (k < m) t[k] = ch[k];
        t[m] = R[q];
        R[q] = tsum(t, m + 1);
    }
}

static inline __attribute__((always_inline)) void
ifma_red_group2(int g, __m512i snap[4][4], const __m512i *totp, __m512i *R, __m512i *V, const ifma_tbl *T, const int ND, const int K)
{
    const int NC = ND - K; /* digits of C = (p+1)/2^(52K); checked in ifma_init */
    const int NG = (ND + K - 1) / K;
    const int NB = (2 * ND + 7) / 8;
    const __m512i M = M52V;
    const __m512i Z = _mm512_setzero_si512();
    int c0 = g * K, end = (g + 1) * K < ND ? (g + 1) * K : ND;
    int qa = c0 / 8, qz = (end - 1) / 8;
    __m512i lo[4], hi[4], Mv[4], Ev[4], Tv[4];
#pragma GCC unroll 4
    for (int q = qa; q <= qz; q++) {
        __m512i v = V[q];
        lo[q] = _mm512_and_si512(v, M);
        hi[q] = _mm512_srli_epi64(v, 52);
    }
    /* one carry-save step inside the group: s_c = lo_c + hi_(c-1), so
     * s_c < 2^52 + 2^12: quotient digits m_c = lo52(s_c) (at column c) and
     * e_c = s_c >> 52 in {0,1} (at column c+1, e*C needs no high half); the
     * last column's carry hi + e goes into the next group's first column. */
#pragma GCC unroll 4
    for (int q = qa; q <= qz; q++) {
        __m512i sh = _mm512_alignr_epi64(hi[q], q > qa ? hi[q - 1] : Z, 7);
        unsigned km = 0;
        for (int l = 0; l < 8; l++) { int c = 8 * q + l; if (c > c0 && c < end) km |= 1u << l; }
        __m512i sv = _mm512_mask_add_epi64(lo[q], (__mmask8)km, lo[q], sh);
        Mv[q] = _mm512_and_si512(sv, M);
        Ev[q] = _mm512_srli_epi64(sv, 52);
        if (q == qz) Tv[q] = _mm512_add_epi64(Ev[q], hi[q]);
    }
    int nxt0 = end < ND ? end : 0, nxt1 = end < ND ? ((g + 2) * K < ND ? (g + 2) * K : ND) - 1 : 8 * NB - 1;
    __m512i mcv[16], ecv[16], tcv;
#pragma GCC unroll 16
    for (int c = c0; c < end; c++) {
        mcv[c - c0] = bcast_lane(Mv[c / 8], c % 8);
        if (c + 1 < end) ecv[c - c0] = bcast_lane(Ev[c / 8], c % 8);
    }
#if !TVEC
    tcv = bcast_lane(Tv[qz], (end - 1) % 8);
#else
    (void)tcv;
    /* carry of the group's last column moved up one lane into column end */
    __m512i tsh = (end % 8 == 0) ? _mm512_maskz_alignr_epi64(1, Z, Tv[qz], 7)
                                 : _mm512_maskz_alignr_epi64((__mmask8)(1u << (end % 8)), Tv[qz], Z, 7);
#endif
#pragma GCC unroll 2
    for (int pass = 0; pass < 2; pass++)
#pragma GCC unroll 4
    for (int q = 0; q < NB; q++) {
        int crit = ovl(8 * q, 8 * q + 7, nxt0, nxt1);
        if (crit != (pass == 0)) continue;
        const int NC_ = crit ? NCRIT : 2;
        __m512i ch[16];
        int n = 0;
#if !TVEC
        if (q == end / 8) ADDT(_mm512_madd52lo_epu64, tcv, T->E[end][q]);
#endif
#pragma GCC unroll 16
        for (int c = c0; c < end; c++) {
            if (ovl(8 * q, 8 * q + 7, c + K, c + K + NC - 1))
                ADDT(_mm512_madd52lo_epu64, mcv[c - c0], T->KL[c][q]);
            if (ovl(8 * q, 8 * q + 7, c + K + 1, c + K + NC))
                ADDT(_mm512_madd52hi_epu64, mcv[c - c0], T->KH[c][q]);
            if (c + 1 < end && ovl(8 * q, 8 * q + 7, c + 1 + K, c + K + NC))
                ADDT(_mm512_madd52lo_epu64, ecv[c - c0], T->KL[c + 1][q]);
        }
        int m = n < NC_ ? n : NC_;
        __m512i t[24];
#pragma GCC unroll 8
        for (int k = 0; k < 16; k++) if (k < m) t[k] = ch[k];
#if TVEC
        if (q == end / 8 && end < ND) t[m++] = tsh;
        else if (q == end / 8) t[m++] = tsh;
#endif
        if (crit) {
            /* next values: chains + (R_prev + next snapshot), the latter
             * formed off the critical path; R recovered by a subtraction */
            __m512i sn = g + 1 < NG ? snap[g + 1][q] : totp[q];
            t[m] = _mm512_add_epi64(R[q], sn);
            V[q] = tsum(t, m + 1);
            R[q] = _mm512_sub_epi64(V[q], sn);
        } else {
            t[m] = R[q];
            R[q] = tsum(t, m + 1);
        }
    }
}

static inline __attribute__((always_inline)) void
ifma_fin(uint64_t *r, const __m512i *totp, const __m512i *R, const ifma_tbl *T, const int NL, const int ND)
{
    const int NB = (2 * ND + 7) / 8;
    const __m512i Z = _mm512_setzero_si512();
    const __m512i M = M52V;
    __m512i tot[5];
#pragma GCC unroll 4
    for (int q = 0; q < NB; q++) tot[q] = _mm512_add_epi64(totp[q], R[q]);
    tot[NB] = Z;
    int qb = ND / 8, off = ND % 8;
    __m512i Z0, Z1;
    if (off == 0) { Z0 = tot[qb]; Z1 = tot[qb + 1]; }
    else {
        Z0 = _mm512_alignr_epi64(tot[qb + 1], tot[qb], off);
        Z1 = _mm512_alignr_epi64(tot[qb + 2 <= NB ? qb + 2 : NB], tot[qb + 1], off);
    }
    const __mmask8 k1 = (__mmask8)(ND > 8 ? (1u << (ND - 8)) - 1 : 0);
    Z1 = _mm512_maskz_mov_epi64(k1, Z1);
    /* normalize: s = lo + (hi shifted up one digit), digits < 2^52 + 2^12 */
    __m512i lo0 = _mm512_and_si512(Z0, M), hi0 = _mm512_srli_epi64(Z0, 52);
    __m512i lo1 = _mm512_and_si512(Z1, M), hi1 = _mm512_srli_epi64(Z1, 52);
    __m512i s0 = _mm512_add_epi64(lo0, _mm512_alignr_epi64(hi0, Z, 7));
    __m512i s1 = _mm512_add_epi64(lo1, _mm512_alignr_epi64(hi1, hi0, 7));
    /* W = Z - p = Z + (2^(52ND) - p) - 2^(52ND), digits made < 2^52 + 2^13 */
    __m512i lp0 = _mm512_add_epi64(lo0, T->pc[0]), lp1 = _mm512_add_epi64(lo1, T->pc[1]);
    __m512i wh0 = _mm512_add_epi64(_mm512_srli_epi64(lp0, 52), hi0);
    __m512i wh1 = _mm512_add_epi64(_mm512_srli_epi64(lp1, 52), hi1);
    __m512i u0 = _mm512_add_epi64(_mm512_and_si512(lp0, M), _mm512_alignr_epi64(wh0, Z, 7));
    __m512i u1 = _mm512_add_epi64(_mm512_and_si512(lp1, M), _mm512_alignr_epi64(wh1, wh0, 7));
    uint32_t gy = _cvtmask8_u32(_mm512_cmpgt_epu64_mask(s0, M)) | (_cvtmask8_u32(_mm512_cmpgt_epu64_mask(s1, M)) << 8);
    uint32_t py = _cvtmask8_u32(_mm512_cmpeq_epu64_mask(s0, M)) | (_cvtmask8_u32(_mm512_cmpeq_epu64_mask(s1, M)) << 8);
    uint32_t gw = _cvtmask8_u32(_mm512_cmpgt_epu64_mask(u0, M)) | (_cvtmask8_u32(_mm512_cmpgt_epu64_mask(u1, M)) << 8);
    uint32_t pw = _cvtmask8_u32(_mm512_cmpeq_epu64_mask(u0, M)) | (_cvtmask8_u32(_mm512_cmpeq_epu64_mask(u1, M)) << 8);
    /* lane ND of u holds the explicit carry out of the top digit (0 or 1) */
    gw |= _cvtmask8_u32(_mm512_cmpneq_epu64_mask(u1, Z)) << 8 & (1u << ND);
    uint32_t cy = ((gy << 1) + py) ^ py;
    uint32_t cw = ((gw << 1) + pw) ^ pw;
    uint32_t sel = 0u - (((cw | gw) >> ND) & 1); /* all-ones if Z >= p */
    uint32_t cf = cy ^ ((cy ^ cw) & sel);
    __mmask16 ks = _cvtu32_mask16(sel);
    __mmask16 kc = _cvtu32_mask16(cf);
    __m512i x0 = _mm512_mask_mov_epi64(s0, (__mmask8)ks, u0);
    __m512i x1 = _mm512_mask_mov_epi64(s1, (__mmask8)ks, u1);
    const __m512i one = _mm512_set1_epi64(1);
    x0 = _mm512_and_si512(_mm512_mask_add_epi64(x0, (__mmask8)kc, x0, one), M);
    x1 = _mm512_and_si512(_mm512_mask_add_epi64(x1, (__mmask8)_kshiftri_mask16(kc, 8), x1, one), M);
    x1 = _mm512_maskz_mov_epi64(k1, x1);
    /* 52 -> 64 */
#pragma GCC unroll 2
    for (int v = 0; v < (NL + 7) / 8; v++) {
        __m512i o = _mm512_srlv_epi64(_mm512_permutex2var_epi64(x0, T->oidx[0][v], x1), T->osh[0][v]);
        o = _mm512_or_si512(o, _mm512_sllv_epi64(_mm512_permutex2var_epi64(x0, T->oidx[1][v], x1), T->osh[1][v]));
        o = _mm512_or_si512(o, _mm512_sllv_epi64(_mm512_permutex2var_epi64(x0, T->oidx[2][v], x1), T->osh[2][v]));
        int n = NL - 8 * v > 8 ? 8 : NL - 8 * v;
        if (n == 8) _mm512_storeu_si512(r + 8 * v, o);
        else _mm512_mask_storeu_epi64(r + 8 * v, (__mmask8)((1u << n) - 1), o);
    }
}

static inline __attribute__((always_inline)) void
ifma_fin2(uint64_t *r, const __m512i *totv, const ifma_tbl *T, const int NL, const int ND)
{
    const int NB = (2 * ND + 7) / 8;
    const __m512i Z = _mm512_setzero_si512();
    const __m512i M = M52V;
    __m512i tot[5];
#pragma GCC unroll 4
    for (int q = 0; q < NB; q++) tot[q] = totv[q];
    tot[NB] = Z;
    int qb = ND / 8, off = ND % 8;
    __m512i Z0, Z1;
    if (off == 0) { Z0 = tot[qb]; Z1 = tot[qb + 1]; }
    else {
        Z0 = _mm512_alignr_epi64(tot[qb + 1], tot[qb], off);
        Z1 = _mm512_alignr_epi64(tot[qb + 2 <= NB ? qb + 2 : NB], tot[qb + 1], off);
    }
    const __mmask8 k1 = (__mmask8)(ND > 8 ? (1u << (ND - 8)) - 1 : 0);
    Z1 = _mm512_maskz_mov_epi64(k1, Z1);
    /* normalize: s = lo + (hi shifted up one digit), digits < 2^52 + 2^12 */
    __m512i lo0 = _mm512_and_si512(Z0, M), hi0 = _mm512_srli_epi64(Z0, 52);
    __m512i lo1 = _mm512_and_si512(Z1, M), hi1 = _mm512_srli_epi64(Z1, 52);
    __m512i s0 = _mm512_add_epi64(lo0, _mm512_alignr_epi64(hi0, Z, 7));
    __m512i s1 = _mm512_add_epi64(lo1, _mm512_alignr_epi64(hi1, hi0, 7));
    /* W = Z - p = Z + (2^(52ND) - p) - 2^(52ND), digits made < 2^52 + 2^13 */
    __m512i lp0 = _mm512_add_epi64(lo0, T->pc[0]), lp1 = _mm512_add_epi64(lo1, T->pc[1]);
    __m512i wh0 = _mm512_add_epi64(_mm512_srli_epi64(lp0, 52), hi0);
    __m512i wh1 = _mm512_add_epi64(_mm512_srli_epi64(lp1, 52), hi1);
    __m512i u0 = _mm512_add_epi64(_mm512_and_si512(lp0, M), _mm512_alignr_epi64(wh0, Z, 7));
    __m512i u1 = _mm512_add_epi64(_mm512_and_si512(lp1, M), _mm512_alignr_epi64(wh1, wh0, 7));
    /* 16-bit generate/propagate masks via kunpckbw, one kmov each */
    uint32_t gy = _cvtmask16_u32(_mm512_kunpackb(_mm512_cmpgt_epu64_mask(s1, M), _mm512_cmpgt_epu64_mask(s0, M)));
    uint32_t py = _cvtmask16_u32(_mm512_kunpackb(_mm512_cmpeq_epu64_mask(s1, M), _mm512_cmpeq_epu64_mask(s0, M)));
    /* lane ND of u holds the explicit carry out of the top digit (0 or 1):
     * count it as a generate at position ND */
    __mmask8 gw1 = _mm512_cmpgt_epu64_mask(u1, M) | (_mm512_cmpneq_epu64_mask(u1, Z) & (__mmask8)(1u << (ND - 8)));
    uint32_t gw = _cvtmask16_u32(_mm512_kunpackb(gw1, _mm512_cmpgt_epu64_mask(u0, M)));
    uint32_t pw = _cvtmask16_u32(_mm512_kunpackb(_mm512_cmpeq_epu64_mask(u1, M), _mm512_cmpeq_epu64_mask(u0, M)));
    uint32_t cy = ((gy << 1) + py) ^ py;
    uint32_t cw = ((gw << 1) + pw) ^ pw;
    uint32_t sel = 0u - (((cw | gw) >> ND) & 1); /* all-ones if Z >= p */
    uint32_t cf = cy ^ ((cy ^ cw) & sel);
    const __m512i one = _mm512_set1_epi64(1);
    __m512i x0 = _mm512_mask_mov_epi64(s0, (__mmask8)sel, u0);
    __m512i x1 = _mm512_mask_mov_epi64(s1, (__mmask8)sel, u1);
    x0 = _mm512_and_si512(_mm512_mask_add_epi64(x0, (__mmask8)cf, x0, one), M);
    x1 = _mm512_and_si512(_mm512_mask_add_epi64(x1, (__mmask8)(cf >> 8), x1, one), M);
    x1 = _mm512_maskz_mov_epi64(k1, x1);
    /* 52 -> 64 */
#pragma GCC unroll 2
    for (int v = 0; v < (NL + 7) / 8; v++) {
        __m512i o = _mm512_srlv_epi64(_mm512_permutex2var_epi64(x0, T->oidx[0][v], x1), T->osh[0][v]);
        o = _mm512_or_si512(o, _mm512_sllv_epi64(_mm512_permutex2var_epi64(x0, T->oidx[1][v], x1), T->osh[1][v]));
        o = _mm512_or_si512(o, _mm512_sllv_epi64(_mm512_permutex2var_epi64(x0, T->oidx[2][v], x1), T->osh[2][v]));
        int n = NL - 8 * v > 8 ? 8 : NL - 8 * v;
        if (n == 8) _mm512_storeu_si512(r + 8 * v, o);
        else _mm512_mask_storeu_epi64(r + 8 * v, (__mmask8)((1u << n) - 1), o);
    }
}

static inline __attribute__((always_inline)) void
ifma_redfin(uint64_t *r, __m512i snap[4][4], const __m512i *totp, const ifma_tbl *T,
            const int NL, const int ND, const int K)
{
    const int NG = (ND + K - 1) / K;
    __m512i R[4];
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) R[q] = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int g = 0; g < NG; g++) ifma_red_group(g, snap, R, T, ND, K);
    ifma_fin(r, totp, R, T, NL, ND);
}

static inline __attribute__((always_inline)) void
ifma_mont(uint64_t *r, const uint64_t *a, const uint64_t *b, const ifma_tbl *T,
          const int NL, const int ND, const int K, const int SQR)
{
    const int SHA = SQR ? (52 * ND - 64 * NL) / 2 : 0;
    const int NB = (2 * ND + 7) / 8;
    const __m512i Z = _mm512_setzero_si512();
    const __m512i M = M52V;
    __m512i raw0 = NL >= 8 ? _mm512_loadu_si512(b) : _mm512_maskz_loadu_epi64((__mmask8)((1u << NL) - 1), b);
    __m512i raw1 = NL > 8 ? _mm512_maskz_loadu_epi64((__mmask8)((1u << (NL - 8)) - 1), b + 8) : Z;
#if AREG
    __m512i araw0 = NL >= 8 ? _mm512_loadu_si512(a) : _mm512_maskz_loadu_epi64((__mmask8)((1u << NL) - 1), a);
    __m512i araw1 = NL > 8 ? _mm512_maskz_loadu_epi64((__mmask8)((1u << (NL - 8)) - 1), a + 8) : Z;
#endif
    __m512i B0 = _mm512_srlv_epi64(_mm512_maskz_permutex2var_epi8(T->bk[0], raw0, T->bidx[0], raw1), T->bsh[0]);
    __m512i B1 = ND > 8 ? _mm512_srlv_epi64(_mm512_maskz_permutex2var_epi8(T->bk[1], raw0, T->bidx[1], raw1), T->bsh[1]) : Z;

    const int NG = (ND + K - 1) / K;
    enum { NA = PNA, NR = 6 };
    __m512i pa[4][NA], pd[4], snap[4][4], Rr[4], R2r[4], V2v[4];
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) { Rr[q] = Z; R2r[q] = Z; V2v[q] = Z; }
    int pn[4] = {0, 0, 0, 0};
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) {
        pd[q] = Z;
#pragma GCC unroll 4
        for (int k = 0; k < NA; k++) pa[q][k] = fz();
    }
    if (SQR) {
        /* diagonal a_i^2 (lanes of B are the digits of a << SH/2 too):
         * elementwise products, then lane i -> columns 2i (lo), 2i+1 (hi) */
        __m512i dl0 = MLO(Z, B0, B0), dh0 = MHI(Z, B0, B0);
        __m512i dl1 = MLO(Z, B1, B1), dh1 = MHI(Z, B1, B1);
        const __m512i ilv0 = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
        const __m512i ilv1 = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
        pd[0] = _mm512_permutex2var_epi64(dl0, ilv0, dh0);
        if (NB > 1) pd[1] = _mm512_permutex2var_epi64(dl0, ilv1, dh0);
        if (NB > 2) pd[2] = _mm512_permutex2var_epi64(dl1, ilv0, dh1);
        if (NB > 3) pd[3] = _mm512_permutex2var_epi64(dl1, ilv1, dh1);
    }
#pragma GCC unroll 16
    for (int i = 0; i < ND; i++) {
#if AREG
        __m512i ai = _mm512_maskz_permutex2var_epi8(T->ak[i], araw0, T->aidx[i], araw1);
        {
            int pos = 52 * i - SHA, st = pos >= 0 ? pos / 8 : -((-pos + 7) / 8), sh = pos - 8 * st;
            if (sh) ai = _mm512_srli_epi64(ai, sh);
        }
#else
        __m512i ai = ifma_adigit(a, NL, i, SHA);
#endif
#pragma GCC unroll 4
        for (int q = 0; q < NB; q++) {
            if (!SQR) {
                if (ovl(8 * q, 8 * q + 7, i, i + ND - 1)) {
                    int k = pn[q]++ % NA;
                    pa[q][k] = MLO(pa[q][k], ai, ifma_S(B0, B1, 8 * q - i));
                }
                if (ovl(8 * q, 8 * q + 7, i + 1, i + ND)) {
                    int k = pn[q]++ % NA;
                    pa[q][k] = MHI(pa[q][k], ai, ifma_S(B0, B1, 8 * q - i - 1));
                }
            } else {
                /* off-diagonal j > i: lo columns [2i+1, i+ND-1], hi [2i+2, i+ND] */
                if (ovl(8 * q, 8 * q + 7, 2 * i + 1, i + ND - 1)) {
                    int c0 = 2 * i + 1 - 8 * q;
                    __mmask8 km = c0 <= 0 ? 0xff : (__mmask8)(0xff << c0);
                    int k = pn[q]++ % NA;
                    pa[q][k] = _mm512_mask_madd52lo_epu64(pa[q][k], km, ai, ifma_S(B0, B1, 8 * q - i));
                }
                if (ovl(8 * q, 8 * q + 7, 2 * i + 2, i + ND)) {
                    int c0 = 2 * i + 2 - 8 * q;
                    __mmask8 km = c0 <= 0 ? 0xff : (__mmask8)(0xff << c0);
                    int k = pn[q]++ % NA;
                    pa[q][k] = _mm512_mask_madd52hi_epu64(pa[q][k], km, ai, ifma_S(B0, B1, 8 * q - i - 1));
                }
            }
        }
#pragma GCC unroll 4
        for (int g = 0; g < NG; g++) {
            int c0 = g * K, end = (g + 1) * K < ND ? (g + 1) * K : ND;
            if (i == end - 1)
#pragma GCC unroll 4
                for (int q = c0 / 8; q <= (end - 1) / 8; q++) {
                    __m512i tt[NA];
#pragma GCC unroll 8
                    for (int k = 0; k < NA; k++) tt[k] = pa[q][k];
                    __m512i t = tsum(tt, pn[q] < NA ? pn[q] : NA);
                    if (SQR) t = _mm512_add_epi64(_mm512_add_epi64(t, t), pd[q]);
                    snap[g][q] = t;
                }
#if V2 && INTERLEAVE
            if (i == end - 1 && g == 0)
#pragma GCC unroll 4
                for (int q = 0; q < 4; q++) { V2v[q] = snap[0][q]; }
            if (i == end - 1 && g >= 1) ifma_red_group2(g - 1, snap, snap[0], R2r, V2v, T, ND, K);
#elif INTERLEAVE
            if (i == end - 1) ifma_red_group(g, snap, Rr, T, ND, K);
#endif
        }
    }


    __m512i totp[4];
#pragma GCC unroll 4
    for (int q = 0; q < NB; q++) {
        __m512i tt[NA];
#pragma GCC unroll 8
        for (int k = 0; k < NA; k++) tt[k] = pa[q][k];
        __m512i t = tsum(tt, pn[q] < NA ? pn[q] : NA);
        if (SQR) t = _mm512_add_epi64(_mm512_add_epi64(t, t), pd[q]);
        totp[q] = t;
    }
#if V2 && INTERLEAVE
    ifma_red_group2(NG - 1, snap, totp, R2r, V2v, T, ND, K);
    ifma_fin2(r, V2v, T, NL, ND);
#elif V2
    {
        __m512i R2[4], V[4];
#pragma GCC unroll 4
        for (int q = 0; q < 4; q++) { R2[q] = Z; V[q] = snap[0][q]; }
#pragma GCC unroll 4
        for (int g = 0; g < NG; g++) ifma_red_group2(g, snap, totp, R2, V, T, ND, K);
        ifma_fin2(r, V, T, NL, ND);
    }
#elif INTERLEAVE && FIN2
    {
        __m512i tv[4];
#pragma GCC unroll 4
        for (int q = 0; q < NB; q++) tv[q] = _mm512_add_epi64(totp[q], Rr[q]);
        ifma_fin2(r, tv, T, NL, ND);
    }
#elif INTERLEAVE
    ifma_fin(r, totp, Rr, T, NL, ND);
#else
    ifma_redfin(r, snap, totp, T, NL, ND, K);
#endif
}
