/* Runtime tests: the dispatch word follows fg_isa_force, forcing never goes
 * above the best level, names round-trip, and FIELDGEN_ISA overrides the
 * probe (run by CTest with FIELDGEN_ISA set and --expect-env LEVEL). */
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
        if (want > 0 && !FG_HAVE_X86_64_ASM) {
            CHECK(best == FG_ISA_C); /* override refused without assembly */
            return failures ? 1 : 77;
        }
        CHECK(best == want);
        CHECK((int)fg_isa_active() == want); /* applied at start-up */
        printf("FIELDGEN_ISA=%s: best %s, active %s\n", argv[2], fg_isa_name(fg_isa_best()),
               fg_isa_name(fg_isa_active()));
        return failures ? 1 : 0;
#endif
    }
    printf("best level %s, active %s\n", fg_isa_name(fg_isa_best()), fg_isa_name(fg_isa_active()));
#if !defined(FG_STATIC_ISA)
    CHECK(fg_isa_active() == fg_isa_best()); /* the constructor applied the probe */
#endif
    for (level = 0; level < FG_ISA_LEVELS; level++) {
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
    for (level = 0; level <= best; level++) {
        if (!fg_isa_force((fg_isa)level))
            continue;
        CHECK((int)fg_isa_active() == level);
        fg_p256_mul(&r2, &a, &b);
        CHECK(fg_p256_eq(&r1, &r2));
    }
    fg_p256_from_u64(&r2, UINT64_C(123456789) * UINT64_C(987654321));
    CHECK(fg_p256_eq(&r1, &r2));
    printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
