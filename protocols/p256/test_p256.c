/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fgp_p256 against OpenSSL, RFC 6979's vectors, and edge and invalid inputs.
 *
 *   test_p256 --level c|x86_64|bmi2|adx|ifma [--count N] [--seed S]
 *
 * Exit 0: every check passed; 1: a check failed; 77: the level is not
 * available here (CTest skips); 2: usage. Random cases come from a seeded
 * generator, so a failure is reproducible with the --seed it prints.
 */
#define OPENSSL_SUPPRESS_DEPRECATED /* EC_KEY: the raw private key in, r and s out */
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdh.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/obj_mac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg_cpu.h"
#include "fgp_p256.h"
#include "fgp_sha256.h" /* the internal SHA-256, checked against OpenSSL's */

static int failures;

#define CHECK(cond, ...)                                     \
    do {                                                     \
        if (!(cond)) {                                       \
            if (failures++ < 20) {                           \
                fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
                fprintf(stderr, __VA_ARGS__);                \
                fputc('\n', stderr);                         \
            }                                                \
        }                                                    \
    } while (0)

/* ---- helpers ---- */

static uint64_t rng_state;

static uint64_t rng_next(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void rng_bytes(uint8_t *out, size_t len)
{
    for (size_t i = 0; i < len; i++)
        out[i] = (uint8_t)rng_next();
}

static void hex_to_bytes(uint8_t *out, size_t len, const char *hex)
{
    for (size_t i = 0; i < len; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

static int all_zero(const uint8_t *p, size_t len)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < len; i++)
        acc |= p[i];
    return acc == 0;
}

static const char N_HEX[] = "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551";
static const char P_HEX[] = "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff";
static const char GX_HEX[] = "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296";
static const char GY_HEX[] = "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5";

static EC_GROUP *group;

/* OpenSSL's key for the private key priv (valid), with its public point. */
static EC_KEY *ossl_key(const uint8_t priv[32])
{
    EC_KEY *key = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    BIGNUM *d = BN_bin2bn(priv, 32, NULL);
    EC_POINT *q = EC_POINT_new(group);
    if (key == NULL || d == NULL || q == NULL || !EC_POINT_mul(group, q, d, NULL, NULL, NULL) ||
        !EC_KEY_set_private_key(key, d) || !EC_KEY_set_public_key(key, q)) {
        fprintf(stderr, "OpenSSL key setup failed\n");
        exit(2);
    }
    BN_free(d);
    EC_POINT_free(q);
    return key;
}

static size_t ossl_pub(uint8_t *out, size_t cap, const EC_KEY *key, point_conversion_form_t form)
{
    return EC_POINT_point2oct(group, EC_KEY_get0_public_key(key), form, out, cap, NULL);
}

/* A random private key in [1, n-1] (a draw >= n is drawn again). */
static void random_priv(uint8_t priv[32])
{
    uint8_t n[32];
    hex_to_bytes(n, 32, N_HEX);
    do
        rng_bytes(priv, 32);
    while (memcmp(priv, n, 32) >= 0 || all_zero(priv, 32));
}

static int ossl_verify(const uint8_t sig[64], const uint8_t digest[32], EC_KEY *key)
{
    ECDSA_SIG *s = ECDSA_SIG_new();
    int ok = ECDSA_SIG_set0(s, BN_bin2bn(sig, 32, NULL), BN_bin2bn(sig + 32, 32, NULL)) &&
             ECDSA_do_verify(digest, 32, s, key) == 1;
    ECDSA_SIG_free(s);
    return ok;
}

/* ---- random agreement with OpenSSL ---- */

static void test_random(unsigned count)
{
    for (unsigned i = 0; i < count; i++) {
        uint8_t d1[32], d2[32], pub1[65], pub2[65], want[65], comp2[33], digest[32], sig[64], sig2[64];
        uint8_t ours[32], theirs[32], prod[65];
        random_priv(d1);
        random_priv(d2);
        EC_KEY *k1 = ossl_key(d1), *k2 = ossl_key(d2);

        /* public keys: priv * G, both ways of asking */
        CHECK(fgp_p256_public_key(pub1, d1) == 1, "public_key rejected a valid key");
        CHECK(ossl_pub(want, sizeof want, k1, POINT_CONVERSION_UNCOMPRESSED) == 65 && !memcmp(pub1, want, 65),
              "public key differs from OpenSSL's (case %u)", i);
        CHECK(fgp_p256_mul_base(prod, d1) == 1 && !memcmp(prod, want, 65), "mul_base differs (case %u)", i);
        CHECK(fgp_p256_public_key(pub2, d2) == 1, "public_key rejected a valid key");
        ossl_pub(comp2, sizeof comp2, k2, POINT_CONVERSION_COMPRESSED);

        /* ECDH, against OpenSSL's, with the peer uncompressed and compressed */
        CHECK(ECDH_compute_key(theirs, 32, EC_KEY_get0_public_key(k2), k1, NULL) == 32, "OpenSSL ECDH failed");
        CHECK(fgp_p256_ecdh(ours, d1, pub2, 65) == 1 && !memcmp(ours, theirs, 32), "ECDH differs (case %u)", i);
        CHECK(fgp_p256_ecdh(ours, d1, comp2, 33) == 1 && !memcmp(ours, theirs, 32),
              "ECDH with a compressed peer differs (case %u)", i);
        CHECK(fgp_p256_ecdh(ours, d2, pub1, 65) == 1 && !memcmp(ours, theirs, 32), "ECDH is not symmetric (case %u)", i);
        {
            EC_POINT *r = EC_POINT_new(group);
            BIGNUM *d = BN_bin2bn(d1, 32, NULL);
            EC_POINT_mul(group, r, NULL, EC_KEY_get0_public_key(k2), d, NULL);
            EC_POINT_point2oct(group, r, POINT_CONVERSION_UNCOMPRESSED, want, 65, NULL);
            CHECK(fgp_p256_mul(prod, d1, comp2, 33) == 1 && !memcmp(prod, want, 65), "mul differs (case %u)", i);
            EC_POINT_free(r);
            BN_free(d);
        }

        /* our signatures verify in OpenSSL and in ours; a changed digest does not */
        rng_bytes(digest, 32);
        CHECK(fgp_p256_ecdsa_sign(sig, digest, d1) == 1, "sign rejected a valid key");
        CHECK(ossl_verify(sig, digest, k1), "OpenSSL rejects our signature (case %u)", i);
        CHECK(fgp_p256_ecdsa_verify(sig, digest, pub1, 65) == 1, "we reject our signature (case %u)", i);
        CHECK(fgp_p256_ecdsa_sign(sig2, digest, d1) == 1 && !memcmp(sig, sig2, 64), "signing is not deterministic");
        digest[i % 32] ^= (uint8_t)(1u << (i % 8));
        CHECK(fgp_p256_ecdsa_verify(sig, digest, pub1, 65) == 0, "a signature verified for another digest (case %u)", i);
        CHECK(!ossl_verify(sig, digest, k1), "OpenSSL accepts a signature for another digest");

        /* OpenSSL's (random-nonce) signatures verify in ours */
        {
            ECDSA_SIG *os = ECDSA_do_sign(digest, 32, k2);
            const BIGNUM *r, *s;
            ECDSA_SIG_get0(os, &r, &s);
            BN_bn2binpad(r, sig, 32);
            BN_bn2binpad(s, sig + 32, 32);
            ECDSA_SIG_free(os);
            CHECK(fgp_p256_ecdsa_verify(sig, digest, pub2, 65) == 1, "we reject OpenSSL's signature (case %u)", i);
            CHECK(fgp_p256_ecdsa_verify(sig, digest, comp2, 33) == 1,
                  "we reject OpenSSL's signature under the compressed key (case %u)", i);
            CHECK(fgp_p256_ecdsa_verify(sig, digest, pub1, 65) == 0, "a signature verified under another key");
            sig[i % 64] ^= 0x10;
            CHECK(fgp_p256_ecdsa_verify(sig, digest, pub2, 65) == 0, "a changed signature verified (case %u)", i);
        }
        EC_KEY_free(k1);
        EC_KEY_free(k2);
    }
}

/* ---- the internal SHA-256 and HMAC against OpenSSL's, every length to 300 bytes ---- */

static void test_sha256(void)
{
    uint8_t msg[300], key[32], ours[32], theirs[32];
    unsigned int len;
    rng_bytes(msg, sizeof msg);
    rng_bytes(key, sizeof key);
    for (size_t n = 0; n <= sizeof msg; n++) {
        fgp_sha256_ctx c;
        fgp_hmac_key k;
        size_t cut = n / 3;
        const uint8_t *parts[2] = {msg, msg + cut};
        const size_t lens[2] = {cut, n - cut};
        fgp_sha256_init(&c);
        fgp_sha256_update(&c, msg, cut);
        fgp_sha256_update(&c, msg + cut, n - cut);
        fgp_sha256_final(ours, &c);
        EVP_Digest(msg, n, theirs, &len, EVP_sha256(), NULL);
        CHECK(!memcmp(ours, theirs, 32), "SHA-256 of %zu bytes differs from OpenSSL's", n);
        fgp_hmac_sha256_key(&k, key, sizeof key);
        fgp_hmac_sha256(ours, &k, parts, lens, 2);
        HMAC(EVP_sha256(), key, sizeof key, msg, n, theirs, &len);
        CHECK(!memcmp(ours, theirs, 32), "HMAC-SHA-256 of %zu bytes differs from OpenSSL's", n);
    }
}

/* ---- RFC 6979 appendix A.2.5: P-256 with SHA-256 (the RFC's published key and signatures) ---- */

static void test_rfc6979(void)
{
    static const char X[] = "C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721";
    static const char UX[] = "60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6";
    static const char UY[] = "7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299";
    static const struct {
        const char *msg, *r, *s;
    } v[] = {
        {"sample", "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716",
         "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"},
        {"test", "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367",
         "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083"},
        /* C2SP's CCTV rfc6979 vector (same key): its first nonce candidate is
         * >= n, so this checks the RFC's retry (step h.3) */
        {"wv[vnX", "EFD9073B652E76DA1B5A019C0E4A2E3FA529B035A6ABB91EF67F0ED7A1F21234",
         "3DB4706C9D9F4A4FE13BB5E08EF0FAB53A57DBAB2061C83A35FA411C68D2BA33"},
    };
    uint8_t x[32], pub[65], want[65], digest[32], sig[64], wsig[64];
    unsigned int dlen;
    hex_to_bytes(x, 32, X);
    want[0] = 0x04;
    hex_to_bytes(want + 1, 32, UX);
    hex_to_bytes(want + 33, 32, UY);
    CHECK(fgp_p256_public_key(pub, x) == 1 && !memcmp(pub, want, 65), "RFC 6979 public key");
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        EVP_Digest(v[i].msg, strlen(v[i].msg), digest, &dlen, EVP_sha256(), NULL);
        hex_to_bytes(wsig, 32, v[i].r);
        hex_to_bytes(wsig + 32, 32, v[i].s);
        CHECK(fgp_p256_ecdsa_sign(sig, digest, x) == 1 && !memcmp(sig, wsig, 64), "RFC 6979 signature of \"%s\"", v[i].msg);
        CHECK(fgp_p256_ecdsa_verify(wsig, digest, want, 65) == 1, "RFC 6979 signature of \"%s\" rejected", v[i].msg);
    }
}

