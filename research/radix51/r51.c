/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* research/radix51/r51.c: 2^255-19 in radix 2^51 (five limbs), written for
 * this study (issue 56 item 4). Not built by CMake.
 *
 * r51_mul / r51_sqr: fieldgen's contract for fg_p25519_mul_c / sqr_c:
 *   4x64 operands anywhere in [0, 2^256), canonical 4x64 result in [0, p).
 *   They convert to 5x51 on entry and back, fully reduced, on exit.
 * r51_mul_b / r51_sqr_b, r51_mul_p / r51_sqr_p: the same with other exits
 *   (out51b, out51p, below).
 * r51_mul5 / r51_sqr5: the bound, no conversion: 5x51 in, 5x51 out
 *   (loose limbs: h1 < 2^51 + 2^8, the others < 2^51; inputs may be that loose).
 *
 * Bounds (inputs a_i, b_i < 2^52, true of both entries):
 *   19*b_i < 2^56.25; each column is a sum of five products < 2^108.3, so
 *   < 2^110.7 in a u128. The carry chain r0 -> r4 leaves c4 = r4 >> 51 with
 *   r4 < 5*2^104 + 2^60, so c4 < 2^55 and h0 + 19*c4 < 2^60: no overflow.
 *   After h0's carry into h1: h0, h2, h3, h4 < 2^51, h1 < 2^51 + 2^9.
 */
#include <stdint.h>

#if defined(__x86_64__)
#include <x86intrin.h>
static inline unsigned char subborrow(unsigned char b, uint64_t x, uint64_t y,
                                      unsigned long long *d)
{
    return _subborrow_u64(b, x, y, d);
}
#else
static inline unsigned char subborrow(unsigned char b, uint64_t x, uint64_t y,
                                      unsigned long long *d)
{
    unsigned __int128 t = (unsigned __int128)x - y - b;
    *d = (uint64_t)t;
    return (unsigned char)((t >> 64) & 1);
}
static inline unsigned char _addcarry_u64(unsigned char c, uint64_t a, uint64_t b,
                                          unsigned long long *s)
{
    unsigned __int128 t = (unsigned __int128)a + b + c;
    *s = (uint64_t)t;
    return (unsigned char)(t >> 64);
}
#endif

__extension__ typedef unsigned __int128 u128;
#define M51 ((UINT64_C(1) << 51) - 1)

static inline uint64_t barrier(uint64_t x)
{
    __asm__("" : "+r"(x));
    return x;
}

/* x < 2^256 in 4x64 -> five limbs, a0..a3 < 2^51, a4 < 2^52 (exact value). */
static inline void in51(uint64_t a[5], const uint64_t x[4])
{
    a[0] = x[0] & M51;
    a[1] = ((x[0] >> 51) | (x[1] << 13)) & M51;
    a[2] = ((x[1] >> 38) | (x[2] << 26)) & M51;
    a[3] = ((x[2] >> 25) | (x[3] << 39)) & M51;
    a[4] = x[3] >> 12;
}

/* The column sums r0..r4 -> loose h (bounds above). */
static inline void carry51(uint64_t h[5], u128 r0, u128 r1, u128 r2, u128 r3, u128 r4)
{
    uint64_t c;
    r1 += (uint64_t)(r0 >> 51);
    h[0] = (uint64_t)r0 & M51;
    r2 += (uint64_t)(r1 >> 51);
    h[1] = (uint64_t)r1 & M51;
    r3 += (uint64_t)(r2 >> 51);
    h[2] = (uint64_t)r2 & M51;
    r4 += (uint64_t)(r3 >> 51);
    h[3] = (uint64_t)r3 & M51;
    c = (uint64_t)(r4 >> 51);
    h[4] = (uint64_t)r4 & M51;
    h[0] += c * 19;
    c = h[0] >> 51;
    h[0] &= M51;
    h[1] += c;
}

