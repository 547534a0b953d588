/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* X25519 tests: RFC 7748's published vectors and agreement with OpenSSL.
 *
 *   test_x25519 --level L --suite vectors          RFC 7748 5.2 (two vectors,
 *                                                  1 and 1,000 iterations), 6.1;
 *                                                  fgp_x25519_base against the ladder
 *   test_x25519 --level L --suite openssl [--count N] [--seed S]
 *                                                  N random key pairs (default
 *                                                  10,000) against OpenSSL's
 *                                                  EVP X25519, with non-canonical
 *                                                  and low-order peer keys
 *   test_x25519 --level L --suite million          the 1,000,000-iteration vector
 *
 * The vectors run under every tuning the build can switch to (the kernels a
 * level runs may differ between them). Exit 0: passed; 1: a check failed;
 * 77: level L not available; 2: usage. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FGP_TEST_OPENSSL
#define FGP_TEST_OPENSSL 1 /* 0: a cross build without the target's OpenSSL (vectors and million only) */
#endif
#if FGP_TEST_OPENSSL
#include <openssl/evp.h>
#endif

#include "fgp_x25519.h"
#include "x25519_test_level.h"

#define N FGP_X25519_BYTES
#define DEFAULT_COUNT 10000UL
#define BASE_CHECKS 256 /* fixed-base results checked against the ladder, per tuning */

static int failures;

static void from_hex(uint8_t out[N], const char *hex)
{
    size_t i;
    for (i = 0; i < N; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
            fprintf(stderr, "bad hex vector %s\n", hex);
            exit(2);
        }
        out[i] = (uint8_t)v;
    }
}

static void print_hex(const char *what, const uint8_t b[N])
{
    size_t i;
    fprintf(stderr, "  %-8s ", what);
    for (i = 0; i < N; i++)
        fprintf(stderr, "%02x", b[i]);
    fprintf(stderr, "\n");
}

static void expect(const char *name, const uint8_t got[N], const uint8_t want[N])
{
    if (memcmp(got, want, N) != 0) {
        fprintf(stderr, "FAIL %s\n", name);
        print_hex("got", got);
        print_hex("want", want);
        failures++;
    }
}

static void expect_ret(const char *name, int got, int want)
{
    if (got != want) {
        fprintf(stderr, "FAIL %s: returned %d, expected %d\n", name, got, want);
        failures++;
    }
}

/* ---- RFC 7748 vectors (test data from RFC 7748 sections 5.2 and 6.1) ---- */
static const struct {
    const char *scalar, *u, *out;
} rfc_5_2[] = {
    {"a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
     "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
     "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"},
    {"4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
     "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
     "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"},
};
#define ITER_1 "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079"
#define ITER_1000 "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51"
#define ITER_1000000 "7c3911e0ab2586fd864497297e575e6f3bc601c0883c30df5f4dd2d24f665424"
#define DH_A_PRIV "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"
#define DH_A_PUB "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"
#define DH_B_PRIV "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"
#define DH_B_PUB "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"
#define DH_SHARED "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"

/* RFC 7748 5.2's iteration: k = X25519(k, u), u = the old k, from k = u = 9;
 * checks k after each count in `at` (ascending, with their hex values). */
static void iterate(unsigned long n_at, const unsigned long *at, const char *const *want_hex)
{
    uint8_t k[N] = {9}, u[N] = {9}, next[N], want[N];
    unsigned long i, j = 0;
    char name[64];
    for (i = 1; j < n_at; i++) {
        (void)fgp_x25519(next, k, u);
        memcpy(u, k, N);
        memcpy(k, next, N);
        if (i == at[j]) {
            from_hex(want, want_hex[j]);
            snprintf(name, sizeof name, "RFC 7748 5.2 after %lu iteration(s)", i);
            expect(name, k, want);
            j++;
        }
    }
}

