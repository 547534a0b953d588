/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Constant-time check of SIDH (compiled per field: -DSIDH_F=p503 -DSIDH_FU=P503),
 * run under valgrind memcheck by tests/ct_run.sh: the secret keys are marked
 * undefined, so a branch or memory index on them (or on anything computed
 * from them) is reported and the run exits non-zero. The return values
 * depend on the key (its range check) and are declassified right after each
 * call; the outputs are declassified only to be printed nowhere: they are
 * not used.
 *
 *   ct_sidh_NAME --can LEVEL     exit 0 if this CPU runs LEVEL, else 77
 *   ct_sidh_NAME --level LEVEL   keygen_a, keygen_b, shared_a, shared_b once each
 *   ct_sidh_NAME --leaky         a deliberate branch on a key bit (must be caught) */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "fg_cpu.h"

#include "sidh_per_field.h"

#define SECRET(x) VALGRIND_MAKE_MEM_UNDEFINED(&(x), sizeof(x))
#define PUBLIC(x) VALGRIND_MAKE_MEM_DEFINED(&(x), sizeof(x))

static volatile int sink;

int main(int argc, char **argv)
{
    uint8_t ska[K(SKA_BYTES)], skb[K(SKB_BYTES)], pka[K(PK_BYTES)], pkb[K(PK_BYTES)], ss[K(SS_BYTES)];
    int ret, level;
    size_t i;
    for (i = 0; i < sizeof ska; i++)
        ska[i] = (uint8_t)(37 * i + 11);
    for (i = 0; i < sizeof skb; i++)
        skb[i] = (uint8_t)(53 * i + 7);
    ska[sizeof ska - 1] &= 1; /* in range for both fields */
    skb[sizeof skb - 1] &= 1;
    if (argc == 2 && !strcmp(argv[1], "--leaky")) {
        SECRET(ska);
        if (ska[0] & 1) /* the branch the check must report (a call: no cmov) */
            puts("odd key");
        return 0;
    }
    if (argc != 3 || (level = fg_isa_parse(argv[2])) < 0) {
        fprintf(stderr, "usage: %s --can LEVEL | --level LEVEL | --leaky\n", argv[0]);
        return 2;
    }
    if (!strcmp(argv[1], "--can"))
        return fg_isa_force((fg_isa)level) ? 0 : 77;
    if (!fg_isa_force((fg_isa)level)) {
        printf("level %s not available\n", argv[2]);
        return 77;
    }
    /* The public keys first, with defined keys (they are inputs below). */
    if (!API(keygen_a)(pka, ska) || !API(keygen_b)(pkb, skb))
        return 1;
    SECRET(ska);
    SECRET(skb);
    ret = API(keygen_a)(pka, ska);
    PUBLIC(ret);
    sink = ret;
    ret = API(keygen_b)(pkb, skb);
    PUBLIC(ret);
    sink += ret;
    PUBLIC(pka); /* public keys are public */
    PUBLIC(pkb);
    ret = API(shared_a)(ss, ska, pkb);
    PUBLIC(ret);
    sink += ret;
    ret = API(shared_b)(ss, skb, pka);
    PUBLIC(ret);
    sink += ret;
    printf("%s: keygen_a, keygen_b, shared_a, shared_b at %s: %d of 4 returned 1\n", STR(SIDH_F), argv[2], sink);
    return sink == 4 ? 0 : 1;
}
