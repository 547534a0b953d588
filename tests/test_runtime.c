/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Runtime tests: the dispatch words follow fg_isa_force and fg_tune_force,
 * forcing never goes above the best level, names round-trip, FIELDGEN_ISA
 * and FIELDGEN_TUNE override the probe (run by CTest with them set and
 * --expect-env LEVEL or --expect-tune TUNING), and every (level, tuning)
 * computes the same product through the dispatcher. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg_cpu.h"
#include "fg_p256.h"

static int failures;
#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                     \
        }                                                                   \
    } while (0)

int main(int argc, char **argv)
{
    int best = (int)fg_isa_best(), level;
    fg_p256 a, b, r1, r2;
    if (argc == 3 && !strcmp(argv[1], "--expect-env")) {
        int want = fg_isa_parse(argv[2]);
        CHECK(want >= 0);
#if defined(FG_STATIC_ISA)
        printf("compile-time dispatch: FIELDGEN_ISA is not consulted\n");
        return 77;
#else
        if (want > 0 && !FG_HAVE_X86_64_ASM && !FG_HAVE_AARCH64_ASM) {
            CHECK(best == FG_ISA_C); /* override refused without assembly */
            return failures ? 1 : 77;
        }
        if ((int)best < want) { /* clamped: this CPU lacks the level (fieldgen.runtime.trust tests the clamp) */
            CHECK((int)fg_isa_active() == (int)best);
            printf("FIELDGEN_ISA=%s: this CPU allows only %s: skipped\n", argv[2], fg_isa_name(best));
            return failures ? 1 : 77;
        }
        CHECK(best == want);
        CHECK((int)fg_isa_active() == want); /* applied at start-up */
        printf("FIELDGEN_ISA=%s: best %s, active %s\n", argv[2], fg_isa_name(fg_isa_best()),
               fg_isa_name(fg_isa_active()));
        return failures ? 1 : 0;
#endif
    }
    if (argc == 3 && !strcmp(argv[1], "--expect-tune")) {
        int want = fg_tune_parse(argv[2]);
        CHECK(want >= 0);
#if defined(FG_STATIC_TUNE)
        printf("compile-time dispatch: FIELDGEN_TUNE is not consulted\n");
        return 77;
#else
        CHECK((int)fg_tune_best() == want);
        CHECK((int)fg_tune_active() == want); /* applied at start-up */
        CHECK(fg_cpu_sel == FG_SEL(fg_isa_active(), want));
        printf("FIELDGEN_TUNE=%s: best %s, active %s\n", argv[2], fg_tune_name(fg_tune_best()),
               fg_tune_name(fg_tune_active()));
        return failures ? 1 : 0;
#endif
    }
    printf("best level %s, active %s; tuning best %s, active %s\n", fg_isa_name(fg_isa_best()),
           fg_isa_name(fg_isa_active()), fg_tune_name(fg_tune_best()), fg_tune_name(fg_tune_active()));
#if !defined(FG_STATIC_ISA)
    CHECK(fg_isa_active() == fg_isa_best()); /* the constructor applied the probe */
    CHECK(fg_tune_active() == fg_tune_best());
    CHECK(fg_cpu_sel == FG_SEL(fg_isa_active(), fg_tune_active()));
#endif
    for (level = 0; level < FG_TUNES; level++)
        CHECK(fg_tune_parse(fg_tune_name((fg_tune)level)) == level);
    CHECK(fg_tune_parse("skylake") == -1);
    CHECK(fg_tune_force((fg_tune)FG_TUNES) == 0);
    CHECK(fg_tune_active() == fg_tune_best()); /* a refused force changes nothing */
    for (level = 0; level < FG_ISA_ARCH_LEVELS; level++) { /* this architecture's levels */
        CHECK(fg_isa_parse(fg_isa_name((fg_isa)level)) == level);
        if (level > best) {
            CHECK(fg_isa_force((fg_isa)level) == 0);
            CHECK((int)fg_isa_active() <= best);
        }
    }
    CHECK(fg_isa_parse("avx512") == -1);
    CHECK(fg_isa_force((fg_isa)7) == 0);
    /* every available level computes the same product through the dispatcher */
    fg_p256_from_u64(&a, 123456789);
    fg_p256_from_u64(&b, 987654321);
    fg_isa_force(FG_ISA_C);
    fg_p256_mul(&r1, &a, &b);
    for (int tune = 0; tune < FG_TUNES; tune++) {
        if (!fg_tune_force((fg_tune)tune))
            continue;
        for (level = 0; level <= best; level++) {
            if (!fg_isa_force((fg_isa)level))
                continue;
            CHECK((int)fg_isa_active() == level && (int)fg_tune_active() == tune);
#if !defined(FG_STATIC_ISA)
            CHECK(fg_cpu_sel == FG_SEL(level, tune));
#endif
            fg_p256_mul(&r2, &a, &b);
            CHECK(fg_p256_eq(&r1, &r2));
        }
    }
    fg_tune_force(fg_tune_best());
    fg_p256_from_u64(&r2, UINT64_C(123456789) * UINT64_C(987654321));
    CHECK(fg_p256_eq(&r1, &r2));
    printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
