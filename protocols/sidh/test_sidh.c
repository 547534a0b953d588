/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
/* SIDH tests, compiled once per field (-DSIDH_F=p503 -DSIDH_FU=P503). SIDH is
 * broken (Castryck-Decru 2022); these check the benchmark workload is right.
 *
 *   test_sidh_NAME --level L --suite kat --kat FILE    every case of the
 *       PQCrypto-SIDH vector file: both key generations, both shared secrets
 *   test_sidh_NAME --level L --suite agree [--count N] [--seed S]
 *       both parties derive the same secret for N random key pairs
 *   test_sidh_NAME --level L --suite invalid
 *       out-of-range keys and non-canonical / degenerate public keys give 0
 *       and all-zero output
 * L is dispatch (no forcing: the level the library picks) or c|x86_64|bmi2|adx|ifma.
 * Exit 0: passed; 1: a check failed; 77: level L not available here. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fg_cpu.h"

#include "sidh_per_field.h"
#include SIDH_FIELD_HEADER

enum { SKA = K(SKA_BYTES), SKB = K(SKB_BYTES), PK = K(PK_BYTES), SS = K(SS_BYTES), FPB = FC(BYTES) };
static const char *field = STR(SIDH_F);
static int failures;

static void check(int cond, const char *what, long idx)
{
    if (!cond) {
        printf("FAIL %s: %s (case %ld)\n", field, what, idx);
        failures++;
    }
}

static int all_zero(const uint8_t *b, size_t n)
{
    uint8_t acc = 0;
    size_t i;
    for (i = 0; i < n; i++)
        acc |= b[i];
    return acc == 0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* splitmix64: the deterministic key source of the agree suite. */
static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A random key below 2^bits in n little-endian bytes. */
static void random_key(uint8_t *k, size_t n, int bits)
{
    size_t i;
    for (i = 0; i < n; i++)
        k[i] = (uint8_t)rnd();
    k[n - 1] &= (uint8_t)((1u << (bits - 8 * ((int)n - 1))) - 1u);
}

/* ---- kat: the vector file -------------------------------------------------- */
static const char *kat_path;

static int hex_field(const char *line, const char *key, uint8_t *out, size_t n)
{
    size_t klen = strlen(key), i;
    const char *v;
    if (strncmp(line, key, klen) != 0 || strncmp(line + klen, " = ", 3) != 0)
        return 0;
    v = line + klen + 3;
    if (strspn(v, "0123456789abcdef") != 2 * n) {
        fprintf(stderr, "%s: field %s: the value of '%s' is not %zu hex bytes\n", kat_path, field, key, n);
        exit(2);
    }
    for (i = 0; i < n; i++) {
        unsigned b;
        sscanf(v + 2 * i, "%2x", &b);
        out[i] = (uint8_t)b;
    }
    return 1;
}

struct kat {
    uint8_t ska[SKA], skb[SKB], pka[PK], pkb[PK], ssa[SS], ssb[SS];
    unsigned have;
};

static void run_kat_case(const struct kat *c, long idx)
{
    uint8_t pk[PK], ss[SS];
    check(c->have == 0x3f, "case has skA, skB, pkA, pkB, sharedA, sharedB", idx);
    check(API(keygen_a)(pk, c->ska) == 1, "keygen_a returns 1", idx);
    check(memcmp(pk, c->pka, PK) == 0, "keygen_a = pkA", idx);
    check(API(keygen_b)(pk, c->skb) == 1, "keygen_b returns 1", idx);
    check(memcmp(pk, c->pkb, PK) == 0, "keygen_b = pkB", idx);
    check(API(shared_a)(ss, c->ska, c->pkb) == 1, "shared_a returns 1", idx);
    check(memcmp(ss, c->ssa, SS) == 0, "shared_a = sharedA", idx);
    check(API(shared_b)(ss, c->skb, c->pka) == 1, "shared_b returns 1", idx);
    check(memcmp(ss, c->ssb, SS) == 0, "shared_b = sharedB", idx);
}

