/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Constant-time check of fgp_p256, run under Valgrind memcheck (tests/ct_run.sh):
 * the private keys are marked undefined before each call, so any branch or
 * memory index that depends on them, or on a value computed from them (the scalar digits, the RFC 6979
 * nonce, k^-1), is reported and the run exits non-zero. The library's own
 * declassifications (fgp_p256.c, DECLASSIFY: a rejected nonce candidate, a
 * retry for r or s = 0) are the only exceptions; return values (validity) are
 * declassified here, right after each call.
 *
 *   ct_p256 --can LEVEL     exit 0 if this CPU runs LEVEL, else 77
 *   ct_p256 --level LEVEL   public_key, ecdh, sign (and mul, mul_base) at LEVEL,
 *                           under every tuning whose kernels differ
 *   ct_p256 --leaky         a deliberate branch on a private key: must fail */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "fg_cpu.h"
#include "fgp_p256.h"

#define SECRET(p, len) VALGRIND_MAKE_MEM_UNDEFINED((p), (len))
#define PUBLIC(x) VALGRIND_MAKE_MEM_DEFINED(&(x), sizeof(x))

static volatile unsigned sink;

/* Fixed, valid keys and a digest; one key near n, one with many zero digits. */
static const uint8_t KEYS[][32] = {
    {0xc9, 0xaf, 0xa9, 0xd8, 0x45, 0xba, 0x75, 0x16, 0x6b, 0x5c, 0x21, 0x57, 0x67, 0xb1, 0xd6, 0x93,
     0x4e, 0x50, 0xc3, 0xdb, 0x36, 0xe8, 0x9b, 0x12, 0x7b, 0x8a, 0x62, 0x2b, 0x12, 0x0f, 0x67, 0x21},
    {0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
     0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x50},
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07},
};

static int run_all(void)
{
    uint8_t peer[65], out[65], sec[32], sig[64], priv[32], digest[32];
    int ok, all = 1;
    size_t nkeys = sizeof KEYS / sizeof KEYS[0];
    memset(digest, 0x5a, sizeof digest);
    for (size_t i = 0; i < nkeys; i++) {
        all &= fgp_p256_public_key(peer, KEYS[(i + 1) % nkeys]); /* public: the peer */

        memcpy(priv, KEYS[i], 32);
        SECRET(priv, 32);
        ok = fgp_p256_public_key(out, priv);
        PUBLIC(ok);
        all &= ok;

        SECRET(priv, 32);
        ok = fgp_p256_mul_base(out, priv);
        PUBLIC(ok);
        all &= ok;

        SECRET(priv, 32);
        ok = fgp_p256_ecdh(sec, priv, peer, sizeof peer);
        PUBLIC(ok);
        all &= ok;

        SECRET(priv, 32);
        ok = fgp_p256_mul(out, priv, peer, sizeof peer);
        PUBLIC(ok);
        all &= ok;

        SECRET(priv, 32);
        ok = fgp_p256_ecdsa_sign(sig, digest, priv);
        PUBLIC(ok);
        all &= ok;
    }
    /* an invalid key (0) takes the same path, its output masked */
    memset(priv, 0, 32);
    SECRET(priv, 32);
    ok = fgp_p256_ecdsa_sign(sig, digest, priv);
    PUBLIC(ok);
    all &= !ok;
    return all;
}

int main(int argc, char **argv)
{
    char tunes[64];
    int level, all = 1;
    if (argc == 2 && !strcmp(argv[1], "--leaky")) {
        uint8_t priv[32] = {1};
        SECRET(priv, 32);
        if (priv[0] & 1) /* the leak the check must report */
            sink++;
        return 0;
    }
    if (argc != 3 || (strcmp(argv[1], "--can") && strcmp(argv[1], "--level"))) {
        fprintf(stderr, "usage: %s --can LEVEL | --level LEVEL | --leaky\n", argv[0]);
        return 2;
    }
    level = fg_isa_parse(argv[2]);
    if (level < 0) {
        fprintf(stderr, "unknown level %s\n", argv[2]);
        return 2;
    }
    if (!fg_isa_force((fg_isa)level)) {
        printf("p256 protocol: level %s skipped: not available (best %s)\n", argv[2], fg_isa_name(fg_isa_best()));
        return 77;
    }
    if (!strcmp(argv[1], "--can"))
        return 0;
    /* Every tuning: Valgrind's emulated CPUID reads as generic on AMD, so the
     * Zen kernels run only when forced. */
    tunes[0] = '\0';
    for (int tune = 0; tune < FG_TUNES; tune++) {
        if (!fg_tune_force((fg_tune)tune))
            continue;
        all &= run_all();
        strcat(strcat(tunes, tunes[0] ? ", " : ""), fg_tune_name((fg_tune)tune));
    }
    printf("p256 protocol: constant-time check of public_key, mul_base, ecdh, mul, sign at level %s (tunings %s; %s)\n",
           argv[2], tunes, RUNNING_ON_VALGRIND ? "under valgrind" : "NOT under valgrind: nothing was checked");
    if (!all)
        fprintf(stderr, "p256 protocol: a call returned the wrong validity\n");
    return all && RUNNING_ON_VALGRIND && tunes[0] ? 0 : 1;
}
