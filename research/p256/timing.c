/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Tuning harness for fgp_p256 against OpenSSL 3 in one process: RDTSC+LFENCE,
 * interleaved pairs (ours, then OpenSSL's, each call timed alone), medians and
 * the median of the paired ratios. Not part of the build:
 *   cc -O2 -Iprotocols/p256 -Iruntime -Igenerated/p256 -Igenerated/p256n research/p256/timing.c \
 *      build-p256/protocols/p256/libfieldgen_p256.a build-p256/libfieldgen.a \
 *      /usr/lib/x86_64-linux-gnu/libcrypto.a -lpthread -ldl -o /tmp/p256_timing
 *   taskset -c 1 /tmp/p256_timing [reps]
 * Ticks are RDTSC ticks (about 1.42 core cycles each on the Zen 4 here). */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "fgp_p256.h"

static inline uint64_t ticks(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define MAXREPS 20000
static uint64_t to[MAXREPS], tt[MAXREPS];
static double ratio[MAXREPS];

static void report(const char *name, int reps)
{
    for (int i = 0; i < reps; i++)
        ratio[i] = (double)to[i] / (double)tt[i];
    qsort(to, reps, 8, cmp_u64);
    qsort(tt, reps, 8, cmp_u64);
    qsort(ratio, reps, sizeof(double), cmp_d);
    printf("%-14s ours %8.0f  openssl %8.0f  (ticks, median; x1.42 core cycles)  ratio %.3f\n", name,
           (double)to[reps / 2], (double)tt[reps / 2], ratio[reps / 2]);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 2000;
    if (reps > MAXREPS) reps = MAXREPS;
    OPENSSL_init_crypto(0, NULL);
    uint8_t priv[32], priv2[32], pub[65], pub2[65], sec[32], digest[32], sig[64], out[65];
    for (int i = 0; i < 32; i++) { priv[i] = (uint8_t)(i * 7 + 1); priv2[i] = (uint8_t)(i * 13 + 5); digest[i] = (uint8_t)(i * 3); }
    fgp_p256_public_key(pub, priv);
    fgp_p256_public_key(pub2, priv2);

    EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    EC_KEY *k1 = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1), *k2 = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    EC_KEY_oct2key(k1, pub, 65, NULL); EC_KEY_oct2priv(k1, priv, 32);
    EC_KEY_oct2key(k2, pub2, 65, NULL); EC_KEY_oct2priv(k2, priv2, 32);
    EVP_PKEY *p1 = EVP_PKEY_new(), *p2 = EVP_PKEY_new();
    EVP_PKEY_set1_EC_KEY(p1, k1); EVP_PKEY_set1_EC_KEY(p2, k2);
    EVP_PKEY_CTX *dctx = EVP_PKEY_CTX_new(p1, NULL);
    EVP_PKEY_derive_init(dctx); EVP_PKEY_derive_set_peer(dctx, p2);
    BIGNUM *kbn = BN_bin2bn(priv, 32, NULL);
    EC_POINT *R = EC_POINT_new(g);
    const EC_POINT *Q2 = EC_KEY_get0_public_key(k2);
    ECDSA_SIG *osig = ECDSA_do_sign(digest, 32, k1);
    size_t len;
    volatile int sink = 0;

    for (int i = 0; i < reps; i++) {
        uint64_t t0 = ticks(); sink += fgp_p256_ecdh(sec, priv, pub2, 65); uint64_t t1 = ticks();
        len = 32; EVP_PKEY_derive(dctx, sec, &len); uint64_t t2 = ticks();
        to[i] = t1 - t0; tt[i] = t2 - t1;
    }
    report("ecdh derive", reps);
    for (int i = 0; i < reps; i++) {
        uint64_t t0 = ticks(); sink += fgp_p256_ecdsa_sign(sig, digest, priv); uint64_t t1 = ticks();
        ECDSA_SIG *s = ECDSA_do_sign(digest, 32, k1); uint64_t t2 = ticks();
        ECDSA_SIG_free(s);
        to[i] = t1 - t0; tt[i] = t2 - t1;
    }
    report("ecdsa sign", reps);
    fgp_p256_ecdsa_sign(sig, digest, priv);
    for (int i = 0; i < reps; i++) {
        uint64_t t0 = ticks(); sink += fgp_p256_ecdsa_verify(sig, digest, pub, 65); uint64_t t1 = ticks();
        sink += ECDSA_do_verify(digest, 32, osig, k1); uint64_t t2 = ticks();
        to[i] = t1 - t0; tt[i] = t2 - t1;
    }
    report("ecdsa verify", reps);
    for (int i = 0; i < reps; i++) {
        uint64_t t0 = ticks(); sink += fgp_p256_mul_base(out, priv); uint64_t t1 = ticks();
        EC_POINT_mul(g, R, kbn, NULL, NULL, NULL); uint64_t t2 = ticks();
        to[i] = t1 - t0; tt[i] = t2 - t1;
    }
    report("k*G", reps);
    for (int i = 0; i < reps; i++) {
        uint64_t t0 = ticks(); sink += fgp_p256_mul(out, priv, pub2, 65); uint64_t t1 = ticks();
        EC_POINT_mul(g, R, NULL, Q2, kbn, NULL); uint64_t t2 = ticks();
        to[i] = t1 - t0; tt[i] = t2 - t1;
    }
    report("k*P", reps);
    return sink == 0;
}
