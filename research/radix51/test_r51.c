/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* research/radix51/test_r51.c: r51.c against GMP and against fieldgen's
 * fg_p25519_mul_c / sqr_c.
 *
 * Build and run, from the repository root (gcc or clang):
 *   nice -n 19 gcc -O2 -Igenerated/p25519 -Iruntime research/radix51/test_r51.c \
 *       research/radix51/r51.c generated/p25519/fg_p25519.c runtime/fg_cpu.c \
 *       -lgmp -o /tmp/test_r51 && nice -n 19 /tmp/test_r51 [count]
 *
 * Inputs: edge values (0, 1, 2, 18, 19, p-2, p-1, p, p+1, p+18, 2^255-1,
 * 2^255, 2^256-39 .. 2^256-1 (every limb 2^64-1), single-limb patterns), all
 * pairs of them, then `count` (default 200000) random operands each for mul
 * and sqr, half uniform in [0, 2^256), half canonical in [0, p); then chains
 * of the 5x51 bound kernels (r51_mul5/r51_sqr5 on their own loose outputs),
 * converted back and compared at every step.
 */
#include <gmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void r51_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void r51_sqr(uint64_t r[4], const uint64_t a[4]);
void r51_mul_b(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void r51_sqr_b(uint64_t r[4], const uint64_t a[4]);
void r51_mul_p(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void r51_sqr_p(uint64_t r[4], const uint64_t a[4]);
void r51_mul5(uint64_t r[5], const uint64_t a[5], const uint64_t b[5]);
void r51_sqr5(uint64_t r[5], const uint64_t a[5]);
void r51_to51(uint64_t a[5], const uint64_t x[4]);
void r51_from51(uint64_t r[4], const uint64_t h[5]);
void fg_p25519_mul_c(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void fg_p25519_sqr_c(uint64_t r[4], const uint64_t a[4]);

static mpz_t P, T, U, V;
static uint64_t rng = 0x9e3779b97f4a7c15u;
static long fails, checks;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void to_mpz(mpz_t z, const uint64_t x[4])
{
    mpz_import(z, 4, -1, 8, 0, 0, x);
}

static void from_mpz(uint64_t x[4], const mpz_t z)
{
    size_t cnt = 0;
    memset(x, 0, 32);
    mpz_export(x, &cnt, -1, 8, 0, 0, z);
}

static void expect(const char *what, const uint64_t got[4], const uint64_t *a, const uint64_t *b)
{
    uint64_t want[4];
    to_mpz(U, a);
    to_mpz(V, b ? b : a);
    mpz_mul(T, U, V);
    mpz_mod(T, T, P);
    from_mpz(want, T);
    checks++;
    if (memcmp(got, want, 32)) {
        if (fails++ < 10)
            printf("FAIL %s a=%016llx.. got %016llx %016llx %016llx %016llx\n", what,
                   (unsigned long long)a[3], (unsigned long long)got[3], (unsigned long long)got[2],
                   (unsigned long long)got[1], (unsigned long long)got[0]);
    }
}

static void one(const uint64_t a[4], const uint64_t b[4])
{
    uint64_t r[4];
    r51_mul(r, a, b);
    expect("r51_mul", r, a, b);
    fg_p25519_mul_c(r, a, b);
    expect("fg_mul_c", r, a, b);
    r51_mul_b(r, a, b);
    expect("r51_mul_b", r, a, b);
    r51_mul_p(r, a, b);
    expect("r51_mul_p", r, a, b);
    r51_sqr(r, a);
    expect("r51_sqr", r, a, NULL);
    r51_sqr_b(r, a);
    expect("r51_sqr_b", r, a, NULL);
    r51_sqr_p(r, a);
    expect("r51_sqr_p", r, a, NULL);
    fg_p25519_sqr_c(r, a);
    expect("fg_sqr_c", r, a, NULL);
}

int main(int argc, char **argv)
{
    long count = argc > 1 ? atol(argv[1]) : 200000, i, j;
    uint64_t edge[64][4];
    int ne = 0;
    mpz_inits(P, T, U, V, NULL);
    mpz_ui_pow_ui(P, 2, 255);
    mpz_sub_ui(P, P, 19);
    {
        static const long offs_p[] = {-2, -1, 0, 1, 18, 19};
        mpz_t z;
        mpz_init(z);
        for (i = 0; i < 4; i++) {        /* 0, 1, 2, 18, 19 */
            static const unsigned long s[] = {0, 1, 2, 18};
            mpz_set_ui(z, s[i]);
            from_mpz(edge[ne++], z);
        }
        mpz_set_ui(z, 19);
        from_mpz(edge[ne++], z);
        for (i = 0; i < 6; i++) {        /* p-2 .. p+19 */
            if (offs_p[i] < 0)
                mpz_sub_ui(z, P, -offs_p[i]);
            else
                mpz_add_ui(z, P, offs_p[i]);
            from_mpz(edge[ne++], z);
        }
        mpz_ui_pow_ui(z, 2, 255);        /* 2^255 - 1, 2^255, 2^255 + 1 */
        mpz_sub_ui(z, z, 1);
        from_mpz(edge[ne++], z);
        mpz_add_ui(z, z, 1);
        from_mpz(edge[ne++], z);
        mpz_add_ui(z, z, 1);
        from_mpz(edge[ne++], z);
        for (i = 0; i < 40; i += 8) {    /* 2^256 - 1 - i: all limbs 2^64-1 at i = 0 */
            mpz_ui_pow_ui(z, 2, 256);
            mpz_sub_ui(z, z, 1 + i);
            from_mpz(edge[ne++], z);
        }
        mpz_ui_pow_ui(z, 2, 256);        /* 2p, 2p + 37 = 2^256 - 1 */
        mpz_sub_ui(z, z, 38);
        from_mpz(edge[ne++], z);
        for (i = 0; i < 4; i++) {        /* one limb all ones, one limb 2^51-1 patterns */
            memset(edge[ne], 0, 32);
            edge[ne++][i] = ~UINT64_C(0);
        }
        for (i = 0; i < 5; i++) {        /* 2^(51 i + 50) .. a 5x51 limb at its top bit */
            mpz_ui_pow_ui(z, 2, 51 * i + 50);
            from_mpz(edge[ne++], z);
            mpz_ui_pow_ui(z, 2, 51 * i + 51);
            mpz_sub_ui(z, z, 1);
            from_mpz(edge[ne++], z);
        }
        mpz_clear(z);
    }
    for (i = 0; i < ne; i++)
        for (j = 0; j < ne; j++)
            one(edge[i], edge[j]);
    printf("edge values: %d, %d pairs\n", ne, ne * ne);
    for (i = 0; i < count; i++) {
        uint64_t a[4], b[4];
        for (j = 0; j < 4; j++)
            a[j] = next(), b[j] = next();
        if (i & 1) {                      /* canonical: [0, 2^255) then mod p */
            a[3] >>= 1, b[3] >>= 1;
            to_mpz(T, a); mpz_mod(T, T, P); from_mpz(a, T);
            to_mpz(T, b); mpz_mod(T, T, P); from_mpz(b, T);
        }
        one(a, b);
    }
    /* the bound kernels: 5x51 chains on their own loose outputs */
    for (i = 0; i < count / 100; i++) {
        uint64_t a[4], b[4], x[5], y[5], r[4], back[4];
        for (j = 0; j < 4; j++)
            a[j] = next(), b[j] = next();
        r51_to51(x, a);
        r51_to51(y, b);
        for (j = 0; j < 100; j++) {
            uint64_t prev[4];
            r51_from51(prev, x);
            if (j & 1) {
                r51_mul5(x, x, y);
                r51_from51(back, x);
                fg_p25519_mul_c(r, prev, b);
            } else {
                r51_sqr5(x, x);
                r51_from51(back, x);
                fg_p25519_sqr_c(r, prev);
            }
            checks++;
            if (memcmp(back, r, 32) && fails++ < 10)
                printf("FAIL bound chain %ld step %ld\n", i, j);
            if (x[0] >> 51 || x[1] >> 52 || x[2] >> 51 || x[3] >> 51 || x[4] >> 51) {
                fails++;
                printf("FAIL bound: loose limbs out of range\n");
            }
        }
    }
    printf("%ld checks, %ld failures\n", checks, fails);
    return fails != 0;
}