static inline void mul51(uint64_t h[5], const uint64_t a[5], const uint64_t b[5])
{
    uint64_t b1 = b[1] * 19, b2 = b[2] * 19, b3 = b[3] * 19, b4 = b[4] * 19;
    u128 r0, r1, r2, r3, r4;
    r0 = (u128)a[0] * b[0] + (u128)a[1] * b4 + (u128)a[2] * b3 + (u128)a[3] * b2 + (u128)a[4] * b1;
    r1 = (u128)a[0] * b[1] + (u128)a[1] * b[0] + (u128)a[2] * b4 + (u128)a[3] * b3 + (u128)a[4] * b2;
    r2 = (u128)a[0] * b[2] + (u128)a[1] * b[1] + (u128)a[2] * b[0] + (u128)a[3] * b4 + (u128)a[4] * b3;
    r3 = (u128)a[0] * b[3] + (u128)a[1] * b[2] + (u128)a[2] * b[1] + (u128)a[3] * b[0] + (u128)a[4] * b4;
    r4 = (u128)a[0] * b[4] + (u128)a[1] * b[3] + (u128)a[2] * b[2] + (u128)a[3] * b[1] + (u128)a[4] * b[0];
    carry51(h, r0, r1, r2, r3, r4);
}

/* a^2: the cross products once, doubled through a doubled factor. */
static inline void sqr51(uint64_t h[5], const uint64_t a[5])
{
    uint64_t d0 = a[0] * 2, d1 = a[1] * 2, d3 = a[3] * 2;
    uint64_t a3_19 = a[3] * 19, a4_19 = a[4] * 19;
    u128 r0, r1, r2, r3, r4;
    r0 = (u128)a[0] * a[0] + (u128)d1 * a4_19 + (u128)(a[2] * 2) * a3_19;
    r1 = (u128)d0 * a[1] + (u128)(a[2] * 2) * a4_19 + (u128)a[3] * a3_19;
    r2 = (u128)d0 * a[2] + (u128)a[1] * a[1] + (u128)d3 * a4_19;
    r3 = (u128)d0 * a[3] + (u128)d1 * a[2] + (u128)a[4] * a4_19;
    r4 = (u128)d0 * a[4] + (u128)d1 * a[3] + (u128)a[2] * a[2];
    carry51(h, r0, r1, r2, r3, r4);
}

/* Loose h (value < 2^255 + 2^61 < 2p) -> canonical 4x64 in [0, p).
 * q = [h >= p] = (h + 19) >> 255, by a carry chain that does not store;
 * then h + 19q, normalized, with bit 255 (= q) dropped, is h - q*p. */
static inline void out51(uint64_t r[4], const uint64_t hin[5])
{
    uint64_t h0 = hin[0], h1 = hin[1], h2 = hin[2], h3 = hin[3], h4 = hin[4], q;
    q = (h0 + 19) >> 51;
    q = (h1 + q) >> 51;
    q = (h2 + q) >> 51;
    q = (h3 + q) >> 51;
    q = (h4 + q) >> 51;
    h0 += 19 * q;
    h1 += h0 >> 51;
    h0 &= M51;
    h2 += h1 >> 51;
    h1 &= M51;
    h3 += h2 >> 51;
    h2 &= M51;
    h4 += h3 >> 51;
    h3 &= M51;
    h4 &= M51;
    r[0] = barrier(h0 | (h1 << 51));
    r[1] = barrier((h1 >> 13) | (h2 << 38));
    r[2] = barrier((h2 >> 26) | (h3 << 25));
    r[3] = barrier((h3 >> 39) | (h4 << 12));
}

void r51_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    uint64_t x[5], y[5], h[5];
    in51(x, a);
    in51(y, b);
    mul51(h, x, y);
    out51(r, h);
}

void r51_sqr(uint64_t r[4], const uint64_t a[4])
{
    uint64_t x[5], h[5];
    in51(x, a);
    sqr51(h, x);
    out51(r, h);
}

/* A second exit, for latency: normalize h1..h4 (h0 then < 2^51 + 19), find
 * q = [h >= p] by an AND tree instead of a carry chain (h >= p iff
 * h1..h4 are all 2^51-1 and h0 + 19 >= 2^51), add 19q, pack with a carry
 * chain (h0 may be >= 2^51) and drop bit 255. Same result as out51. */
