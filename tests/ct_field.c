/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Constant-time check, compiled once per field (-DFG_FIELD=name
 * -DFG_FIELD_UC=NAME) and run under Valgrind memcheck: every secret input is
 * marked undefined, so any branch or memory index that depends on it is
 * reported ("Conditional jump or move depends on uninitialised value(s)",
 * "Use of uninitialised value"), and the run exits non-zero. Public outputs
 * (from_bytes', inv's and sqrt's flags, is_zero, eq) are declassified
 * explicitly, right after the call, and nowhere else.
 *
 *   ct_field_NAME --can LEVEL       exit 0 if this CPU runs LEVEL, else 77
 *   ct_field_NAME --level LEVEL     run every operation at LEVEL (under valgrind)
 *   ct_field_NAME --leaky KIND      a deliberately leaky function (branch|index)
 *                                   that the check must catch */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "fg_test_field.h"

#define SECRET(x) VALGRIND_MAKE_MEM_UNDEFINED(&(x), sizeof(x))
#define PUBLIC(x) VALGRIND_MAKE_MEM_DEFINED(&(x), sizeof(x))


static void element(FE *x)
{
    fgt_element(x);
}

static volatile unsigned sink;

static void ops_round(int square)
{
    FE a, b, r, s;
    uint64_t t[2 * N], u;
    uint8_t bytes[C(BYTES)], wide[C(WIDE_BYTES)];
    size_t len;
    int ret, cond;

    element(&a);
    element(&b);
    if (square)
        F(sqr)(&a, &a); /* a square: sqrt takes its root-found path */
    u = rnd();
    cond = (int)(rnd() & 1);
    for (len = 0; len < sizeof wide; len++)
        wide[len] = (uint8_t)rnd();
    SECRET(wide);
    SECRET(a);
    SECRET(b);
    SECRET(u);
    SECRET(cond);

    F(mul)(&r, &a, &b);
    F(sqr)(&r, &a);
    F(mul)(&r, &r, &r);
    F(add)(&r, &a, &b);
    F(sub)(&r, &a, &b);
    F(neg)(&r, &a);
    F(mul_small)(&r, &a, (uint32_t)u);
    F(mul_wide)(t, &a, &b);
    F(redc)(&r, t);
    F(sqr_wide)(t, &a);
    F(redc)(&r, t);
#if C(HAVE_LAZY)
    F(mul_lazy)(&r, &a, &b);
    F(sqr_lazy)(&r, &r);
    F(mul_lazy)(&r, &r, &a);
    F(canon)(&r, &r);
#if !C(MONTGOMERY)
    /* pseudo-Mersenne: the additive lazy ops, on lazy values (any limbs) */
    F(add_lazy)(&r, &a, &b);
    F(sub_lazy)(&s, &r, &b);
    F(sub_lazy)(&s, &a, &s);
    F(mul_small_lazy)(&r, &s, (uint32_t)u);
    F(add_lazy)(&r, &r, &r);
    F(mul_lazy)(&s, &r, &s);
    F(cswap)(&r, &s, cond);
    F(canon)(&r, &r);
    F(mul)(&r, &s, &s);
#endif
#endif
    F(from_u64)(&r, u);
    F(to_bytes)(bytes, &a);
    ret = F(from_bytes)(&r, bytes);
    PUBLIC(ret);
    sink += (unsigned)ret;
    for (len = 0; len <= sizeof wide; len += 7)   /* every tail length mod 8; len is public */
        sink += (unsigned)F(from_bytes_wide)(&r, wide, len);
    sink += (unsigned)F(from_bytes_wide)(&r, wide, sizeof wide);
    ret = F(inv)(&r, &a);
    PUBLIC(ret);
    sink += (unsigned)ret;
    ret = F(sqrt)(&r, &a);
    PUBLIC(ret);
    sink += (unsigned)ret;
    ret = F(is_zero)(&a);
    PUBLIC(ret);
    sink += (unsigned)ret;
    ret = F(eq)(&a, &b);
    PUBLIC(ret);
    sink += (unsigned)ret;
    ret = F(inv_fermat)(&r, &a);
    PUBLIC(ret);
    sink += (unsigned)ret;
    ret = F(is_square)(&a);
    PUBLIC(ret);
    sink += (unsigned)ret;
    ret = F(is_square_euler)(&a);
    PUBLIC(ret);
    sink += (unsigned)ret;
#if C(HAVE_SQRT_RATIO)
    ret = F(sqrt_ratio)(&r, &a, &b);   /* the flag may be secret too: declassified only here */
    PUBLIC(ret);
    sink += (unsigned)ret;
    F(sqr)(&s, &a);
    ret = F(sqrt_ratio)(&r, &s, &b);
    PUBLIC(ret);
    sink += (unsigned)ret;
#endif
    {
        FE in[3], out[3], scratch[3];
        in[0] = a, in[1] = b, in[2] = r;
        F(zero)(&in[2]);
        SECRET(in);
        F(inv_batch)(out, in, 3, scratch);
    }
    s = b;
    F(cmov)(&s, &a, cond);
    F(cswap)(&s, &r, cond);
    {   /* a table lookup at a secret index, within and past the table */
        FE table[5];
        size_t idx = (size_t)(u % 7);
        table[0] = a, table[1] = b, table[2] = r, table[3] = s, table[4] = a;
        SECRET(table);
        SECRET(idx);
        F(select)(&r, table, 5, idx);
    }
    F(zero)(&r);
    F(one)(&r);
#if C(HAVE_FP2)
    {
        CAT(FE, _fp2) x, y, z;
        uint8_t bytes2[C(FP2_BYTES)];
        x.c0 = a, x.c1 = b;
        y.c0 = b, y.c1 = a;
        SECRET(x);
        SECRET(y);
        F(fp2_mul)(&z, &x, &y);
        F(fp2_sqr)(&z, &x);
        F(fp2_add)(&z, &x, &y);
        F(fp2_sub)(&z, &x, &y);
        F(fp2_neg)(&z, &x);
        F(fp2_conj)(&z, &x);
        F(fp2_mul_fp)(&z, &x, &a);
        F(fp2_mul_small)(&z, &x, (uint32_t)u);
        F(fp2_to_bytes)(bytes2, &x);
        ret = F(fp2_from_bytes)(&z, bytes2);
        PUBLIC(ret);
        sink += (unsigned)ret;
        ret = F(fp2_inv)(&z, &x);
        PUBLIC(ret);
        sink += (unsigned)ret;
        ret = F(fp2_sqrt)(&z, &x);
        PUBLIC(ret);
        sink += (unsigned)ret;
        ret = F(fp2_is_square)(&x);
        PUBLIC(ret);
        sink += (unsigned)ret;
        F(fp2_sqr)(&x, &x); /* a square: the root-found path */
        ret = F(fp2_sqrt)(&z, &x);
        PUBLIC(ret);
        sink += (unsigned)ret;
        ret = F(fp2_eq)(&x, &y);
        PUBLIC(ret);
        sink += (unsigned)ret;
        ret = F(fp2_is_zero)(&x);
        PUBLIC(ret);
        sink += (unsigned)ret;
        F(fp2_cmov)(&z, &x, cond);
        F(fp2_cswap)(&x, &y, cond);
        {
            CAT(FE, _fp2) in[3], out[3], scratch[3];
            size_t idx = (size_t)(u % 5);
            in[0] = x, in[1] = y;
            F(fp2_zero)(&in[2]);
            SECRET(in);
            F(fp2_inv_batch)(out, in, 3, scratch);   /* a zero among them */
            SECRET(idx);
            F(fp2_select)(&z, in, 3, idx);           /* within and past the table */
        }
        F(fp2_zero)(&z);
        F(fp2_one)(&z);
    }
#endif
}

/* Deliberately leaky: a branch on a secret bit (through a call, so no
 * compiler can turn it into a conditional move), or a secret table index. */
static volatile uint8_t table[256];
static void __attribute__((noinline)) touch(void) { sink++; }
static int leaky(const char *kind)
{
    FE a;
    element(&a);
    SECRET(a);
    if (!strcmp(kind, "branch")) {
        if (a.limb[0] & 1)
            touch();
        return 0;
    }
    if (!strcmp(kind, "index")) {
        sink += table[a.limb[0] & 255];
        return 0;
    }
    fprintf(stderr, "--leaky branch|index\n");
    return 2;
}

/* Whether some operation's kernel at `level` differs between the tunings
 * (the header's FG_NAME_OP_AT_LEVEL_USES and _ZEN_USES). */
#define AT_USES(op, lv, tune) C(op##_AT_##lv##tune##_USES)
#define DIFFERS(op, lv) (AT_USES(op, lv, ) != AT_USES(op, lv, _ZEN))
#define LEVEL_DIFFERS(lv)                                                                    \
    (DIFFERS(MUL, lv) || DIFFERS(SQR, lv) || DIFFERS(MUL_WIDE, lv) || DIFFERS(SQR_WIDE, lv) || \
     DIFFERS(REDC, lv))
static int tunings_differ(int level)
{
    switch (level) {
    case FG_ISA_X86_64:
        return LEVEL_DIFFERS(X86_64);
    case FG_ISA_BMI2:
        return LEVEL_DIFFERS(BMI2);
    case FG_ISA_ADX:
#if C(HAVE_FP2)
        if (DIFFERS(FP2_MUL, ADX) || DIFFERS(FP2_SQR, ADX))
            return 1;
#endif
        return LEVEL_DIFFERS(ADX);
    case FG_ISA_IFMA:
        return LEVEL_DIFFERS(IFMA);
    default:
        return 0; /* the C level reads no tuning */
    }
}

int main(int argc, char **argv)
{
    int level, i, tune;
    char tunes[64];
    rng_state = 0xc0ffee;
    if (argc == 3 && !strcmp(argv[1], "--leaky"))
        return leaky(argv[2]);
    if (argc != 3 || (strcmp(argv[1], "--can") && strcmp(argv[1], "--level"))) {
        fprintf(stderr, "usage: %s --can LEVEL | --level LEVEL | --leaky branch|index\n", argv[0]);
        return 2;
    }
    level = fg_isa_parse(argv[2]);
    if (level < 0) {
        fprintf(stderr, "unknown level %s\n", argv[2]);
        return 2;
    }
    if (level > FG_ISA_C && !C(HAVE_ASM) && !C(HAVE_AARCH64_ASM)) {
        printf("%s: level %s skipped: no assembly for this field in this build\n", STR(FG_FIELD), argv[2]);
        return 77;
    }
    if (!fg_isa_force((fg_isa)level)) {
        printf("%s: level %s skipped: not available (best %s)\n", STR(FG_FIELD), argv[2],
               fg_isa_name(fg_isa_best()));
        return 77;
    }
    if (!strcmp(argv[1], "--can"))
        return 0;
    /* Every tuning this build can switch to, where the level's kernels differ
     * between them: the probed tuning alone would leave some kernels
     * dynamically unchecked, the Zen forms on Intel and, since the CPUID that
     * Valgrind emulates reads as generic on the AMD machines measured, there
     * too. */
    tunes[0] = '\0';
    for (tune = 0; tune < FG_TUNES; tune++) {
        if ((tune != (int)fg_tune_best() && !tunings_differ(level)) || !fg_tune_force((fg_tune)tune))
            continue;
        for (i = 0; i < 4; i++)
            ops_round(i & 1);
        strcat(strcat(tunes, tunes[0] ? ", " : ""), fg_tune_name((fg_tune)tune));
    }
    fg_tune_force(fg_tune_best());
    printf("%s: constant-time check ran every operation at level %s (active %s; tunings %s; %s)\n",
           STR(FG_FIELD), argv[2], fg_isa_name(fg_isa_active()), tunes,
           RUNNING_ON_VALGRIND ? "under valgrind" : "NOT under valgrind: nothing was checked");
    return RUNNING_ON_VALGRIND && tunes[0] ? 0 : 1;
}
