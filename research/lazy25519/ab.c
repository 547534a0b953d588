/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* X25519 derive, three ways in one process, interleaved batch by batch:
 * the shipped ladder (protocols/x25519/fgp_x25519.c: on p25519's lazy ops
 * where the header has them), the canonical ladder (the same file as it
 * stood on main before the lazy ops, compiled with its two functions
 * renamed: the same field library, only the ladder's calls differ), and
 * OpenSSL 3.0's EVP X25519 derive. Each round times one batch of each, in
 * rotating order; per round the ratios lazy/canonical, lazy/OpenSSL and
 * canonical/OpenSSL; the medians over the rounds with the interquartile
 * range. RDTSC fenced with LFENCE; pin with taskset -c 1.
 *
 * Build (from the repository root, after cmake --build build):
 *   git show 6e16f40:protocols/x25519/fgp_x25519.c > /tmp/fgp_x25519_canonical.c
 *   cc -O3 -c /tmp/fgp_x25519_canonical.c -o /tmp/canon.o -Iprotocols/x25519 -Igenerated/p25519 -Iruntime \
 *      -Dfgp_x25519=canon_x25519 -Dfgp_x25519_base=canon_x25519_base
 *   cc -O3 research/lazy25519/ab.c /tmp/canon.o -o /tmp/ab -Iprotocols/x25519 -Igenerated/p25519 -Iruntime \
 *      build/protocols/x25519/libfieldgen_x25519.a build/libfieldgen.a build/libfieldgen-runtime.a \
 *      /usr/lib/x86_64-linux-gnu/libcrypto.a -lpthread -ldl
 *   taskset -c 1 /tmp/ab [rounds] [base]
 * With "base": the public-key computation instead (fgp_x25519_base, the
 * fixed-base table on Ed25519; OpenSSL's EVP_PKEY_new_raw_private_key and
 * EVP_PKEY_free, which computes the public key by its ladder).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include <openssl/evp.h>

#include "fg_cpu.h"
#include "fgp_x25519.h"

int canon_x25519(uint8_t out[32], const uint8_t scalar[32], const uint8_t u[32]);
void canon_x25519_base(uint8_t out[32], const uint8_t scalar[32]);
static int base_mode;

#define BATCH 8
#define MAXR 4001

static uint8_t priv[32], peer[32];
static EVP_PKEY_CTX *dctx;
static volatile uint8_t sink;

static inline uint64_t tsc(void)
{
    uint64_t t;
    _mm_lfence();
    t = __rdtsc();
    _mm_lfence();
    return t;
}

static uint64_t run(int which)
{
    uint8_t out[32];
    size_t len;
    uint64_t t0 = tsc();
    for (int i = 0; i < BATCH && base_mode; i++) {
        if (which == 0)
            fgp_x25519_base(out, priv);
        else if (which == 1)
            canon_x25519_base(out, priv);
        else {
            EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv, 32);
            EVP_PKEY_free(k);
        }
        sink ^= out[0];
    }
    for (int i = 0; i < BATCH && !base_mode; i++) {
        if (which == 0)
            sink ^= (uint8_t)fgp_x25519(out, priv, peer) ^ out[0];
        else if (which == 1)
            sink ^= (uint8_t)canon_x25519(out, priv, peer) ^ out[0];
        else {
            len = sizeof out;
            sink ^= (uint8_t)EVP_PKEY_derive(dctx, out, &len) ^ out[0];
        }
    }
    return tsc() - t0;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmpd);
    printf("%-22s median %.4f  [q1 %.4f, q3 %.4f]  min %.4f max %.4f\n", what, v[n / 2], v[n / 4], v[3 * n / 4],
           v[0], v[n - 1]);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 1001;
    static double r_lc[MAXR], r_lo[MAXR], r_co[MAXR], t_l[MAXR], t_c[MAXR], t_o[MAXR];
    uint8_t a[32], b[32], pub[32];
    EVP_PKEY *k, *pk;
    size_t len = 32;
    if (rounds > MAXR)
        rounds = MAXR;
    base_mode = argc > 2 && !strcmp(argv[2], "base");
    srand(1);
    for (int i = 0; i < 32; i++)
        priv[i] = (uint8_t)rand(), peer[i] = (uint8_t)rand();
    fgp_x25519_base(pub, peer);
    memcpy(peer, pub, 32);
    k = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv, 32);
    pk = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, peer, 32);
    dctx = EVP_PKEY_CTX_new(k, NULL);
    if (!k || !pk || !dctx || EVP_PKEY_derive_init(dctx) <= 0 || EVP_PKEY_derive_set_peer(dctx, pk) <= 0)
        return 2;
    /* the three agree */
    fgp_x25519(a, priv, peer);
    canon_x25519(b, priv, peer);
    {
        uint8_t pa[32], pb[32];
        fgp_x25519_base(pa, priv);
        canon_x25519_base(pb, priv);
        if (memcmp(pa, pb, 32)) {
            fprintf(stderr, "the two public keys disagree\n");
            return 1;
        }
    }
    if (memcmp(a, b, 32) || EVP_PKEY_derive(dctx, pub, &len) <= 0 || memcmp(a, pub, 32)) {
        fprintf(stderr, "the three derives disagree\n");
        return 1;
    }
    for (int w = 0; w < 50; w++)
        (void)run(w % 3);
    for (int r = 0; r < rounds; r++) {
        uint64_t t[3];
        for (int j = 0; j < 3; j++) {
            int which = (r + j) % 3;
            t[which] = run(which);
        }
        t_l[r] = (double)t[0] / BATCH, t_c[r] = (double)t[1] / BATCH, t_o[r] = (double)t[2] / BATCH;
        r_lc[r] = (double)t[0] / (double)t[1];
        r_lo[r] = (double)t[0] / (double)t[2];
        r_co[r] = (double)t[1] / (double)t[2];
    }
    printf("X25519 %s, %d rounds of %d, level %s, TSC ticks per derive and per-round ratios\n", base_mode ? "public key" : "derive", rounds, BATCH,
           fg_isa_name(fg_isa_active()));
    report("lazy ladder (ticks)", t_l, rounds);
    report("canonical ladder", t_c, rounds);
    report("OpenSSL EVP", t_o, rounds);
    report("lazy / canonical", r_lc, rounds);
    report("lazy / OpenSSL", r_lo, rounds);
    report("canonical / OpenSSL", r_co, rounds);
    return 0;
}