/* ---- verify's final addition as a doubling: u1 G = u2 Q ----
 * With z = r d mod n and s = k^-1 (z + r d) = 2 r d / k, u1 = z / s and
 * u2 = r / s give u1 G = u2 Q = (k / 2) G: the last addition of verify adds
 * a point to itself, which incomplete formulas get wrong. The signature is
 * valid (u1 G + u2 Q = k G), and OpenSSL agrees. */
static void test_verify_doubling(unsigned count)
{
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *n = NULL, *d, *k, *r, *z, *s, *x;
    BN_hex2bn(&n, N_HEX);
    for (unsigned i = 0; i < count; i++) {
        uint8_t db[32], kb[32], pub[65], kg[65], digest[32], sig[64];
        random_priv(db);
        random_priv(kb);
        fgp_p256_public_key(pub, db);
        fgp_p256_mul_base(kg, kb);
        d = BN_bin2bn(db, 32, NULL);
        k = BN_bin2bn(kb, 32, NULL);
        x = BN_bin2bn(kg + 1, 32, NULL);
        r = BN_new(), z = BN_new(), s = BN_new();
        BN_nnmod(r, x, n, ctx);                 /* r = x(kG) mod n */
        BN_mod_mul(z, r, d, n, ctx);            /* z = r d */
        BN_mod_add(s, z, z, n, ctx);            /* z + r d */
        BN_mod_inverse(k, k, n, ctx);
        BN_mod_mul(s, s, k, n, ctx);            /* s = k^-1 (z + r d) */
        BN_bn2binpad(z, digest, 32);
        BN_bn2binpad(r, sig, 32);
        BN_bn2binpad(s, sig + 32, 32);
        CHECK(fgp_p256_ecdsa_verify(sig, digest, pub, 65) == 1, "verify rejected a signature with u1 G = u2 Q");
        EC_KEY *key = ossl_key(db);
        CHECK(ossl_verify(sig, digest, key), "OpenSSL rejected the u1 G = u2 Q signature (the test is wrong)");
        EC_KEY_free(key);
        BN_free(d), BN_free(k), BN_free(x), BN_free(r), BN_free(z), BN_free(s);
    }
    BN_free(n);
    BN_CTX_free(ctx);
}