static void vectors(void)
{
    static const unsigned long at[] = {1, 1000};
    static const char *const want[] = {ITER_1, ITER_1000};
    uint8_t s[N], u[N], w[N], r[N], a[N], b[N], apub[N], bpub[N];
    size_t i;
    char name[64];

    for (i = 0; i < sizeof rfc_5_2 / sizeof rfc_5_2[0]; i++) {
        from_hex(s, rfc_5_2[i].scalar);
        from_hex(u, rfc_5_2[i].u);
        from_hex(w, rfc_5_2[i].out);
        snprintf(name, sizeof name, "RFC 7748 5.2 vector %zu", i + 1);
        expect_ret(name, fgp_x25519(r, s, u), 1);
        expect(name, r, w);
        memcpy(r, u, N); /* out aliasing u */
        (void)fgp_x25519(r, s, r);
        expect("RFC 7748 5.2 vector, out == u", r, w);
    }
    iterate(2, at, want);

    /* the fixed-base path against the ladder with u = 9: scalars with every
     * byte value, all zero and all ones (clamping decides the top and bottom) */
    for (i = 0; i < BASE_CHECKS; i++) {
        size_t j;
        static const uint8_t nine[N] = {9};
        for (j = 0; j < N; j++)
            s[j] = (uint8_t)(i < 2 ? (i ? 0xff : 0x00) : (i * 37 + j * 101 + (i >> 3) * j));
        fgp_x25519_base(r, s);
        (void)fgp_x25519(w, s, nine);
        expect("fgp_x25519_base against fgp_x25519(scalar, 9)", r, w);
    }

    from_hex(a, DH_A_PRIV);
    from_hex(b, DH_B_PRIV);
    fgp_x25519_base(apub, a);
    from_hex(w, DH_A_PUB);
    expect("RFC 7748 6.1 Alice's public key", apub, w);
    fgp_x25519_base(bpub, b);
    from_hex(w, DH_B_PUB);
    expect("RFC 7748 6.1 Bob's public key", bpub, w);
    from_hex(w, DH_SHARED);
    expect_ret("RFC 7748 6.1 Alice's shared secret", fgp_x25519(r, a, bpub), 1);
    expect("RFC 7748 6.1 Alice's shared secret", r, w);
    expect_ret("RFC 7748 6.1 Bob's shared secret", fgp_x25519(r, b, apub), 1);
    expect("RFC 7748 6.1 Bob's shared secret", r, w);
}

/* ---- agreement with OpenSSL ---- */
static uint64_t rng;
static uint64_t next_u64(void) /* splitmix64 */
{
    uint64_t z = (rng += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}
static void random_bytes(uint8_t b[N])
{
    size_t i;
    for (i = 0; i < N; i += 8) {
        uint64_t v = next_u64();
        memcpy(b + i, &v, 8);
    }
}

/* OpenSSL's X25519: the public key of priv, and the derive with peer.
 * Returns 1 and the secret, or 0 where OpenSSL's derive fails (its all-zero
 * check). Aborts the test if an OpenSSL call fails for another reason. */
#if FGP_TEST_OPENSSL
static void ossl_public(uint8_t pub[N], const uint8_t priv[N])
{
    EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv, N);
    size_t len = N;
    if (k == NULL || EVP_PKEY_get_raw_public_key(k, pub, &len) != 1 || len != N) {
        fprintf(stderr, "OpenSSL: X25519 public key failed\n");
        exit(1);
    }
    EVP_PKEY_free(k);
}

static int ossl_derive(uint8_t secret[N], const uint8_t priv[N], const uint8_t peer[N])
{
    EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv, N);
    EVP_PKEY *p = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, peer, N);
    EVP_PKEY_CTX *ctx = k ? EVP_PKEY_CTX_new(k, NULL) : NULL;
    size_t len = N;
    int ok;
    if (k == NULL || p == NULL || ctx == NULL || EVP_PKEY_derive_init(ctx) != 1 ||
        EVP_PKEY_derive_set_peer(ctx, p) != 1) {
        fprintf(stderr, "OpenSSL: X25519 derive setup failed\n");
        exit(1);
    }
    ok = EVP_PKEY_derive(ctx, secret, &len) == 1 && len == N;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(p);
    EVP_PKEY_free(k);
    return ok;
}

/* Peer keys of small order on the curve or its twist (their X25519 is zero
 * for every clamped scalar), with the non-canonical forms of 0 and 1: the
 * u-coordinates 0, 1, the two points of order 8 (the values listed in the
 * curve's small-subgroup literature, e.g. cr.yp.to/ecdh.html), p - 1, p, p + 1,
 * and the same with bit 255 set. */
static const char *const low_order[] = {
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0100000000000000000000000000000000000000000000000000000000000000",
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
};
#define P_PLUS(j) (0xed + (j)) /* low byte of p + j, j <= 18: p + j < 2^255 */
#define NONCANONICAL 19        /* values in [p, 2^255): p + 0 .. p + 18 */

/* One comparison: ours against OpenSSL's derive on (priv, peer). */
static void agree(const char *what, unsigned long i, const uint8_t priv[N], const uint8_t peer[N])
{
    uint8_t ours[N], theirs[N], zero[N] = {0};
    int r_ours = fgp_x25519(ours, priv, peer), r_theirs = ossl_derive(theirs, priv, peer);
    char name[96];
    snprintf(name, sizeof name, "%s #%lu against OpenSSL", what, i);
    if (!r_theirs)
        memcpy(theirs, zero, N); /* OpenSSL fails on an all-zero secret; ours writes zeros */
    expect_ret(name, r_ours, r_theirs);
    if (memcmp(ours, theirs, N) != 0) {
        print_hex("priv", priv);
        print_hex("peer", peer);
    }
    expect(name, ours, theirs);
}

