/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "study.h"

static void to_mpz(mpz_t z, const uint64_t *x, int n) { mpz_import(z, n, -1, 8, 0, 0, x); }
static void from_mpz(uint64_t *x, const mpz_t z, int n) { memset(x, 0, 8 * n); mpz_export(x, NULL, -1, 8, 0, 0, z); }

static long fails;
static void check(int nl, const uint64_t *P, int sqr, const uint64_t *a, const uint64_t *b, mpz_t p, mpz_t rinv)
{
    uint64_t r[16], ref[16], a2[16], b2[16];
    mpz_t x, y;
    mpz_inits(x, y, NULL);
    memcpy(a2, a, 8 * nl); memcpy(b2, b, 8 * nl);
    to_mpz(x, a, nl); to_mpz(y, sqr ? a : b, nl);
    mpz_mul(x, x, y); mpz_mul(x, x, rinv); mpz_mod(x, x, p);
    from_mpz(ref, x, nl);
    if (nl == 8) { if (sqr) p503_sqr_ifma(r, a2); else p503_mul_ifma(r, a2, b2); }
    else { if (sqr) p751_sqr_ifma(r, a2); else p751_mul_ifma(r, a2, b2); }
    if (memcmp(r, ref, 8 * nl)) {
        if (fails++ < 5) {
            printf("FAIL nl=%d sqr=%d\n a=", nl, sqr);
            for (int i = nl - 1; i >= 0; i--) printf("%016llx", (unsigned long long)a[i]);
            printf("\n b=");
            for (int i = nl - 1; i >= 0; i--) printf("%016llx", (unsigned long long)b[i]);
            printf("\n got="); for (int i = nl - 1; i >= 0; i--) printf("%016llx", (unsigned long long)r[i]);
            printf("\n ref="); for (int i = nl - 1; i >= 0; i--) printf("%016llx", (unsigned long long)ref[i]);
            printf("\n");
        }
    }
    mpz_clears(x, y, NULL);
}

static void check_fp2(const uint64_t *a, const uint64_t *b, mpz_t p, mpz_t rinv)
{
    /* (a0 + a1 u)(b0 + b1 u), u^2 = -1, Montgomery: result * R^-1 */
    uint64_t r[24], ref[24];
    mpz_t a0, a1, b0, b1, c0, c1, t;
    mpz_inits(a0, a1, b0, b1, c0, c1, t, NULL);
    to_mpz(a0, a, 12); to_mpz(a1, a + 12, 12); to_mpz(b0, b, 12); to_mpz(b1, b + 12, 12);
    mpz_mul(c0, a0, b0); mpz_mul(t, a1, b1); mpz_sub(c0, c0, t);
    mpz_mul(c1, a0, b1); mpz_mul(t, a1, b0); mpz_add(c1, c1, t);
    mpz_mul(c0, c0, rinv); mpz_mod(c0, c0, p); mpz_mul(c1, c1, rinv); mpz_mod(c1, c1, p);
    from_mpz(ref, c0, 12); from_mpz(ref + 12, c1, 12);
    p751_fp2_mul_ifma(r, a, b);
    if (memcmp(r, ref, 8 * 24)) { if (fails++ < 5) printf("FAIL fp2\n"); }
    uint64_t r2[24];
    fg_p751_fp2_mul(r2, a, b);
    if (memcmp(r2, ref, 8 * 24)) { if (fails++ < 5) printf("FAIL fg fp2 ref?\n"); }
    mpz_clears(a0, a1, b0, b1, c0, c1, t, NULL);
}

int main(int argc, char **argv)
{
    long N = argc > 1 ? atol(argv[1]) : 100000;
    ifma_setup();
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, 12345);
    for (int f = 0; f < 2; f++) {
        int nl = f ? 12 : 8;
        const uint64_t *P = f ? fg_p751_P : fg_p503_P;
        mpz_t p, R, rinv, z;
        mpz_inits(p, R, rinv, z, NULL);
        to_mpz(p, P, nl);
        mpz_setbit(R, 64 * nl);
        mpz_invert(rinv, R, p);
        /* edge values */
        int ne = 0;
        static uint64_t E[200][16];
        const long small[] = {0, 1, 2, 3};
        for (int i = 0; i < 4; i++) { mpz_set_ui(z, small[i]); from_mpz(E[ne++], z, nl); }
        for (int i = 1; i <= 3; i++) { mpz_sub_ui(z, p, i); from_mpz(E[ne++], z, nl); }
        for (int k = 1; k < 64 * nl && ne < 190; k += (k < 64 ? 1 : 13)) {
            mpz_set_ui(z, 0); mpz_setbit(z, k);
            if (mpz_cmp(z, p) < 0) { from_mpz(E[ne++], z, nl); mpz_sub_ui(z, z, 1); from_mpz(E[ne++], z, nl); }
        }
        /* p - 2^k */
        for (int k = 0; k < 64 * nl - 12 && ne < 200; k += 37) { mpz_set_ui(z, 0); mpz_setbit(z, k); mpz_sub(z, p, z); from_mpz(E[ne++], z, nl); }
        for (int sqr = 0; sqr < 2; sqr++)
            for (int i = 0; i < ne; i++)
                for (int j = 0; j < ne; j++) check(nl, P, sqr, E[i], E[j], p, rinv);
        long nedge = (long)ne * ne;
        for (long it = 0; it < N; it++) {
            uint64_t a[16], b[16];
            mpz_urandomm(z, rs, p); from_mpz(a, z, nl);
            mpz_urandomm(z, rs, p); from_mpz(b, z, nl);
            check(nl, P, 0, a, b, p, rinv);
            check(nl, P, 1, a, b, p, rinv);
        }
#ifdef FP2
        if (nl == 12) {
            for (long it = 0; it < N; it++) {
                uint64_t a[24], b[24];
                for (int h = 0; h < 2; h++) {
                    mpz_urandomm(z, rs, p); from_mpz(a + 12 * h, z, nl);
                    mpz_urandomm(z, rs, p); from_mpz(b + 12 * h, z, nl);
                }
                if (it < 64) { /* edges */
                    memcpy(a, E[it % ne], 96); memcpy(b + 12, E[(it * 7) % ne], 96);
                    memcpy(a + 12, E[(it * 3 + 1) % ne], 96); memcpy(b, E[(it * 5 + 2) % ne], 96);
                }
                check_fp2(a, b, p, rinv);
            }
        }
#endif
        printf("field nl=%d: %ld edge pairs x2, %ld random pairs x2 (mul+sqr), fails so far %ld\n", nl, nedge, N, fails);
        mpz_clears(p, R, rinv, z, NULL);
    }
    printf(fails ? "FAILED\n" : "ALL OK\n");
    return fails != 0;
}