/* ---- edge scalars ---- */

/* k = n + delta (delta small, may be negative), big-endian. */
static void n_plus(uint8_t k[32], int delta)
{
    int carry = delta;
    hex_to_bytes(k, 32, N_HEX);
    for (int i = 31; i >= 0 && carry != 0; i--) {
        int v = k[i] + carry;
        k[i] = (uint8_t)(v & 0xff);
        carry = v >> 8; /* arithmetic shift: -1 borrows */
    }
}

static void test_edge_scalars(void)
{
    uint8_t k[32], out[65], g[65], sec[32], sig[64], digest[32] = {1};
    g[0] = 0x04;
    hex_to_bytes(g + 1, 32, GX_HEX);
    hex_to_bytes(g + 33, 32, GY_HEX);

    /* invalid: 0, n, n + 1, 2^256 - 1: every function rejects and writes zeros */
    const char *names[] = {"0", "n", "n+1", "2^256-1"};
    for (int c = 0; c < 4; c++) {
        if (c == 0)
            memset(k, 0, 32);
        else if (c == 3)
            memset(k, 0xff, 32);
        else
            n_plus(k, c - 1);
        memset(out, 0xaa, sizeof out);
        CHECK(fgp_p256_public_key(out, k) == 0 && all_zero(out, 65), "public_key accepted k = %s", names[c]);
        memset(out, 0xaa, sizeof out);
        CHECK(fgp_p256_mul(out, k, g, 65) == 0 && all_zero(out, 65), "mul accepted k = %s", names[c]);
        memset(sec, 0xaa, sizeof sec);
        CHECK(fgp_p256_ecdh(sec, k, g, 65) == 0 && all_zero(sec, 32), "ecdh accepted k = %s", names[c]);
        memset(sig, 0xaa, sizeof sig);
        CHECK(fgp_p256_ecdsa_sign(sig, digest, k) == 0 && all_zero(sig, 64), "sign accepted k = %s", names[c]);
    }

    /* 1: G; n - 1: -G; 2: 2G both ways */
    memset(k, 0, 32);
    k[31] = 1;
    CHECK(fgp_p256_public_key(out, k) == 1 && !memcmp(out, g, 65), "1 * G != G");
    CHECK(fgp_p256_mul(out, k, g, 65) == 1 && !memcmp(out, g, 65), "1 * P != P");
    CHECK(fgp_p256_ecdh(sec, k, g, 65) == 1 && !memcmp(sec, g + 1, 32), "ecdh(1, G) != Gx");
    n_plus(k, -1);
    {
        uint8_t negg[65];
        BIGNUM *p = BN_new(), *y = BN_bin2bn(g + 33, 32, NULL);
        BN_hex2bn(&p, P_HEX);
        BN_sub(y, p, y);
        memcpy(negg, g, 33);
        BN_bn2binpad(y, negg + 33, 32);
        CHECK(fgp_p256_public_key(out, k) == 1 && !memcmp(out, negg, 65), "(n-1) G != -G");
        CHECK(fgp_p256_mul(out, k, g, 65) == 1 && !memcmp(out, negg, 65), "(n-1) * G (variable base) != -G");
        BN_free(p);
        BN_free(y);
    }
    {
        uint8_t two[32] = {0}, a[65], b[65];
        two[31] = 2;
        CHECK(fgp_p256_public_key(a, two) == 1 && fgp_p256_mul(b, two, g, 65) == 1 && !memcmp(a, b, 65), "2G differs");
    }
}

