/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* SHA-256 (FIPS 180-4, section 6.2) and HMAC-SHA-256 (RFC 2104): see fgp_sha256.h. */
#include "fgp_sha256.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FGP_SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define FGP_SHA_NI 0
#endif

/* FIPS 180-4 section 4.2.2: the first 32 bits of the fractional parts of the
 * cube roots of the first 64 primes. */
static const uint32_t K256[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
};

/* Section 5.3.3: the initial hash value. */
static const uint32_t H0[8] = {
    0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au, 0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u,
};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* One block of the compression function (section 6.2.2). */
static void compress_c(uint32_t h[8], const uint8_t block[FGP_SHA256_BLOCK])
{
    uint32_t w[64], s[8];
    for (int t = 0; t < 16; t++)
        w[t] = load_be32(block + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = ROTR(w[t - 15], 7) ^ ROTR(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = ROTR(w[t - 2], 17) ^ ROTR(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    memcpy(s, h, sizeof s);
    for (int t = 0; t < 64; t++) {
        uint32_t e = s[4], a = s[0];
        uint32_t t1 = s[7] + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) + ((e & s[5]) ^ (~e & s[6])) + K256[t] + w[t];
        uint32_t t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) + ((a & s[1]) ^ (a & s[2]) ^ (s[1] & s[2]));
        s[7] = s[6];
        s[6] = s[5];
        s[5] = s[4];
        s[4] = s[3] + t1;
        s[3] = s[2];
        s[2] = s[1];
        s[1] = s[0];
        s[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++)
        h[i] += s[i];
}


#if FGP_SHA_NI
/* The same block with the SHA extensions (SHA256RNDS2, SHA256MSG1/2): the
 * state as the instructions keep it, (A, B, E, F) and (C, D, G, H); four
 * rounds per message vector; the schedule W[t] = s1(W[t-2]) + W[t-7] +
 * s0(W[t-15]) + W[t-16] four words at a time, in a ring of four vectors. */
__attribute__((target("sha,sse4.1,ssse3"))) static void compress_shani(uint32_t h[8], const uint8_t block[FGP_SHA256_BLOCK])
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i abcd = _mm_loadu_si128((const __m128i *)(const void *)h);
    __m128i efgh = _mm_loadu_si128((const __m128i *)(const void *)(h + 4));
    __m128i cdab = _mm_shuffle_epi32(abcd, 0xb1);
    __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1b);
    __m128i abef = _mm_alignr_epi8(cdab, hgfe, 8);
    __m128i cdgh = _mm_blend_epi16(hgfe, cdab, 0xf0);
    __m128i abef0 = abef, cdgh0 = cdgh, m[4];
    for (int g = 0; g < 16; g++) {
        __m128i wk;
        if (g < 4) {
            m[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(block + 16 * g)), bswap);
        } else {
            __m128i t = _mm_sha256msg1_epu32(m[g % 4], m[(g + 1) % 4]);
            t = _mm_add_epi32(t, _mm_alignr_epi8(m[(g + 3) % 4], m[(g + 2) % 4], 4));
            m[g % 4] = _mm_sha256msg2_epu32(t, m[(g + 3) % 4]);
        }
        wk = _mm_add_epi32(m[g % 4], _mm_loadu_si128((const __m128i *)(const void *)(K256 + 4 * g)));
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);     /* two rounds: the new (A, B, E, F) */
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0e));
    }
    abef = _mm_add_epi32(abef, abef0);
    cdgh = _mm_add_epi32(cdgh, cdgh0);
    __m128i feba = _mm_shuffle_epi32(abef, 0x1b);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1);
    _mm_storeu_si128((__m128i *)(void *)h, _mm_blend_epi16(feba, dchg, 0xf0));
    _mm_storeu_si128((__m128i *)(void *)(h + 4), _mm_alignr_epi8(dchg, feba, 8));
}

/* 1 if the CPU has the SHA extensions and SSE4.1 (CPUID once; the cached
 * answer is the same for every thread, so the race to store it is benign). */
static int have_shani(void)
{
    static int cached = -1; /* -1: not probed yet */
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        unsigned a, b, c, d;
        int sse41 = __get_cpuid(1, &a, &b, &c, &d) && (c >> 19 & 1) && (c >> 9 & 1);
        v = sse41 && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 29 & 1);
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}
#endif

static int portable_only; /* fgp_sha256_force_portable */

void fgp_sha256_force_portable(int on)
{
    portable_only = on;
}

static void compress(uint32_t h[8], const uint8_t block[FGP_SHA256_BLOCK])
{
#if FGP_SHA_NI
    if (!portable_only && have_shani()) {
        compress_shani(h, block);
        return;
    }
#endif
    compress_c(h, block);
}

void fgp_sha256_init(fgp_sha256_ctx *c)
{
    memcpy(c->h, H0, sizeof c->h);
    c->buf_len = 0;
    c->total = 0;
}

void fgp_sha256_update(fgp_sha256_ctx *c, const uint8_t *in, size_t len)
{
    c->total += len;
    while (len > 0) {
        size_t take = FGP_SHA256_BLOCK - c->buf_len;
        if (take > len)
            take = len;
        memcpy(c->buf + c->buf_len, in, take);
        c->buf_len += take;
        in += take;
        len -= take;
        if (c->buf_len == FGP_SHA256_BLOCK) {
            compress(c->h, c->buf);
            c->buf_len = 0;
        }
    }
}

void fgp_sha256_final(uint8_t out[FGP_SHA256_BYTES], fgp_sha256_ctx *c)
{
    /* Section 5.1.1: 0x80, zeros to 56 mod 64, the bit length big-endian. */
    uint64_t bits = c->total * 8;
    uint8_t pad[FGP_SHA256_BLOCK + 8] = {0x80};
    size_t pad_len = (c->buf_len < 56 ? 56 : 56 + FGP_SHA256_BLOCK) - c->buf_len;
    for (int i = 0; i < 8; i++)
        pad[pad_len + i] = (uint8_t)(bits >> (56 - 8 * i));
    fgp_sha256_update(c, pad, pad_len + 8);
    for (int i = 0; i < 8; i++)
        store_be32(out + 4 * i, c->h[i]);
    memset(c, 0, sizeof *c);
}

void fgp_hmac_sha256_key(fgp_hmac_key *k, const uint8_t *key, size_t len)
{
    uint8_t ipad[FGP_SHA256_BLOCK], opad[FGP_SHA256_BLOCK];
    for (size_t i = 0; i < FGP_SHA256_BLOCK; i++) {
        uint8_t b = i < len ? key[i] : 0;
        ipad[i] = b ^ 0x36;
        opad[i] = b ^ 0x5c;
    }
    fgp_sha256_init(&k->inner);
    fgp_sha256_update(&k->inner, ipad, sizeof ipad);
    fgp_sha256_init(&k->outer);
    fgp_sha256_update(&k->outer, opad, sizeof opad);
    memset(ipad, 0, sizeof ipad);
    memset(opad, 0, sizeof opad);
}

void fgp_hmac_sha256(uint8_t out[FGP_SHA256_BYTES], const fgp_hmac_key *k,
                     const uint8_t *const *parts, const size_t *lens, size_t n)
{
    fgp_sha256_ctx c = k->inner;
    uint8_t inner[FGP_SHA256_BYTES];
    for (size_t i = 0; i < n; i++)
        fgp_sha256_update(&c, parts[i], lens[i]);
    fgp_sha256_final(inner, &c);
    c = k->outer;
    fgp_sha256_update(&c, inner, sizeof inner);
    fgp_sha256_final(out, &c);
    memset(inner, 0, sizeof inner);
}
