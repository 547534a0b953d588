/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen-bench-protocols: cycles per protocol operation of the libraries of
 * protocols/ (X25519; P-256 ECDH and ECDSA; SIDH p503 and p751), at the
 * dispatch level and forced to each ISA level the CPU has, beside OpenSSL in
 * the same run, with the heap allocations per operation and multi-core ops/s.
 *
 *   fieldgen-bench-protocols [--quick] [--proto LIST] [--level LIST] [--threads N]
 *                            [--seed N] [--json FILE] [--compare OLD.json]
 *                            [--plot FILE.png] [--from-json FILE]
 *
 * The method is fieldgen-bench's (bench/README.md): the timer, statistics,
 * table, JSON and --compare of fgb_timer.c and fgb_report.c. A row's
 * "latency" is one whole operation per call; there is no throughput column.
 * Every operation of a protocol (ours at each level, OpenSSL's) is one
 * interleaved group, and ours at the dispatch level is measured once more
 * against OpenSSL's as an interleaved pair, whose batch-by-batch ratio is the
 * figure the targets are read from. SIDH has no OpenSSL peer: its rows
 * are also divided by our fp2_mul of the same field, measured in the same group.
 *
 * The P-256 and SIDH rows exist when their libraries are in the build
 * (FGPB_HAVE_P256, FGPB_HAVE_SIDH, set by bench/CMakeLists.txt); they call
 * only the C API of issue 55 item 4.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>

#include "fg_cpu.h"
#include "fgb.h"
#include "fgb_build.h"
#include "fgb_peers.h"
#include "fgb_report.h"

#include "fgp_x25519.h"
#ifdef FGPB_HAVE_P256
#include "fgp_p256.h"
#endif
#ifdef FGPB_HAVE_SIDH
#include "fg_p503.h"
#include "fg_p751.h"
#include "fgp_sidh_p503.h"
#include "fgp_sidh_p751.h"
#endif

#define MAX_CASES 16
#define PEER_IMPL "openssl"
#define SIDH_REF_OP "fp2_mul" /* the op SIDH rows are divided by */

static volatile uint8_t sink; /* keeps every result alive */
static uint64_t rng_state;

static void random_bytes(uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)fgb_rng_next(&rng_state);
}

static void die_openssl(const char *what)
{
    fprintf(stderr, "fieldgen-bench-protocols: ERROR: OpenSSL: %s failed\n", what);
    exit(1);
}

/* ---------------------------------------------------------------- X25519 ---- */
static struct {
    uint8_t priv[FGP_X25519_BYTES], peer[FGP_X25519_BYTES];
    EVP_PKEY_CTX *derive; /* OpenSSL: priv's context with the peer set, as a server reuses it */
} x;

static void x25519_ours(void *s, size_t iters)
{
    uint8_t out[FGP_X25519_BYTES];
    (void)s;
    for (size_t i = 0; i < iters; i++)
        sink ^= (uint8_t)fgp_x25519(out, x.priv, x.peer) ^ out[0];
}

static void x25519_ossl(void *s, size_t iters)
{
    uint8_t out[FGP_X25519_BYTES];
    (void)s;
    for (size_t i = 0; i < iters; i++) {
        size_t len = sizeof out;
        sink ^= (uint8_t)EVP_PKEY_derive(x.derive, out, &len) ^ out[0];
    }
}

static void x25519_base_ours(void *s, size_t iters)
{
    uint8_t out[FGP_X25519_BYTES];
    (void)s;
    for (size_t i = 0; i < iters; i++) {
        fgp_x25519_base(out, x.priv);
        sink ^= out[0];
    }
}

/* OpenSSL computes the public key when it imports the private one (its
 * fixed-base Ed25519 table, then the map to u); the import's allocation and
 * free are in the figure. */
static void x25519_base_ossl(void *s, size_t iters)
{
    (void)s;
    for (size_t i = 0; i < iters; i++) {
        EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, x.priv, sizeof x.priv);
        sink ^= (uint8_t)(k != NULL);
        EVP_PKEY_free(k);
    }
}

static int x25519_setup(char *msg, size_t n)
{
    uint8_t b[FGP_X25519_BYTES], ours[FGP_X25519_BYTES], theirs[FGP_X25519_BYTES];
    size_t len = sizeof theirs;
    random_bytes(x.priv, sizeof x.priv);
    random_bytes(b, sizeof b);
    fgp_x25519_base(x.peer, b);
    EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, x.priv, sizeof x.priv);
    EVP_PKEY *p = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, x.peer, sizeof x.peer);
    x.derive = k ? EVP_PKEY_CTX_new(k, NULL) : NULL;
    if (!p || !x.derive || EVP_PKEY_derive_init(x.derive) != 1 || EVP_PKEY_derive_set_peer(x.derive, p) != 1)
        die_openssl("X25519 derive setup");
    EVP_PKEY_free(k);
    EVP_PKEY_free(p);
    int ok = fgp_x25519(ours, x.priv, x.peer) == 1 && EVP_PKEY_derive(x.derive, theirs, &len) == 1 &&
             len == sizeof theirs && !memcmp(ours, theirs, sizeof ours);
    k = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, x.priv, sizeof x.priv);
    len = sizeof theirs;
    fgp_x25519_base(ours, x.priv);
    int ok_pub = k && EVP_PKEY_get_raw_public_key(k, theirs, &len) == 1 && len == sizeof theirs &&
                 !memcmp(ours, theirs, sizeof ours);
    EVP_PKEY_free(k);
    snprintf(msg, n, "shared secret %s OpenSSL's; public key %s OpenSSL's", ok ? "equals" : "DIFFERS from",
             ok_pub ? "equals" : "DIFFERS from");
    return ok && ok_pub;
}

/* The ladder's parts (field "ladder"): each field operation an X25519 ladder
 * step makes, ours (fg_p25519_*, the public API the protocol calls) against
 * OpenSSL's fe64 routines that its X25519 makes the same calls to (4 add, 4
 * sub, 5 mul, 4 sqr, 1 multiplication by a constant per step), as latency
 * chains, so that the derive's ratio can be read part by part. OpenSSL's fe64
 * code runs on CPUs with BMI2 and ADX only (x25519_fe64_eligible); it is x86-64
 * assembly, absent from other architectures' libcrypto (FE64: NULL there, the
 * rows have no peer). */
#include "fg_p25519.h"
#if defined(__x86_64__)
#define FE64(f) f
int x25519_fe64_eligible(void);
void x25519_fe64_mul(uint64_t h[4], const uint64_t f[4], const uint64_t g[4]);
void x25519_fe64_sqr(uint64_t h[4], const uint64_t f[4]);
void x25519_fe64_mul121666(uint64_t h[4], uint64_t f[4]);
void x25519_fe64_add(uint64_t h[4], const uint64_t f[4], const uint64_t g[4]);
void x25519_fe64_sub(uint64_t h[4], const uint64_t f[4], const uint64_t g[4]);
#else
#define FE64(f) NULL
#endif

#define LADDER_STEPS 255
#define A24_PLUS_ONE 121666u /* OpenSSL's constant: z2 = E * (BB + 121666 E) */
static struct {
    fg_p25519 a, b, w[FGB_WAYS]; /* w: the throughput loops' independent chains */
    fg_p25519 ic;                /* the inversions' chain, canonical throughout */
} lp;
/* The ops the protocol's ladder calls (fgp_x25519.c's L_*): the lazy ones
 * where the field has pseudo-Mersenne lazy ops, else the canonical ones. */