static int suite_kat(const char *path)
{
    static char line[8192];
    struct kat c;
    long cases = 0, idx = -1;
    FILE *f = fopen(path, "r");
    kat_path = path;
    if (f == NULL) {
        fprintf(stderr, "%s: cannot open %s\n", field, path);
        return 2;
    }
    memset(&c, 0, sizeof c);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (strncmp(line, "count = ", 8) == 0) {
            if (idx >= 0) {
                run_kat_case(&c, idx);
                cases++;
            }
            memset(&c, 0, sizeof c);
            idx = strtol(line + 8, NULL, 10);
        }
        if (idx < 0)
            continue;
        c.have |= (unsigned)hex_field(line, "skA", c.ska, SKA) << 0;
        c.have |= (unsigned)hex_field(line, "skB", c.skb, SKB) << 1;
        c.have |= (unsigned)hex_field(line, "pkA", c.pka, PK) << 2;
        c.have |= (unsigned)hex_field(line, "pkB", c.pkb, PK) << 3;
        c.have |= (unsigned)hex_field(line, "sharedA", c.ssa, SS) << 4;
        c.have |= (unsigned)hex_field(line, "sharedB", c.ssb, SS) << 5;
    }
    fclose(f);
    if (idx >= 0) {
        run_kat_case(&c, idx);
        cases++;
    }
    check(cases == 8, "the vector file has 8 cases", cases);
    printf("%s: kat: %ld cases x 4 operations\n", field, cases);
    return 0;
}

/* ---- agree: random key pairs ---------------------------------------------- */
static int suite_agree(unsigned long count)
{
    uint8_t ska[SKA], skb[SKB], pka[PK], pkb[PK], ssa[SS], ssb[SS];
    unsigned long i;
    double t = now();
    for (i = 0; i < count; i++) {
        random_key(ska, SKA, K(SKA_BITS));
        random_key(skb, SKB, K(SKB_BITS));
        check(API(keygen_a)(pka, ska) == 1, "keygen_a returns 1", (long)i);
        check(API(keygen_b)(pkb, skb) == 1, "keygen_b returns 1", (long)i);
        check(API(shared_a)(ssa, ska, pkb) == 1, "shared_a returns 1", (long)i);
        check(API(shared_b)(ssb, skb, pka) == 1, "shared_b returns 1", (long)i);
        check(memcmp(ssa, ssb, SS) == 0, "both parties derive the same secret", (long)i);
        check(!all_zero(ssa, SS), "the shared secret is not zero", (long)i);
    }
    printf("%s: agree: %lu key pairs, %.1f ms per full agreement\n", field, count,
           count ? 1e3 * (now() - t) / (double)count : 0.0);
    return 0;
}

/* ---- invalid inputs --------------------------------------------------------- */
/* Calls op with the given inputs into an output pre-filled with 0xa5 and
 * checks it returns 0 and writes zeros throughout. */
#define EXPECT_REJECT(call, out, what)                                                            \
    do {                                                                                          \
        memset(out, 0xa5, sizeof out);                                                            \
        check((call) == 0, what ": returns 0", -1);                                               \
        check(all_zero(out, sizeof out), what ": output all zero", -1);                          \
    } while (0)

