/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The ISA-level selection shared by the X25519 test programs, following
 * tests/test_field.c's convention: --level c|x86_64|bmi2|adx|ifma forces that
 * level with fg_isa_force, and a level this CPU or build lacks is a skip
 * (exit code 77). */
#ifndef X25519_TEST_LEVEL_H
#define X25519_TEST_LEVEL_H

#include <stdio.h>

#include "fg_cpu.h"
#include "fg_p25519.h"

#define TEST_SKIP 77 /* CTest's SKIP_RETURN_CODE */

/* Force the level named `name`. Returns 0 when it is active, TEST_SKIP when
 * the CPU or the build lacks it, 2 for an unknown name, 1 if forcing succeeded
 * but another level is active. */
static int force_level(const char *prog, const char *name)
{
    int level = fg_isa_parse(name);
    if (level < 0) {
        fprintf(stderr, "%s: unknown level '%s'\n", prog, name);
        return 2;
    }
    if (level > FG_ISA_C && !FG_P25519_HAVE_ASM && !FG_P25519_HAVE_AARCH64_ASM) {
        printf("%s: level %s skipped: no assembly for p25519 in this build\n", prog, name);
        return TEST_SKIP;
    }
    if (!fg_isa_force((fg_isa)level)) {
        printf("%s: level %s skipped: not available (CPU best %s)\n", prog, name, fg_isa_name(fg_isa_best()));
        return TEST_SKIP;
    }
    if (fg_isa_active() != (fg_isa)level) {
        fprintf(stderr, "%s: fg_isa_force(%s) succeeded but the active level is %s\n", prog, name,
                fg_isa_name(fg_isa_active()));
        return 1;
    }
    return 0;
}
#endif