static void openssl(unsigned long count)
{
    uint8_t a[N], b[N], apub[N], bpub[N], want[N], peer[N];
    unsigned long i, low = 0, noncanon = 0, topbit = 0;
    size_t j;

    for (i = 0; i < count; i++) {
        random_bytes(a);
        random_bytes(b);
        fgp_x25519_base(apub, a);
        ossl_public(want, a);
        expect("public key against OpenSSL", apub, want);
        ossl_public(bpub, b);
        agree("shared secret (OpenSSL's public key)", i, a, bpub);
        agree("shared secret (our public key)", i, b, apub);

        /* the peer key's variants: bit 255 set; a value in [p, 2^255); a low-order point */
        memcpy(peer, bpub, N);
        peer[31] |= 0x80;
        agree("peer key with bit 255 set", i, a, peer);
        topbit++;
        if (i % 4 == 0) {
            memset(peer, 0xff, N);
            peer[0] = (uint8_t)P_PLUS(i / 4 % NONCANONICAL);
            peer[31] = (uint8_t)(0x7f | (i & 8 ? 0x80 : 0));
            agree("non-canonical peer key (>= p)", i, a, peer);
            noncanon++;
        }
        if (i % 16 == 0) {
            from_hex(peer, low_order[i / 16 % (sizeof low_order / sizeof low_order[0])]);
            peer[31] |= (uint8_t)(i & 32 ? 0x80 : 0);
            agree("low-order peer key", i, a, peer);
            low++;
        }
    }
    for (j = 0; j < sizeof low_order / sizeof low_order[0]; j++) { /* each at least once, both top bits */
        from_hex(peer, low_order[j]);
        random_bytes(a);
        expect_ret("low-order peer key's return value", fgp_x25519(want, a, peer), 0);
        agree("low-order peer key", j, a, peer);
        peer[31] |= 0x80;
        agree("low-order peer key, bit 255 set", j, a, peer);
        low += 2;
    }
    printf("x25519: %lu random key pairs (public keys and secrets both ways), %lu peer keys with bit 255 set, "
           "%lu non-canonical (>= p), %lu low-order, against OpenSSL\n", count, topbit, noncanon, low);
}

#endif

static void million(void)
{
    static const unsigned long at[] = {1, 1000, 1000000};
    static const char *const want[] = {ITER_1, ITER_1000, ITER_1000000};
    iterate(3, at, want);
}

int main(int argc, char **argv)
{
    const char *suite = NULL, *level = NULL;
    unsigned long count = DEFAULT_COUNT;
    int i, rc, tune, ntunes = 0;
    rng = UINT64_C(0x7825519);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--level") && i + 1 < argc) level = argv[++i];
        else if (!strcmp(argv[i], "--suite") && i + 1 < argc) suite = argv[++i];
        else if (!strcmp(argv[i], "--count") && i + 1 < argc) count = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) rng = strtoull(argv[++i], NULL, 0);
        else suite = NULL, level = NULL, i = argc;
    }
    if (suite == NULL || level == NULL ||
        (strcmp(suite, "vectors") && strcmp(suite, "openssl") && strcmp(suite, "million"))) {
        fprintf(stderr, "usage: %s --level c|x86_64|bmi2|adx|ifma --suite vectors|openssl|million "
                        "[--count N] [--seed S]\n", argv[0]);
        return 2;
    }
    rc = force_level("x25519", level);
    if (rc)
        return rc;
    if (!strcmp(suite, "vectors")) {
        for (tune = 0; tune < FG_TUNES; tune++) {
            if (!fg_tune_force((fg_tune)tune))
                continue;
            vectors();
            ntunes++;
        }
        fg_tune_force(fg_tune_best());
        printf("x25519: RFC 7748 5.2 (2 vectors, 1 and 1,000 iterations) and 6.1 at level %s, %d tuning(s)\n",
               level, ntunes);
    } else if (!strcmp(suite, "openssl")) {
#if FGP_TEST_OPENSSL
        openssl(count);
#else
        (void)count;
        fprintf(stderr, "x25519: built without OpenSSL (FGP_TEST_OPENSSL=0): no openssl suite\n");
        return 2;
#endif
    } else {
        million();
        printf("x25519: RFC 7748 5.2 1,000,000 iterations at level %s\n", level);
    }
    if (failures) {
        fprintf(stderr, "x25519 level %s suite %s: %d check(s) FAILED\n", level, suite, failures);
        return 1;
    }
    return 0;
}