#if FG_P25519_HAVE_LAZY && !FG_P25519_MONTGOMERY
#define LP_LAZY "_lazy"
#define LP_MUL fg_p25519_mul_lazy
#define LP_SQR fg_p25519_sqr_lazy
#define LP_ADD fg_p25519_add_lazy
#define LP_SUB fg_p25519_sub_lazy
#define LP_MUL_SMALL fg_p25519_mul_small_lazy
#else
#define LP_LAZY ""
#define LP_MUL fg_p25519_mul
#define LP_SQR fg_p25519_sqr
#define LP_ADD fg_p25519_add
#define LP_SUB fg_p25519_sub
#define LP_MUL_SMALL fg_p25519_mul_small
#endif

#define PART_LOOP(name, body)                                  \
    static void name(void *s, size_t iters)                    \
    {                                                          \
        (void)s;                                               \
        for (size_t i = 0; i < iters; i++) {                   \
            body;                                              \
        }                                                      \
        sink ^= (uint8_t)lp.a.limb[0];                         \
    }
PART_LOOP(part_mul, LP_MUL(&lp.a, &lp.a, &lp.b))
PART_LOOP(part_sqr, LP_SQR(&lp.a, &lp.a))
PART_LOOP(part_add, LP_ADD(&lp.a, &lp.a, &lp.b))
PART_LOOP(part_sub, LP_SUB(&lp.a, &lp.a, &lp.b))
PART_LOOP(part_mul_small, LP_MUL_SMALL(&lp.a, &lp.a, A24_PLUS_ONE))
PART_LOOP(part_cswap, fg_p25519_cswap(&lp.a, &lp.b, (int)(lp.a.limb[0] & 1)))
PART_LOOP(part_inv, (void)fg_p25519_inv(&lp.ic, &lp.ic))
PART_LOOP(part_inv_fermat, (void)fg_p25519_inv_fermat(&lp.ic, &lp.ic))
#if defined(__x86_64__)
PART_LOOP(fe64_mul, x25519_fe64_mul(lp.a.limb, lp.a.limb, lp.b.limb))
PART_LOOP(fe64_sqr, x25519_fe64_sqr(lp.a.limb, lp.a.limb))
PART_LOOP(fe64_add, x25519_fe64_add(lp.a.limb, lp.a.limb, lp.b.limb))
PART_LOOP(fe64_sub, x25519_fe64_sub(lp.a.limb, lp.a.limb, lp.b.limb))
PART_LOOP(fe64_mul121666, x25519_fe64_mul121666(lp.a.limb, lp.a.limb))
#endif
/* Throughput: FGB_WAYS independent chains per iteration (fieldgen-bench's
 * throughput), as the ladder's independent products overlap. */
#define PART_THR(name, body)                                   \
    static void name(void *s, size_t iters)                    \
    {                                                          \
        (void)s;                                               \
        for (size_t i = 0; i < iters; i++)                     \
            for (int k = 0; k < FGB_WAYS; k++) {               \
                fg_p25519 *w = &lp.w[k];                       \
                body;                                          \
            }                                                  \
        sink ^= (uint8_t)lp.w[0].limb[0];                      \
    }
PART_THR(thr_mul, LP_MUL(w, w, &lp.b))
PART_THR(thr_sqr, LP_SQR(w, w))
PART_THR(thr_add, LP_ADD(w, w, &lp.b))
PART_THR(thr_sub, LP_SUB(w, w, &lp.b))
PART_THR(thr_mul_small, LP_MUL_SMALL(w, w, A24_PLUS_ONE))
PART_THR(thr_cswap, fg_p25519_cswap(w, &lp.b, (int)(w->limb[0] & 1)))
#if defined(__x86_64__)
PART_THR(thr_fe64_mul, x25519_fe64_mul(w->limb, w->limb, lp.b.limb))
PART_THR(thr_fe64_sqr, x25519_fe64_sqr(w->limb, w->limb))
PART_THR(thr_fe64_add, x25519_fe64_add(w->limb, w->limb, lp.b.limb))
PART_THR(thr_fe64_sub, x25519_fe64_sub(w->limb, w->limb, lp.b.limb))
PART_THR(thr_fe64_mul121666, x25519_fe64_mul121666(w->limb, w->limb))
#endif

static int have_fe64(void)
{
#if defined(__x86_64__)
    return x25519_fe64_eligible();
#else
    return 0;
#endif
}

static int ladder_setup(char *msg, size_t n)
{
    uint8_t b[FG_P25519_BYTES];
    random_bytes(b, sizeof b);
    (void)fg_p25519_from_bytes_wide(&lp.a, b, sizeof b);
    random_bytes(b, sizeof b);
    (void)fg_p25519_from_bytes_wide(&lp.b, b, sizeof b);
    lp.ic = lp.a;
    for (int k = 0; k < FGB_WAYS; k++) {
        random_bytes(b, sizeof b);
        (void)fg_p25519_from_bytes_wide(&lp.w[k], b, sizeof b);
    }
    snprintf(msg, n, "%s", have_fe64() ? "OpenSSL's fe64 routines beside ours"
#if defined(__x86_64__)
                                       : "no fe64 peer (the CPU lacks BMI2+ADX)");
#else
                                       : "no fe64 peer (x86-64 assembly: not in this libcrypto)");
#endif
    return 1;
}

/* ---------------------------------------------------------------- P-256 ---- */
#ifdef FGPB_HAVE_P256
#define P256_PRIV 32
#define P256_PUB 65
#define P256_SIG 64
#define P256_DER_MAX 80
static struct {
    uint8_t priv[P256_PRIV], pub[P256_PUB], peer[P256_PUB], digest[32], sig[P256_SIG], der[P256_DER_MAX];
    size_t der_len;
    EVP_PKEY_CTX *derive, *sign, *verify;
    EC_GROUP *group;
    EC_POINT *peer_point, *r;
    BIGNUM *k;
    BN_CTX *bn;
} e;