static int suite_invalid(void)
{
    uint8_t ska[SKA], skb[SKB], pka[PK], pkb[PK], bad[PK], ss[SS], ss2[SS], pk[PK], p_le[FPB];
    int coord, half;
    uint64_t p_limbs[FC(LIMBS)];
    size_t i;
    memcpy(p_limbs, XCAT3(fg_, SIDH_F, _P), sizeof p_limbs);
    for (i = 0; i < FPB; i++)
        p_le[i] = (uint8_t)(p_limbs[i / 8] >> (8 * (i % 8)));
    random_key(ska, SKA, K(SKA_BITS));
    random_key(skb, SKB, K(SKB_BITS));
    check(API(keygen_a)(pka, ska) == 1, "keygen_a on a valid key", -1);
    check(API(keygen_b)(pkb, skb) == 1, "keygen_b on a valid key", -1);
    /* A coordinate half equal to p (the smallest non-canonical value), or all ones. */
    for (coord = 0; coord < 3; coord++) {
        for (half = 0; half < 2; half++) {
            uint8_t *at;
            memcpy(bad, pkb, PK);
            at = bad + (2 * coord + half) * FPB;
            memcpy(at, p_le, FPB);
            EXPECT_REJECT(API(shared_a)(ss, ska, bad), ss, "shared_a: a pkB coordinate half = p");
            memset(at, 0xff, FPB);
            EXPECT_REJECT(API(shared_a)(ss, ska, bad), ss, "shared_a: a pkB coordinate half = 2^(8 FP_BYTES) - 1");
            memcpy(bad, pka, PK);
            memcpy(bad + (2 * coord + half) * FPB, p_le, FPB);
            EXPECT_REJECT(API(shared_b)(ss, skb, bad), ss, "shared_b: a pkA coordinate half = p");
        }
        /* A zero coordinate: no curve has it (get_A divides by xP xQ xR). */
        memcpy(bad, pkb, PK);
        memset(bad + 2 * coord * FPB, 0, 2 * FPB);
        EXPECT_REJECT(API(shared_a)(ss, ska, bad), ss, "shared_a: a zero pkB coordinate");
    }
    /* p - 1 is canonical: accepted (whatever it computes). */
    memcpy(bad, pkb, PK);
    memcpy(bad, p_le, FPB);
    bad[0] -= 1;
    check(API(shared_a)(ss, ska, bad) == 1, "shared_a: a pkB coordinate half = p - 1 is accepted", -1);
    /* Keys with a bit at or above their bit length. */
    {
        uint8_t k[SKA];
        memcpy(k, ska, SKA);
        k[K(SKA_BITS) / 8] |= (uint8_t)(1u << (K(SKA_BITS) % 8));
        EXPECT_REJECT(API(keygen_a)(pk, k), pk, "keygen_a: ska >= 2^eA");
        EXPECT_REJECT(API(shared_a)(ss, k, pkb), ss, "shared_a: ska >= 2^eA");
        memcpy(k, ska, SKA);
        k[SKA - 1] |= 0x80;
        EXPECT_REJECT(API(keygen_a)(pk, k), pk, "keygen_a: ska top bit set");
    }
    {
        uint8_t k[SKB];
        memcpy(k, skb, SKB);
        k[K(SKB_BITS) / 8] |= (uint8_t)(1u << (K(SKB_BITS) % 8));
        EXPECT_REJECT(API(keygen_b)(pk, k), pk, "keygen_b: skb >= 2^SKB_BITS");
        EXPECT_REJECT(API(shared_b)(ss, k, pka), ss, "shared_b: skb >= 2^SKB_BITS");
    }
    /* The largest valid keys work, and both sides still agree. */
    memset(ska, 0xff, SKA);
    ska[SKA - 1] = (uint8_t)((1u << (K(SKA_BITS) - 8 * (SKA - 1))) - 1u);
    memset(skb, 0xff, SKB);
    skb[SKB - 1] = (uint8_t)((1u << (K(SKB_BITS) - 8 * (SKB - 1))) - 1u);
    check(API(keygen_a)(pka, ska) == 1 && API(keygen_b)(pkb, skb) == 1, "keygen on the largest keys", -1);
    check(API(shared_a)(ss, ska, pkb) == 1 && API(shared_b)(ss2, skb, pka) == 1, "shared on the largest keys", -1);
    check(memcmp(ss, ss2, SS) == 0, "the largest keys agree", -1);
    printf("%s: invalid: rejections checked\n", field);
    return 0;
}

int main(int argc, char **argv)
{
    const char *suite = "kat", *kat = NULL, *level_name = NULL;
    unsigned long count = 10;
    int i;
    rng_state = UINT64_C(0x51d4);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--level") && i + 1 < argc) level_name = argv[++i];
        else if (!strcmp(argv[i], "--suite") && i + 1 < argc) suite = argv[++i];
        else if (!strcmp(argv[i], "--kat") && i + 1 < argc) kat = argv[++i];
        else if (!strcmp(argv[i], "--count") && i + 1 < argc) count = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) rng_state = strtoull(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: %s --level dispatch|c|x86_64|bmi2|adx|ifma [--suite kat|agree|invalid] [--kat FILE] [--count N] [--seed S]\n", argv[0]);
            return 2;
        }
    }
    if (level_name == NULL) {
        fprintf(stderr, "--level is required\n");
        return 2;
    }
    if (strcmp(level_name, "dispatch") != 0) {
        int level = fg_isa_parse(level_name);
        if (level < 0) {
            fprintf(stderr, "unknown level '%s'\n", level_name);
            return 2;
        }
        if (level > FG_ISA_C && !FC(HAVE_ASM) && !FC(HAVE_AARCH64_ASM)) {
            printf("%s: level %s skipped: no assembly in this build\n", field, level_name);
            return 77;
        }
        if (!fg_isa_force((fg_isa)level)) {
            printf("%s: level %s skipped: not available (CPU best %s)\n", field, level_name, fg_isa_name(fg_isa_best()));
            return 77;
        }
    }
    printf("%s: level %s (active %s)\n", field, level_name, fg_isa_name(fg_isa_active()));
    if (!strcmp(suite, "kat")) {
        if (kat == NULL) {
            fprintf(stderr, "--suite kat needs --kat FILE\n");
            return 2;
        }
        if (suite_kat(kat) != 0)
            return 2;
    } else if (!strcmp(suite, "agree")) {
        suite_agree(count);
    } else if (!strcmp(suite, "invalid")) {
        suite_invalid();
    } else {
        fprintf(stderr, "unknown suite '%s'\n", suite);
        return 2;
    }
    if (failures) {
        printf("%s: %d check(s) FAILED\n", field, failures);
        return 1;
    }
    printf("%s: %s passed\n", field, suite);
    return 0;
}