/* ---- invalid points and signatures ---- */

static void test_invalid(void)
{
    uint8_t d[32], pub[65], bad[66], sec[32], digest[32], sig[64], badsig[64], prod[65];
    EC_POINT *pt = EC_POINT_new(group);
    random_priv(d);
    rng_bytes(digest, 32);
    fgp_p256_public_key(pub, d);
    fgp_p256_ecdsa_sign(sig, digest, d);

#define REJECT(in, len, what)                                                                  \
    do {                                                                                       \
        memset(sec, 0xaa, sizeof sec);                                                         \
        CHECK(fgp_p256_ecdh(sec, d, (in), (len)) == 0 && all_zero(sec, 32), "ecdh accepted %s", what); \
        CHECK(fgp_p256_ecdsa_verify(sig, digest, (in), (len)) == 0, "verify accepted the key %s", what); \
        memset(prod, 0xaa, sizeof prod);                                                       \
        CHECK(fgp_p256_mul(prod, d, (in), (len)) == 0 && all_zero(prod, 65), "mul accepted %s", what); \
    } while (0)

    memcpy(bad, pub, 65);
    bad[64] ^= 1;
    REJECT(bad, 65, "a point off the curve");
    REJECT((const uint8_t *)"\x00", 1, "the point at infinity (0x00)");
    memset(bad, 0, 65);
    REJECT(bad, 65, "65 zero bytes");
    REJECT(NULL, 65, "NULL");
    REJECT(pub, 64, "64 bytes");
    REJECT(pub, 0, "0 bytes");
    memcpy(bad, pub, 65);
    bad[65] = 0;
    REJECT(bad, 66, "66 bytes");
    REJECT(pub, 33, "an uncompressed prefix on 33 bytes");
    for (unsigned prefix = 0; prefix < 256; prefix++) {
        if (prefix == 0x04)
            continue;
        memcpy(bad, pub, 65);
        bad[0] = (uint8_t)prefix;
        REJECT(bad, 65, "a bad prefix");
    }
    {
        /* x = p, and x = p + (a valid x) below 2^256: the same point mod p */
        uint8_t pb[32];
        hex_to_bytes(pb, 32, P_HEX);
        memcpy(bad, pub, 65);
        memcpy(bad + 1, pb, 32);
        REJECT(bad, 65, "x = p");
        bad[0] = 0x02;
        REJECT(bad, 33, "compressed x = p");
        /* x >= p: x + p for the points with x < 64 (below 2^256 - p), which a
         * decoder that reduced mod p would accept. (y + p needs a point with
         * y < 2^256 - p, which no cheap search finds; the y >= p check is the
         * same from_bytes call.) */
        unsigned aliased = 0;
        for (unsigned x = 0; x < 64; x++) {
            uint8_t c[33] = {0x02};
            BIGNUM *xb = BN_new(), *yb = BN_new(), *p = NULL;
            c[32] = (uint8_t)x;
            if (EC_POINT_oct2point(group, pt, c, 33, NULL) && EC_POINT_get_affine_coordinates(group, pt, xb, yb, NULL)) {
                BN_hex2bn(&p, P_HEX);
                BN_add(xb, xb, p);
                bad[0] = 0x04;
                BN_bn2binpad(xb, bad + 1, 32);
                BN_bn2binpad(yb, bad + 33, 32);
                REJECT(bad, 65, "x + p");
                bad[0] = 0x02 | (bad[64] & 1);
                REJECT(bad, 33, "compressed x + p");
                aliased++;
            }
            BN_free(xb);
            BN_free(yb);
            BN_free(p);
        }
        CHECK(aliased > 0, "no point with x < 64 found");
        random_priv(d);
        fgp_p256_public_key(pub, d);
    }
    /* compressed points: x with x^3 - 3x + b a non-square (OpenSSL rejects them too) */
    {
        unsigned nonsquare = 0, square = 0;
        for (unsigned x = 0; x < 64; x++) {
            uint8_t c[33] = {0x02};
            c[32] = (uint8_t)x;
            int theirs = EC_POINT_oct2point(group, pt, c, 33, NULL);
            int ours = fgp_p256_ecdh(sec, d, c, 33);
            CHECK(ours == theirs, "compressed x = %u: ours %d, OpenSSL %d", x, ours, theirs);
            if (theirs)
                square++;
            else
                nonsquare++;
        }
        CHECK(nonsquare > 0 && square > 0, "the compressed sweep needs both kinds of x");
    }

    /* signatures: r or s = 0, n, n + 1, 2^256 - 1 */
    fgp_p256_ecdsa_sign(sig, digest, d);
    CHECK(fgp_p256_ecdsa_verify(sig, digest, pub, 65) == 1, "the base signature does not verify");
    for (int half = 0; half < 2; half++) {
        for (int c = 0; c < 4; c++) {
            memcpy(badsig, sig, 64);
            uint8_t *v = badsig + 32 * half;
            if (c == 0)
                memset(v, 0, 32);
            else if (c == 3)
                memset(v, 0xff, 32);
            else
                n_plus(v, c - 1);
            CHECK(fgp_p256_ecdsa_verify(badsig, digest, pub, 65) == 0, "verify accepted %s = case %d", half ? "s" : "r", c);
        }
        /* r + n or s + n where it fits below 2^256 would alias mod n: rejected as >= n */
    }
    /* (r, n - s) is the other valid signature of the same digest (ECDSA's malleability) */
    {
        BIGNUM *n = NULL, *s = BN_bin2bn(sig + 32, 32, NULL);
        BN_hex2bn(&n, N_HEX);
        BN_sub(s, n, s);
        memcpy(badsig, sig, 32);
        BN_bn2binpad(s, badsig + 32, 32);
        CHECK(fgp_p256_ecdsa_verify(badsig, digest, pub, 65) == 1, "verify rejected (r, n - s)");
        BN_free(n);
        BN_free(s);
    }
    EC_POINT_free(pt);
#undef REJECT
}