static inline void out51b(uint64_t r[4], const uint64_t hin[5])
{
    uint64_t h0 = hin[0], h1 = hin[1], h2 = hin[2], h3 = hin[3], h4 = hin[4], q, c;
    unsigned char k = 0;
    unsigned long long w0, w1, w2, w3;
    h2 += h1 >> 51;
    h1 &= M51;
    h3 += h2 >> 51;
    h2 &= M51;
    h4 += h3 >> 51;
    h3 &= M51;
    c = h4 >> 51;
    h4 &= M51;
    h0 += 19 * c;
    q = (((h1 & h2 & h3 & h4) + 1) >> 51) & ((h0 + 19) >> 51);
    h0 += 19 * q;
    k = _addcarry_u64(0, h0, h1 << 51, &w0);
    k = _addcarry_u64(k, (h1 >> 13) | (h2 << 38), 0, &w1);
    k = _addcarry_u64(k, (h2 >> 26) | (h3 << 25), 0, &w2);
    (void)_addcarry_u64(k, (h3 >> 39) | (h4 << 12), 0, &w3);
    r[0] = barrier(w0);
    r[1] = barrier(w1);
    r[2] = barrier(w2);
    r[3] = barrier(w3 & (~UINT64_C(0) >> 1));
}

void r51_mul_b(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    uint64_t x[5], y[5], h[5];
    in51(x, a);
    in51(y, b);
    mul51(h, x, y);
    out51b(r, h);
}

void r51_sqr_b(uint64_t r[4], const uint64_t a[4])
{
    uint64_t x[5], h[5];
    in51(x, a);
    sqr51(h, x);
    out51b(r, h);
}

/* A third exit, the 4x64 kernels' own ending: pack the loose h into four
 * words with an add-with-carry chain (h1 may reach 2^51 + 2^9, so its bits
 * overlap h2's by one and the words are added, not OR-ed), giving
 * w = h < 2^255 + 2^60 < 2p; then subtract p and keep the difference unless
 * it borrowed (as redc_c's masked subtraction). Same result as out51. */
static inline void out51p(uint64_t r[4], const uint64_t h[5])
{
    static const uint64_t P0 = UINT64_C(0xffffffffffffffed), P1 = ~UINT64_C(0),
                          P3 = ~UINT64_C(0) >> 1;
    unsigned long long w0, w1, w2, w3, s0, s1, s2, s3;
    unsigned char k;
    uint64_t mask;
    k = _addcarry_u64(0, h[0], h[1] << 51, &w0);
    k = _addcarry_u64(k, h[1] >> 13, h[2] << 38, &w1);
    k = _addcarry_u64(k, (h[2] >> 26) | (h[3] << 25), 0, &w2);
    (void)_addcarry_u64(k, (h[3] >> 39) | (h[4] << 12), 0, &w3);
    k = subborrow(0, w0, P0, &s0);
    k = subborrow(k, w1, P1, &s1);
    k = subborrow(k, w2, P1, &s2);
    k = subborrow(k, w3, P3, &s3);
    mask = barrier(0 - (uint64_t)k);    /* all ones: w < p, keep w */
    r[0] = barrier((w0 & mask) | (s0 & ~mask));
    r[1] = barrier((w1 & mask) | (s1 & ~mask));
    r[2] = barrier((w2 & mask) | (s2 & ~mask));
    r[3] = barrier((w3 & mask) | (s3 & ~mask));
}

void r51_mul_p(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    uint64_t x[5], y[5], h[5];
    in51(x, a);
    in51(y, b);
    mul51(h, x, y);
    out51p(r, h);
}

void r51_sqr_p(uint64_t r[4], const uint64_t a[4])
{
    uint64_t x[5], h[5];
    in51(x, a);
    sqr51(h, x);
    out51p(r, h);
}

/* The bound: the representation kept in 5x51, loose in and out. */
void r51_mul5(uint64_t r[5], const uint64_t a[5], const uint64_t b[5])
{
    uint64_t h[5];
    int i;
    mul51(h, a, b);
    for (i = 0; i < 5; i++)
        r[i] = barrier(h[i]);
}

void r51_sqr5(uint64_t r[5], const uint64_t a[5])
{
    uint64_t h[5];
    int i;
    sqr51(h, a);
    for (i = 0; i < 5; i++)
        r[i] = barrier(h[i]);
}

/* Conversions for the tests and the bench (not timed). */
void r51_to51(uint64_t a[5], const uint64_t x[4])
{
    in51(a, x);
}

void r51_from51(uint64_t r[4], const uint64_t h[5])
{
    out51(r, h);
}
