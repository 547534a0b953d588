/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Constant-time check of X25519, run under Valgrind memcheck (see
 * tests/ct_field.c for the method): the scalar and the peer's u-coordinate
 * are marked undefined, so any branch or memory index that depends on them
 * is reported and the run exits non-zero. The return value of fgp_x25519 is
 * public and declassified right after the call.
 *
 *   ct_x25519 --can LEVEL      exit 0 if this CPU runs LEVEL, else 77
 *   ct_x25519 --level LEVEL    fgp_x25519 and fgp_x25519_base at LEVEL, under
 *                              every tuning the build can switch to
 *   ct_x25519 --leaky          a ladder-like loop that branches on a scalar
 *                              bit, which the check must catch */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "fgp_x25519.h"
#include "x25519_test_level.h"

#define SECRET(x) VALGRIND_MAKE_MEM_UNDEFINED(&(x), sizeof(x))
#define PUBLIC(x) VALGRIND_MAKE_MEM_DEFINED(&(x), sizeof(x))
#define ROUNDS 2

static volatile unsigned sink;

static void fill(uint8_t *b, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++)
        b[i] = (uint8_t)(seed * 131u + i * 29u + 7u);
}

static void round_(unsigned seed)
{
    uint8_t scalar[FGP_X25519_BYTES], u[FGP_X25519_BYTES], out[FGP_X25519_BYTES];
    int ret;
    fill(scalar, sizeof scalar, seed);
    fill(u, sizeof u, seed + 1000u);
    u[31] |= (uint8_t)(seed & 1 ? 0x80 : 0); /* the masked top bit */
    SECRET(scalar);
    SECRET(u);
    ret = fgp_x25519(out, scalar, u);
    PUBLIC(ret);
    sink += (unsigned)ret;
    fgp_x25519_base(out, scalar);
    PUBLIC(out);
    sink += out[0];
}

/* The check must be able to fail: a branch on each scalar bit. */
static void __attribute__((noinline)) touch(void) { sink++; }
static int leaky(void)
{
    uint8_t scalar[FGP_X25519_BYTES];
    int t;
    fill(scalar, sizeof scalar, 1);
    SECRET(scalar);
    for (t = 254; t >= 0; t--)
        if ((scalar[t >> 3] >> (t & 7)) & 1)
            touch();
    return 0;
}

int main(int argc, char **argv)
{
    int rc, tune, i;
    char tunes[64] = "";
    if (argc == 2 && !strcmp(argv[1], "--leaky"))
        return leaky();
    if (argc != 3 || (strcmp(argv[1], "--can") && strcmp(argv[1], "--level"))) {
        fprintf(stderr, "usage: %s --can LEVEL | --level LEVEL | --leaky\n", argv[0]);
        return 2;
    }
    rc = force_level("x25519", argv[2]);
    if (rc || !strcmp(argv[1], "--can"))
        return rc;
    for (tune = 0; tune < FG_TUNES; tune++) {
        if (!fg_tune_force((fg_tune)tune))
            continue;
        for (i = 0; i < ROUNDS; i++)
            round_((unsigned)i);
        strcat(strcat(tunes, tunes[0] ? ", " : ""), fg_tune_name((fg_tune)tune));
    }
    fg_tune_force(fg_tune_best());
    printf("x25519: constant-time check ran fgp_x25519 and fgp_x25519_base at level %s (active %s; tunings %s; %s)\n",
           argv[2], fg_isa_name(fg_isa_active()), tunes,
           RUNNING_ON_VALGRIND ? "under valgrind" : "NOT under valgrind: nothing was checked");
    return RUNNING_ON_VALGRIND && tunes[0] ? 0 : 1;
}