static void p256_ecdh_ours(void *s, size_t iters)
{
    uint8_t out[32];
    (void)s;
    for (size_t i = 0; i < iters; i++)
        sink ^= (uint8_t)fgp_p256_ecdh(out, e.priv, e.peer, sizeof e.peer) ^ out[0];
}
static void p256_ecdh_ossl(void *s, size_t iters)
{
    uint8_t out[32];
    (void)s;
    for (size_t i = 0; i < iters; i++) {
        size_t len = sizeof out;
        sink ^= (uint8_t)EVP_PKEY_derive(e.derive, out, &len) ^ out[0];
    }
}
static void p256_sign_ours(void *s, size_t iters)
{
    uint8_t sig[P256_SIG];
    (void)s;
    for (size_t i = 0; i < iters; i++)
        sink ^= (uint8_t)fgp_p256_ecdsa_sign(sig, e.digest, e.priv) ^ sig[0];
}
static void p256_sign_ossl(void *s, size_t iters)
{
    uint8_t der[P256_DER_MAX];
    (void)s;
    for (size_t i = 0; i < iters; i++) {
        size_t len = sizeof der;
        sink ^= (uint8_t)EVP_PKEY_sign(e.sign, der, &len, e.digest, sizeof e.digest) ^ der[0];
    }
}
static void p256_verify_ours(void *s, size_t iters)
{
    (void)s;
    for (size_t i = 0; i < iters; i++)
        sink ^= (uint8_t)fgp_p256_ecdsa_verify(e.sig, e.digest, e.pub, sizeof e.pub);
}
static void p256_verify_ossl(void *s, size_t iters)
{
    (void)s;
    for (size_t i = 0; i < iters; i++)
        sink ^= (uint8_t)EVP_PKEY_verify(e.verify, e.der, e.der_len, e.digest, sizeof e.digest);
}
static void p256_kg_ours(void *s, size_t iters)
{
    uint8_t pub[P256_PUB];
    (void)s;
    for (size_t i = 0; i < iters; i++)
        sink ^= (uint8_t)fgp_p256_public_key(pub, e.priv) ^ pub[1];
}
static void p256_kg_ossl(void *s, size_t iters)
{
    (void)s;
    for (size_t i = 0; i < iters; i++)
        sink ^= (uint8_t)EC_POINT_mul(e.group, e.r, e.k, NULL, NULL, e.bn);
}
static void p256_kp_ossl(void *s, size_t iters)
{
    (void)s;
    for (size_t i = 0; i < iters; i++)
        sink ^= (uint8_t)EC_POINT_mul(e.group, e.r, NULL, e.peer_point, e.k, e.bn);
}

/* An OpenSSL P-256 key pair, its private scalar (32 bytes, big-endian) and SEC1 point */
static EVP_PKEY *p256_key(uint8_t priv[P256_PRIV], uint8_t pub[P256_PUB])
{
    EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    BIGNUM *d = NULL;
    size_t len = 0;
    if (!k || EVP_PKEY_get_bn_param(k, OSSL_PKEY_PARAM_PRIV_KEY, &d) != 1 || BN_bn2binpad(d, priv, P256_PRIV) != P256_PRIV ||
        EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_PUB_KEY, pub, P256_PUB, &len) != 1 || len != P256_PUB)
        die_openssl("P-256 key generation");
    BN_clear_free(d);
    return k;
}

static int p256_setup(char *msg, size_t n)
{
    uint8_t peer_priv[P256_PRIV], ours[32], theirs[32], pub[P256_PUB], enc[P256_PUB];
    EVP_PKEY *a = p256_key(e.priv, e.pub), *b = p256_key(peer_priv, e.peer);
    random_bytes(e.digest, sizeof e.digest);
    e.derive = EVP_PKEY_CTX_new(a, NULL);
    e.sign = EVP_PKEY_CTX_new(a, NULL);
    e.verify = EVP_PKEY_CTX_new(a, NULL);
    if (!e.derive || EVP_PKEY_derive_init(e.derive) != 1 || EVP_PKEY_derive_set_peer(e.derive, b) != 1 ||
        !e.sign || EVP_PKEY_sign_init(e.sign) != 1 || !e.verify || EVP_PKEY_verify_init(e.verify) != 1)
        die_openssl("P-256 contexts");
    e.group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    e.bn = BN_CTX_new();
    e.peer_point = e.group ? EC_POINT_new(e.group) : NULL;
    e.r = e.group ? EC_POINT_new(e.group) : NULL;
    e.k = BN_bin2bn(e.priv, P256_PRIV, NULL);
    if (!e.peer_point || !e.r || !e.k || !e.bn ||
        EC_POINT_oct2point(e.group, e.peer_point, e.peer, sizeof e.peer, e.bn) != 1)
        die_openssl("P-256 EC_POINT setup");
    /* our signature, in OpenSSL's DER for its verify (OpenSSL verifies ours) */
    ECDSA_SIG *sig = ECDSA_SIG_new();
    unsigned char *p = e.der;
    int ok_sign = fgp_p256_ecdsa_sign(e.sig, e.digest, e.priv) == 1;
    if (!sig || ECDSA_SIG_set0(sig, BN_bin2bn(e.sig, 32, NULL), BN_bin2bn(e.sig + 32, 32, NULL)) != 1)
        die_openssl("ECDSA_SIG");
    e.der_len = (size_t)i2d_ECDSA_SIG(sig, &p);
    ECDSA_SIG_free(sig);
    size_t len = sizeof theirs;
    int ok_ecdh = fgp_p256_ecdh(ours, e.priv, e.peer, sizeof e.peer) == 1 &&
                  EVP_PKEY_derive(e.derive, theirs, &len) == 1 && len == 32 && !memcmp(ours, theirs, 32);
    int ok_verify = ok_sign && fgp_p256_ecdsa_verify(e.sig, e.digest, e.pub, sizeof e.pub) == 1 &&
                    EVP_PKEY_verify(e.verify, e.der, e.der_len, e.digest, sizeof e.digest) == 1;
    int ok_kg = fgp_p256_public_key(pub, e.priv) == 1 && EC_POINT_mul(e.group, e.r, e.k, NULL, NULL, e.bn) == 1 &&
                EC_POINT_point2oct(e.group, e.r, POINT_CONVERSION_UNCOMPRESSED, enc, sizeof enc, e.bn) == P256_PUB &&
                !memcmp(pub, enc, P256_PUB) && !memcmp(pub, e.pub, P256_PUB);
    EVP_PKEY_free(a);
    EVP_PKEY_free(b);
    snprintf(msg, n, "ECDH secret %s OpenSSL's; our signature %s by both; k*G %s OpenSSL's",
             ok_ecdh ? "equals" : "DIFFERS from", ok_verify ? "verified" : "NOT verified", ok_kg ? "equals" : "DIFFERS from");
    return ok_ecdh && ok_verify && ok_kg;
}
#endif

/* ---------------------------------------------------------------- SIDH ---- */
#ifdef FGPB_HAVE_SIDH
/* One SIDH field's keys and loops, instantiated for p503 and p751. Secret keys
 * are random bytes, retried with their top or bottom bits cleared until both
 * key generations accept them (the key formats are the vector files'). */