int main(int argc, char **argv)
{
    const char *level_name = NULL;
    unsigned count = 1000;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--level") && i + 1 < argc)
            level_name = argv[++i];
        else if (!strcmp(argv[i], "--count") && i + 1 < argc)
            count = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: %s --level c|x86_64|bmi2|adx|ifma [--count N] [--seed S]\n", argv[0]);
            return 2;
        }
    }
    if (level_name == NULL) {
        fprintf(stderr, "--level is required\n");
        return 2;
    }
    int level = fg_isa_parse(level_name);
    if (level < 0) {
        fprintf(stderr, "unknown level '%s'\n", level_name);
        return 2;
    }
    if (!fg_isa_force((fg_isa)level)) {
        printf("p256 protocol: level %s skipped: not available (CPU best %s)\n", level_name, fg_isa_name(fg_isa_best()));
        return 77;
    }
    OPENSSL_init_crypto(0, NULL);
    group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    rng_state = seed;

    for (int portable = 1; portable >= 0; portable--) { /* both SHA-256 compressions, where the CPU has two */
        fgp_sha256_force_portable(portable);
        test_sha256();
        test_rfc6979();
    }
    test_edge_scalars();
    test_invalid();
    test_verify_doubling(20);
    test_random(count);

    EC_GROUP_free(group);
    if (failures) {
        fprintf(stderr, "p256 protocol at %s: %d checks failed (seed %llu)\n", level_name, failures,
                (unsigned long long)seed);
        return 1;
    }
    printf("p256 protocol at %s: RFC 6979 vectors, edge scalars, invalid inputs and %u random cases agree with OpenSSL\n",
           level_name, count);
    return 0;
}