#define SIDH_FIELD(F, UF)                                                                           \
    static struct {                                                                                 \
        uint8_t ska[FGP_SIDH_##UF##_SKA_BYTES], skb[FGP_SIDH_##UF##_SKB_BYTES];                     \
        uint8_t pka[FGP_SIDH_##UF##_PK_BYTES], pkb[FGP_SIDH_##UF##_PK_BYTES];                       \
        fg_##F##_fp2 a, b;                                                                          \
    } s_##F;                                                                                        \
    static void F##_keygen_a(void *s, size_t it) { uint8_t pk[FGP_SIDH_##UF##_PK_BYTES]; (void)s;   \
        for (size_t i = 0; i < it; i++) sink ^= (uint8_t)fgp_sidh_##F##_keygen_a(pk, s_##F.ska) ^ pk[0]; } \
    static void F##_keygen_b(void *s, size_t it) { uint8_t pk[FGP_SIDH_##UF##_PK_BYTES]; (void)s;   \
        for (size_t i = 0; i < it; i++) sink ^= (uint8_t)fgp_sidh_##F##_keygen_b(pk, s_##F.skb) ^ pk[0]; } \
    static void F##_shared_a(void *s, size_t it) { uint8_t ss[FGP_SIDH_##UF##_SS_BYTES]; (void)s;   \
        for (size_t i = 0; i < it; i++)                                                             \
            sink ^= (uint8_t)fgp_sidh_##F##_shared_a(ss, s_##F.ska, s_##F.pkb) ^ ss[0]; }            \
    static void F##_shared_b(void *s, size_t it) { uint8_t ss[FGP_SIDH_##UF##_SS_BYTES]; (void)s;   \
        for (size_t i = 0; i < it; i++)                                                             \
            sink ^= (uint8_t)fgp_sidh_##F##_shared_b(ss, s_##F.skb, s_##F.pka) ^ ss[0]; }            \
    static void F##_shared_ab(void *s, size_t it) { F##_shared_a(s, it); F##_shared_b(s, it); }      \
    static void F##_agreement(void *s, size_t it) {                                                 \
        F##_keygen_a(s, it); F##_keygen_b(s, it); F##_shared_ab(s, it); }                           \
    static void F##_fp2_mul(void *s, size_t it) { (void)s;                                          \
        for (size_t i = 0; i < it; i++) fg_##F##_fp2_mul(&s_##F.a, &s_##F.a, &s_##F.b); }            \
    static int F##_key(uint8_t *k, size_t n, int (*gen)(uint8_t *, const uint8_t *)) {              \
        uint8_t pk[FGP_SIDH_##UF##_PK_BYTES];                                                       \
        for (int t = 0; t < 64; t++) {                                                              \
            random_bytes(k, n);                                                                     \
            if (t & 1) k[n - 1] &= (uint8_t)(0xff >> (t / 2 % 8 + 1));                              \
            else if (t) k[0] &= (uint8_t)(0xff >> (t / 2 % 8 + 1));                                 \
            if (gen(pk, k)) return 1;                                                               \
        }                                                                                           \
        return 0; }                                                                                 \
    static int F##_setup(char *msg, size_t n) {                                                     \
        uint8_t ssa[FGP_SIDH_##UF##_SS_BYTES], ssb[FGP_SIDH_##UF##_SS_BYTES];                       \
        int ok = F##_key(s_##F.ska, sizeof s_##F.ska, fgp_sidh_##F##_keygen_a) &&                   \
                 F##_key(s_##F.skb, sizeof s_##F.skb, fgp_sidh_##F##_keygen_b) &&                   \
                 fgp_sidh_##F##_keygen_a(s_##F.pka, s_##F.ska) && fgp_sidh_##F##_keygen_b(s_##F.pkb, s_##F.skb) && \
                 fgp_sidh_##F##_shared_a(ssa, s_##F.ska, s_##F.pkb) &&                              \
                 fgp_sidh_##F##_shared_b(ssb, s_##F.skb, s_##F.pka) && !memcmp(ssa, ssb, sizeof ssa); \
        fg_##F##_fp2_one(&s_##F.a); fg_##F##_fp2_one(&s_##F.b);                                     \
        fg_##F##_fp2_add(&s_##F.b, &s_##F.b, &s_##F.a);                                             \
        snprintf(msg, n, ok ? "both parties' shared secrets agree" : "key generation or agreement FAILED"); \
        return ok; }
SIDH_FIELD(p503, P503)
SIDH_FIELD(p751, P751)
#endif

/* ---------------------------------------------------------------- the operations ---- */
struct proto_op {
    const char *proto; /* --proto name */
    const char *field; /* the table's "field" column */
    const char *op;
    fgb_loop_fn ours, peer; /* peer NULL: none */
    const char *note;       /* what the rows call */
    int ref;                /* 1: a reference row (SIDH's fp2_mul, the ladder's parts), not a protocol op */
    int (*peer_ok)(void);   /* NULL, or whether the peer runs on this CPU */
    fgb_loop_fn ours_thr, peer_thr; /* the ladder's parts: FGB_WAYS independent calls per iteration */
};

/* A protocol operation, ours against OpenSSL's call (or no peer) */
#define OP(PROTO, FIELD, NAME, OURS, PEER, NOTE) \
    {.proto = PROTO, .field = FIELD, .op = NAME, .ours = OURS, .peer = PEER, .note = NOTE}
/* A reference row: one of the ladder's field operations beside OpenSSL's fe64
 * routine (latency and throughput), or SIDH's fp2_mul (no peer) */
#define PART(NAME, OURS, PEER, OURS_THR, PEER_THR, NOTE)                                          \
    {.proto = "x25519", .field = "ladder", .op = NAME, .ours = OURS, .peer = PEER, .note = NOTE, \
     .ref = 1, .peer_ok = have_fe64, .ours_thr = OURS_THR, .peer_thr = PEER_THR}
static const struct proto_op ops[] = {
    OP("x25519", "x25519", "derive", x25519_ours, x25519_ossl, "fgp_x25519 / EVP_PKEY_derive"),
    OP("x25519", "x25519", "public", x25519_base_ours, x25519_base_ossl,
       "fgp_x25519_base / EVP_PKEY_new_raw_private_key (+ free)"),
    PART("mul", part_mul, FE64(fe64_mul), thr_mul, FE64(thr_fe64_mul), "fg_p25519_mul" LP_LAZY " / x25519_fe64_mul"),
    PART("sqr", part_sqr, FE64(fe64_sqr), thr_sqr, FE64(thr_fe64_sqr), "fg_p25519_sqr" LP_LAZY " / x25519_fe64_sqr"),
    PART("add", part_add, FE64(fe64_add), thr_add, FE64(thr_fe64_add), "fg_p25519_add" LP_LAZY " / x25519_fe64_add"),
    PART("sub", part_sub, FE64(fe64_sub), thr_sub, FE64(thr_fe64_sub), "fg_p25519_sub" LP_LAZY " / x25519_fe64_sub"),
    PART("mul_small", part_mul_small, FE64(fe64_mul121666), thr_mul_small, FE64(thr_fe64_mul121666),
         "fg_p25519_mul_small" LP_LAZY "(121666) / x25519_fe64_mul121666"),
    PART("cswap", part_cswap, NULL, thr_cswap, NULL, "fg_p25519_cswap (OpenSSL's is inline C)"),
    PART("inv", part_inv, NULL, NULL, NULL, "fg_p25519_inv (safegcd), the protocol's inversion"),
    PART("inv_fermat", part_inv_fermat, NULL, NULL, NULL,
         "fg_p25519_inv_fermat (253 S + 14 M; OpenSSL's fe64 inversion is the same kind)"),
#ifdef FGPB_HAVE_P256
    OP("p256", "p256", "ecdh", p256_ecdh_ours, p256_ecdh_ossl, "fgp_p256_ecdh / EVP_PKEY_derive"),
    OP("p256", "p256", "sign", p256_sign_ours, p256_sign_ossl, "fgp_p256_ecdsa_sign (RFC 6979) / EVP_PKEY_sign"),
    OP("p256", "p256", "verify", p256_verify_ours, p256_verify_ossl, "fgp_p256_ecdsa_verify / EVP_PKEY_verify"),
    OP("p256", "p256", "k*G", p256_kg_ours, p256_kg_ossl, "fgp_p256_public_key / EC_POINT_mul(k, NULL)"),
    OP("p256", "p256", "k*P", p256_ecdh_ours, p256_kp_ossl,
       "fgp_p256_ecdh (with SEC1 decoding) / EC_POINT_mul(NULL, P, k)"),
#endif
#ifdef FGPB_HAVE_SIDH
#define SIDH_OPS(F)                                                                                     \
    OP("sidh", "sidh" #F, "keygen_a", F##_keygen_a, NULL, "fgp_sidh_" #F "_keygen_a"),                  \
    OP("sidh", "sidh" #F, "keygen_b", F##_keygen_b, NULL, "fgp_sidh_" #F "_keygen_b"),                  \
    OP("sidh", "sidh" #F, "shared_a", F##_shared_a, NULL, "fgp_sidh_" #F "_shared_a"),                  \
    OP("sidh", "sidh" #F, "shared_b", F##_shared_b, NULL, "fgp_sidh_" #F "_shared_b"),                  \
    OP("sidh", "sidh" #F, "shared_ab", F##_shared_ab, NULL,                                             \
       "shared_a + shared_b (CIRCL's BenchmarkSidhKeyAgreement)"),                                      \
    OP("sidh", "sidh" #F, "agreement", F##_agreement, NULL, "keygen_a + keygen_b + shared_a + shared_b"), \
    {.proto = "sidh", .field = "sidh" #F, .op = SIDH_REF_OP, .ours = F##_fp2_mul,                       \
     .note = "fg_" #F "_fp2_mul, chained (the unit of the ratios)", .ref = 1}
    SIDH_OPS(p503),
    SIDH_OPS(p751),
#endif
};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

/* Each field's keys and OpenSSL objects, made and checked once before its rows are timed. */
static const struct {
    const char *proto, *field;
    int (*setup)(char *msg, size_t n);
} setups[] = {
    {"x25519", "x25519", x25519_setup},
    {"x25519", "ladder", ladder_setup},
#ifdef FGPB_HAVE_P256
    {"p256", "p256", p256_setup},
#endif
#ifdef FGPB_HAVE_SIDH
    {"sidh", "sidhp503", p503_setup},
    {"sidh", "sidhp751", p751_setup},
#endif
};
#define NSETUPS ((int)(sizeof setups / sizeof setups[0]))

/* ---------------------------------------------------------------- options ---- */
struct opts {
    int quick, max_threads;
    uint64_t seed;
    const char *protos, *levels, *json, *compare, *plot, *from_json;
};

static void usage(FILE *f)
{
    fprintf(f,
        "usage: fieldgen-bench-protocols [options]\n"
        "  --quick            fewer, shorter batches (seconds, for CTest and smoke runs)\n"
        "  --proto LIST       protocols: x25519"
#ifdef FGPB_HAVE_P256
        ",p256"
#endif
#ifdef FGPB_HAVE_SIDH
        ",sidh"
#endif
        " (default: all in the build)\n"
#if defined(__aarch64__)
        "  --level LIST       our levels: dispatch,c,aarch64 (default: all the CPU has)\n"
#else
        "  --level LIST       our levels: dispatch,c,x86_64,bmi2,adx,ifma (default: all the CPU has)\n"
#endif
        "  --threads N        ops/s of our dispatched operations with 1..N threads (default: all cores, 0: skip)\n"
        "  --seed N           seed of the random keys (default 1)\n"
        "  --json FILE        every figure plus CPU, compiler and date as JSON (fieldgen-bench's schema)\n"
        "  --compare OLD.json per-row deltas against an earlier --json, regressions flagged\n"
        "  --plot FILE.png    cycles per operation, one bar per row (gnuplot)\n"
        "  --from-json FILE   do not measure: report (table/compare/plot) a saved run\n"
        "Exit status: 0 ok; 1 a check failed (ours against OpenSSL, both SIDH parties, heap\n"
        "allocation in our code); 2 usage.\n");
}

static struct fgb_timer_cfg timer_cfg(int quick)
{
    /* fieldgen-bench's settings; an operation takes longer than a batch's
     * minimum, so a batch is one or a few operations and the budget per case
     * bounds the slow SIDH rows */
    struct fgb_timer_cfg c = {.target_batch_ticks = quick ? 5000 : 30000, .batches = quick ? 31 : 201,
                              .rounds = quick ? 3 : 12, .budget_ticks = quick ? 3e7 : 1e9,
                              .min_batches = quick ? FGB_PAIRED_MIN : 31};
    fgb_clock_adjust(&c); /* in TSC ticks above; AArch64's counter differs */
    return c;
}

/* ---------------------------------------------------------------- measuring ---- */
static void fill_row(struct fgb_row *r, const struct proto_op *p, const char *impl, const char *level, int peer,
                     int check_ok, const char *check)
{
    snprintf(r->field, sizeof r->field, "%s", p->field);
    snprintf(r->op, sizeof r->op, "%s", p->op);
    snprintf(r->impl, sizeof r->impl, "%s", impl);
    snprintf(r->level, sizeof r->level, "%s", level);
    snprintf(r->note, sizeof r->note, "%s", p->note);
    snprintf(r->check, sizeof r->check, "%s", check);
    r->peer = peer;
    r->check_ok = check_ok;
}

/* One protocol operation: ours at dispatch and at each level, and OpenSSL's,
 * in one interleaved group; then ours at dispatch against OpenSSL's as an
 * interleaved pair with its samples kept in order (the paired ratio). */
static void measure_op(struct fgb_results *res, const struct opts *o, const struct proto_op *p,
                       const int *level_avail, int check_ok, const char *check)
{
    struct fgb_timer_cfg cfg = timer_cfg(o->quick);
    struct fgb_case cases[MAX_CASES];
    int rows[MAX_CASES], nc = 0, dispatch_row = -1;
    for (int L = -1; L < FGB_NLEVELS; L++) {
        const char *lv = L < 0 ? "dispatch" : fgb_level_names[L];
        if ((L >= 0 && !level_avail[L]) || !fgb_in_list(o->levels, lv))
            continue;
        fill_row(fgb_add_row(res), p, "fieldgen", lv, 0, check_ok, check);
        if (L < 0)
            dispatch_row = res->nrows - 1;
        rows[nc] = res->nrows - 1;
        cases[nc++] = (struct fgb_case){.loop = {p->ours, 1}, .force_isa = L};
        if (p->ours_thr) {
            rows[nc] = -(res->nrows - 1) - 1; /* negative: the row's throughput */
            cases[nc++] = (struct fgb_case){.loop = {p->ours_thr, FGB_WAYS}, .force_isa = L};
        }
    }
    int peer = p->peer && (!p->peer_ok || p->peer_ok());
    if (peer) {
        fill_row(fgb_add_row(res), p, PEER_IMPL, "best", 1, check_ok, check);
        rows[nc] = res->nrows - 1;
        cases[nc++] = (struct fgb_case){.loop = {p->peer, 1}, .force_isa = -1};
        if (p->peer_thr) {
            rows[nc] = -(res->nrows - 1) - 1;
            cases[nc++] = (struct fgb_case){.loop = {p->peer_thr, FGB_WAYS}, .force_isa = -1};
        }
    }
    fgb_measure_group(cases, nc, &cfg);
    for (int i = 0; i < nc; i++) {
        struct fgb_row *r = &res->rows[rows[i] >= 0 ? rows[i] : -rows[i] - 1];
        if (rows[i] >= 0) {
            r->lat = cases[i].st;
            r->has_lat = 1;
        } else {
            r->thr = cases[i].st;
            r->has_thr = 1;
        }
    }
    if (!peer || dispatch_row < 0 || p->ref)
        return;
    struct fgb_case pair[2] = {{.loop = {p->ours, 1}, .force_isa = -1}, {.loop = {p->peer, 1}, .force_isa = -1}};
    struct fgb_timer_cfg pcfg = cfg;
    pcfg.rounds = cfg.batches / 4 > cfg.rounds ? cfg.batches / 4 : cfg.rounds;
    double *ord = calloc(2 * (size_t)cfg.batches, sizeof *ord);
    for (int k = 0; k < 2 && ord; k++) {
        pair[k].ordered = ord + (size_t)k * (size_t)cfg.batches;
        pair[k].max_ordered = cfg.batches;
    }
    fgb_measure_group(pair, 2, &pcfg);
    struct fgb_row *d = &res->rows[dispatch_row];
    if (ord && fgb_paired_ratio(&pair[0], &pair[1], d->peer_pair_lat) > 0) {
        d->has_peer_pair = 1; /* latency only: peer_pair_thr stays 0 */
        snprintf(d->peer_pair_with[0], sizeof d->peer_pair_with[0], "%s best", PEER_IMPL);
        snprintf(d->peer_pair_with[1], sizeof d->peer_pair_with[1], "none (latency only)");
    }
    free(ord);
}

/* ---------------------------------------------------------------- threads ---- */
struct worker {
    fgb_loop_fn fn;
    int cpu;
    double seconds, calls, elapsed;
    pthread_barrier_t *bar;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    w->fn(NULL, 1); /* warm-up */
    pthread_barrier_wait(w->bar);
    double t0 = now_s(), t;
    w->calls = 0;
    while ((t = now_s()) - t0 < w->seconds) {
        w->fn(NULL, 1);
        w->calls += 1;
    }
    w->elapsed = t - t0;
    return NULL;
}

#define MAX_THREADS 64
static void measure_threads(struct fgb_results *res, const struct opts *o, const int *cpus, int ncpus)
{
    int maxt = o->max_threads < 0 ? ncpus : o->max_threads;
    if (maxt > MAX_THREADS)
        maxt = MAX_THREADS;
    for (int i = 0; i < NOPS; i++) {
        if (ops[i].ref || !fgb_in_list(o->protos, ops[i].proto) || !fgb_in_list(o->levels, "dispatch"))
            continue;
        for (int nt = 1; nt <= maxt; nt++) {
            struct worker w[MAX_THREADS];
            pthread_t th[MAX_THREADS];
            pthread_barrier_t bar;
            double total = 0;
            pthread_barrier_init(&bar, NULL, (unsigned)nt);
            for (int k = 0; k < nt; k++) {
                w[k] = (struct worker){ops[i].ours, cpus[k % ncpus], o->quick ? 0.05 : 0.3, 0, 0, &bar};
                pthread_create(&th[k], NULL, worker_main, &w[k]);
            }
            for (int k = 0; k < nt; k++) {
                pthread_join(th[k], NULL);
                total += w[k].calls / w[k].elapsed;
            }
            pthread_barrier_destroy(&bar);
            if (res->nthreads == res->capthreads) {
                res->capthreads = res->capthreads ? 2 * res->capthreads : 32;
                res->threads = realloc(res->threads, (size_t)res->capthreads * sizeof *res->threads);
            }
            struct fgb_thread_row *t = &res->threads[res->nthreads++];
            memset(t, 0, sizeof *t);
            snprintf(t->field, sizeof t->field, "%s", ops[i].field);
            snprintf(t->op, sizeof t->op, "%s", ops[i].op);
            t->threads = nt;
            t->ops_per_s = total;
            t->per_thread_ops_per_s = total / nt;
        }
    }
}

/* ---------------------------------------------------------------- report ---- */
static const struct fgb_row *find(const struct fgb_results *r, const char *field, const char *op, const char *impl,
                                  const char *level)
{
    for (int i = 0; i < r->nrows; i++) {
        const struct fgb_row *x = &r->rows[i];
        if (!strcmp(x->field, field) && !strcmp(x->op, op) && !strcmp(x->impl, impl) &&
            (!level || !strcmp(x->level, level)) && x->has_lat)
            return x;
    }
    return NULL;
}

/* The protocol summary: per row cycles (median and spread), ops/s on one core,
 * heap allocations per op, and against OpenSSL (the paired ratio) or, for SIDH,
 * against our own fp2_mul of the same field. */
static void print_summary(const struct fgb_results *r)
{
    const struct fgb_meta *m = &r->meta;
    double hz = m->tsc_hz;
#if defined(__aarch64__) /* no cycles there: counter ticks (fgb.h) */
    printf("fieldgen-bench-protocols: time per operation, %s\n", fgb_unit(r));
#else
    printf("fieldgen-bench-protocols: cycles per operation, %s\n", fgb_unit(r));
#endif
    printf("  date %s%s\n", m->date, m->quick ? "  (--quick: few short batches, rough figures)" : "");
    printf("  CPU  %s, %d logical CPUs, measured on %s\n", m->cpu_model, m->logical_cpus, m->pinned);
    if (m->core_per_tick > 0)
        printf("  unit core cycles = TSC ticks x %.3f (%s; TSC %.2f GHz)\n", m->core_per_tick, m->ratio_detail,
               m->tsc_hz / 1e9);
#if defined(__aarch64__)
    else
        printf("  unit counter ticks (%s; measured %.4g MHz)\n", m->ratio_detail, m->tsc_hz / 1e6);
#endif
    printf("  method %s\n  build %s, %s, flags: %s\n", m->method, m->compiler, m->build_type, m->cflags);
    printf("  fieldgen dispatch level %s (best %s%s%s), tuning %s; OpenSSL %s\n", m->dispatch_level, m->isa_best,
           m->fieldgen_isa_env[0] ? ", FIELDGEN_ISA=" : "", m->fieldgen_isa_env, m->tune, m->openssl);
    printf("  impl fieldgen = our protocol call at level 'dispatch' (start-up choice) or forced to a level; "
           "openssl = its EVP/EC call on its best path\n");
    printf("\nprotocol operations (%s; ops/s on one core = " FGB_CLOCK_NAME " Hz / ticks per op; allocs = heap allocations per op)\n"
           "%-9s %-10s %-9s %-8s %12s %-24s %12s %7s %s\n", fgb_unit(r), "field", "op", "impl", "level", "median",
           "[min-max]", "ops/s", "allocs", "vs OpenSSL: paired ratio [95% CI] | SIDH: / fp2_mul");
    for (int i = 0; i < r->nrows; i++) {
        const struct fgb_row *x = &r->rows[i];
        if (!x->has_lat || (!strcmp(x->op, SIDH_REF_OP) && strcmp(x->level, "dispatch")))
            continue; /* the fp2_mul reference once, at dispatch */
        char spread[48], vs[96] = "";
        snprintf(spread, sizeof spread, "[%.0f-%.0f]", fgb_cycles(r, x->lat.min), fgb_cycles(r, x->lat.max));
        const struct fgb_row *pr = find(r, x->field, x->op, PEER_IMPL, NULL);
        const struct fgb_row *ref = find(r, x->field, SIDH_REF_OP, "fieldgen", x->level);
        if (x->has_peer_pair)
            snprintf(vs, sizeof vs, "%.3f [%.3f, %.3f] paired; medians %.3f", x->peer_pair_lat[0],
                     x->peer_pair_lat[1], x->peer_pair_lat[2], x->lat.median / pr->lat.median);
        else if (!x->peer && pr && pr->lat.median > 0)
            snprintf(vs, sizeof vs, "medians %.3f", x->lat.median / pr->lat.median);
        else if (ref && ref->lat.median > 0)
            snprintf(vs, sizeof vs, "%.0f x fp2_mul (%.1f)", x->lat.median / ref->lat.median,
                     fgb_cycles(r, ref->lat.median));
        printf("%-9s %-10s %-9s %-8s %12.0f %-24s %12.0f %7.2f %s\n", x->field, x->op, x->impl, x->level,
               fgb_cycles(r, x->lat.median), spread, x->lat.median > 0 ? hz / x->lat.median : 0,
               x->lat.allocs_per_call, vs);
    }
}

/* The X25519 derive rebuilt from its parts: a ladder step is 5 mul, 4 sqr,
 * 4 add, 4 sub, 1 multiplication by a constant and 2 cswaps, 255 steps, then
 * one inversion; OpenSSL's X25519 makes the same calls to its fe64 routines
 * and inverts by Fermat (254 sqr + 11 mul). A model that sums latencies: the
 * ladder's two independent chains overlap, so it reads high, alike for both. */
static void print_ladder_model(const struct fgb_results *r)
{
    static const struct { const char *op; double n; } step[] = {
        {"mul", 5}, {"sqr", 4}, {"add", 4}, {"sub", 4}, {"mul_small", 1}, {"cswap", 2}};
    const struct fgb_row *ours_d = find(r, "x25519", "derive", "fieldgen", "dispatch");
    const struct fgb_row *ossl_d = find(r, "x25519", "derive", PEER_IMPL, NULL);
    const struct fgb_row *inv = find(r, "ladder", "inv", "fieldgen", "dispatch");
    double sum[2][2] = {{0, 0}, {0, 0}}; /* [ours, fe64][latency, throughput] per step */
    if (!ours_d || !inv)
        return;
    printf("\nX25519 derive from its parts (dispatch level; %s per call, latency = chained, throughput = %d "
           "independent chains)\n%-10s %6s %10s %10s %7s %10s %10s %7s\n", fgb_unit(r), FGB_WAYS, "op", "calls",
           "lat ours", "lat fe64", "ratio", "thr ours", "thr fe64", "ratio");
    for (size_t k = 0; k < sizeof step / sizeof step[0]; k++) {
        const struct fgb_row *o = find(r, "ladder", step[k].op, "fieldgen", "dispatch");
        const struct fgb_row *t = find(r, "ladder", step[k].op, PEER_IMPL, NULL);
        if (!o)
            return;
        if (!t)
            t = o; /* no fe64 routine (cswap): ours counted for both */
        double c[2][2] = {{fgb_cycles(r, o->lat.median), fgb_cycles(r, o->has_thr ? o->thr.median : o->lat.median)},
                          {fgb_cycles(r, t->lat.median), fgb_cycles(r, t->has_thr ? t->thr.median : t->lat.median)}};
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                sum[i][j] += step[k].n * c[i][j];
        printf("%-10s %6.0f %10.1f %10.1f %7.2f %10.1f %10.1f %7.2f%s\n", step[k].op, step[k].n, c[0][0], c[1][0],
               c[0][0] / c[1][0], c[0][1], c[1][1], c[0][1] / c[1][1], t == o ? "  (ours counted for both)" : "");
    }
    printf("%-10s %6s %10.1f %10.1f %7.2f %10.1f %10.1f %7.2f\n", "step", "", sum[0][0], sum[1][0],
           sum[0][0] / sum[1][0], sum[0][1], sum[1][1], sum[0][1] / sum[1][1]);
    const struct fgb_row *m = find(r, "ladder", "mul", PEER_IMPL, NULL), *q = find(r, "ladder", "sqr", PEER_IMPL, NULL);
    double inv_o = fgb_cycles(r, inv->lat.median);
    double inv_t = m && q ? 254 * fgb_cycles(r, q->lat.median) + 11 * fgb_cycles(r, m->lat.median) : inv_o;
    for (int j = 0; j < 2; j++) {
        double o = LADDER_STEPS * sum[0][j] + inv_o, t = LADDER_STEPS * sum[1][j] + inv_t;
        printf("model, %-10s 255 steps + inversion: ours %.0f, OpenSSL %.0f: ratio %.3f\n",
               j ? "throughput" : "latency", o, t, o / t);
    }
    printf("(inversion: ours fg_p25519_inv %.0f; OpenSSL's Fermat chain as 254 S + 11 M of its fe64 latencies %.0f)\n",
           inv_o, inv_t);
    if (ossl_d)
        printf("measured derive: ours %.0f, OpenSSL %.0f: ratio of medians %.3f, paired %.3f\n",
               fgb_cycles(r, ours_d->lat.median), fgb_cycles(r, ossl_d->lat.median),
               ours_d->lat.median / ossl_d->lat.median, ours_d->has_peer_pair ? ours_d->peer_pair_lat[0] : 0.0);
}

/* --plot: one horizontal bar per row, cycles per operation on a log axis. */
static int plot(const struct fgb_results *r, const char *png)
{
    char dat[1024];
    snprintf(dat, sizeof dat, "%s.dat", png);
    FILE *d = fopen(dat, "w");
    if (!d) {
        fprintf(stderr, "fieldgen-bench-protocols: cannot write %s\n", dat);
        return 1;
    }
    int n = 0;
    for (int i = 0; i < r->nrows; i++)
        if (r->rows[i].has_lat)
            fprintf(d, "%d \"%s %s %s %s\" %.6g\n", n++, r->rows[i].field, r->rows[i].op, r->rows[i].impl,
                    r->rows[i].level, fgb_cycles(r, r->rows[i].lat.median));
    fclose(d);
    FILE *g = popen("gnuplot", "w");
    if (!g) {
        fprintf(stderr, "fieldgen-bench-protocols: --plot needs gnuplot\n");
        return 1;
    }
    fprintf(g, "set terminal pngcairo noenhanced size 1000,%d\nset output '%s'\nset logscale x\nset grid x\n"
               "set xlabel '%s per operation'\nset ytics nomirror font ',8'\nset yrange [-1:%d] reverse\n"
               "set style fill solid 0.8\nunset key\nset title '%s'\n"
               "plot '%s' using (($3)/2):1:(($3)/2):(0.35):yticlabels(2) with boxxyerrorbars lc rgb '#2e86c1'\n",
            200 + 16 * n, png, fgb_unit(r), n, r->meta.cpu_model, dat);
    return pclose(g) == 0 ? 0 : 1;
}

/* ---------------------------------------------------------------- main ---- */
/* "model name" on x86-64; on AArch64 Linux names no model: MIDR's implementer and part */
static void read_cpu_model(struct fgb_meta *m)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512], impl[24] = "", part[24] = "";
    snprintf(m->cpu_model, sizeof m->cpu_model, "unknown");
    while (f && fgets(line, sizeof line, f)) {
        char *v = strchr(line, ':');
        if (!v)
            continue;
        v += 1 + (v[1] == ' ');
        v[strcspn(v, "\n")] = 0;
        if (!strncmp(line, "model name", 10)) {
            snprintf(m->cpu_model, sizeof m->cpu_model, "%s", v);
            break;
        }
        if (!strncmp(line, "CPU implementer", 15) && !impl[0])
            snprintf(impl, sizeof impl, "%s", v);
        else if (!strncmp(line, "CPU part", 8) && !part[0])
            snprintf(part, sizeof part, "%s", v);
    }
    if (f)
        fclose(f);
    if (impl[0] && part[0] && !strcmp(m->cpu_model, "unknown"))
        snprintf(m->cpu_model, sizeof m->cpu_model, "AArch64 MIDR implementer %s part %s", impl, part);
}

static int measure(struct fgb_results *res, const struct opts *o)
{
    struct fgb_meta *m = &res->meta;
    cpu_set_t allowed;
    int cpus[MAX_THREADS], ncpus = 0, pinned = -1, level_avail[FGB_NLEVELS];
    sched_getaffinity(0, sizeof allowed, &allowed);
    for (int i = 0; i < CPU_SETSIZE && ncpus < MAX_THREADS; i++)
        if (CPU_ISSET(i, &allowed))
            cpus[ncpus++] = i;
    for (int i = 1; i < ncpus; i++) /* the pinned core first */
        if (cpus[i] == 1) { cpus[i] = cpus[0]; cpus[0] = 1; }
    int pin_rc = fgb_pin_cpu(&pinned);
    snprintf(m->pinned, sizeof m->pinned, pin_rc == 0 ? "cpu %d" : "not pinned", pinned);
    m->logical_cpus = ncpus;
    m->quick = o->quick;
    m->runs = 1;
    time_t now = time(NULL);
    strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    read_cpu_model(m);
    snprintf(m->compiler, sizeof m->compiler, "%s (%s)", FGB_COMPILER, __VERSION__);
    snprintf(m->cflags, sizeof m->cflags, "%s", FGB_CFLAGS);
    snprintf(m->build_type, sizeof m->build_type, "%s", FGB_BUILD_TYPE);
    const char *env = getenv("FIELDGEN_ISA");
    snprintf(m->fieldgen_isa_env, sizeof m->fieldgen_isa_env, "%s", env ? env : "");
    fg_isa default_isa = fg_isa_active();
    fgb_set_default_isa((int)default_isa);
    snprintf(m->dispatch_level, sizeof m->dispatch_level, "%s", fg_isa_name(default_isa));
    snprintf(m->isa_best, sizeof m->isa_best, "%s", fg_isa_name(fg_isa_best()));
    snprintf(m->tune, sizeof m->tune, "%s", fg_tune_name(fg_tune_active()));
    for (int L = 0; L < FGB_NLEVELS; L++)
        level_avail[L] = fg_isa_force((fg_isa)L) != 0;
    fg_isa_force(default_isa);
    if (!fgb_alloc_selftest()) {
        fprintf(stderr, "fieldgen-bench-protocols: ERROR: malloc interposition is not live\n");
        res->errors++;
    }
    fgb_peers_init();
    snprintf(m->openssl, sizeof m->openssl, "%s", fgb_peers_openssl_version());
    snprintf(m->gmp, sizeof m->gmp, "not used");
    fprintf(stderr, "fieldgen-bench-protocols: warming up and calibrating...\n");
    fgb_spin_warmup(o->quick ? 0.05 : 0.3);
    m->tsc_hz = fgb_tsc_hz();
    fgb_measure_overhead(&m->t0_ticks, &m->loop_ticks);
    m->core_per_tick = fgb_core_per_tick(m->ratio_detail, sizeof m->ratio_detail);
    struct fgb_timer_cfg cfg = timer_cfg(o->quick);
    snprintf(m->method, sizeof m->method,
             FGB_CLOCK_METHOD ", pinned to %s; per row: median over up to %d batches of >= %.0f ticks (one or more "
             "whole operations) in %d interleaved rounds; ours at dispatch and OpenSSL's also as an interleaved "
             "pair (median of batch-by-batch ratios)", m->pinned, cfg.batches, cfg.target_batch_ticks, cfg.rounds);

    for (int s = 0; s < NSETUPS; s++) {
        if (!fgb_in_list(o->protos, setups[s].proto))
            continue;
        char msg[200];
        int ok = setups[s].setup(msg, sizeof msg);
        if (!ok) {
            fprintf(stderr, "fieldgen-bench-protocols: ERROR: %s: %s\n", setups[s].proto, msg);
            res->errors++;
        }
        for (int i = 0; i < NOPS; i++) {
            if (strcmp(ops[i].field, setups[s].field))
                continue;
            fprintf(stderr, "fieldgen-bench-protocols: %s %s...\n", ops[i].field, ops[i].op);
            measure_op(res, o, &ops[i], level_avail, ok, msg);
        }
    }
    if (o->max_threads != 0) {
        fprintf(stderr, "fieldgen-bench-protocols: multi-core throughput...\n");
        measure_threads(res, o, cpus, ncpus);
    }
    for (int i = 0; i < res->nrows; i++) {
        const struct fgb_row *r = &res->rows[i];
        if (!r->peer && r->lat.allocs_per_call > 0) {
            fprintf(stderr, "fieldgen-bench-protocols: ERROR: %s %s %s allocates on the heap\n", r->field, r->op,
                    r->level);
            res->errors++;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o = {.seed = 1, .max_threads = -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **val = NULL;
        if (!strcmp(a, "--quick")) o.quick = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        else if (!strcmp(a, "--proto")) val = &o.protos;
        else if (!strcmp(a, "--level")) val = &o.levels;
        else if (!strcmp(a, "--json")) val = &o.json;
        else if (!strcmp(a, "--compare")) val = &o.compare;
        else if (!strcmp(a, "--plot")) val = &o.plot;
        else if (!strcmp(a, "--from-json")) val = &o.from_json;
        else if ((!strcmp(a, "--seed") || !strcmp(a, "--threads")) && i + 1 < argc) {
            char *end;
            long long v = strtoll(argv[++i], &end, 10);
            if (*end || v < 0) { fprintf(stderr, "fieldgen-bench-protocols: bad number '%s'\n", argv[i]); return 2; }
            if (a[2] == 's') o.seed = (uint64_t)v;
            else o.max_threads = (int)v;
        } else {
            fprintf(stderr, "fieldgen-bench-protocols: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (val) {
            if (i + 1 >= argc) { usage(stderr); return 2; }
            *val = argv[++i];
        }
    }
    if (o.protos) { /* every name must be a protocol of this build */
        char *dup = strdup(o.protos), *save = NULL;
        for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            int found = 0;
            for (int s = 0; s < NSETUPS; s++)
                found |= !strcmp(t, setups[s].proto);
            if (!found) {
                fprintf(stderr, "fieldgen-bench-protocols: protocol '%s' is not in this build\n", t);
                free(dup);
                return 2;
            }
        }
        free(dup);
    }
    rng_state = o.seed;
    struct fgb_results res = {0};
    if (o.from_json) {
        if (fgb_read_json(&res, o.from_json) != 0)
            return 2;
    } else {
        measure(&res, &o);
    }
    print_summary(&res);
    print_ladder_model(&res);
    fgb_print_threads(&res);
    int rc = res.errors ? 1 : 0;
    if (o.json && fgb_write_json(&res, o.json) != 0)
        rc = 1;
    if (o.compare && fgb_compare(&res, o.compare) != 0)
        rc = rc ? rc : 2;
    if (o.plot && plot(&res, o.plot) != 0)
        rc = 1;
    if (res.errors)
        printf("\n%d ERROR(S): see the messages above (rows marked '!')\n", res.errors);
    return rc;
}
