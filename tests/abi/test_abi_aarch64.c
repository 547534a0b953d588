/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* AAPCS64 and memory-safety test of every aarch64 kernel of one field
 * (-DFG_FIELD=name -DFG_FIELD_UC=NAME), the AArch64 counterpart of
 * tests/test_abi.c:
 *   - each call goes through fg_abi_call_a64 (fg_abi_aarch64.S), which
 *     fills x19-x28, x29, x18, d8-d15 and two words of its own frame above
 *     the callee's sp with canaries and checks them and sp afterwards;
 *   - outputs and inputs sit flush against PROT_NONE guard pages, at the end
 *     and at the start, so any read or write outside the object faults;
 *   - every pointer misaligned by 0..7 bytes, and every aliasing pattern
 *     (r == a, r == b, r == a == b, t overlapping a, r inside t);
 * each result compared with the portable C kernel on aligned copies (the
 * Fp2 kernels fg_NAME_fp2_{mul,sqr}_aarch64, on elements of 2N words, with
 * a reference from the C mul and add/neg).
 *   test_abi_aarch64_NAME [--count N]     (77: no aarch64 kernels in this build)
 *   test_abi_aarch64_NAME --selftest      (the checker catches each violation) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg_guard.h"
#include "fg_test_field.h"

uint64_t fg_abi_call_a64(const void *fn, uint64_t a0, uint64_t a1, uint64_t a2);

#define W (8 * N)

static unsigned long failures, checks;

static int selftest(void)
{
    extern void fg_abi_a64_good(void), fg_abi_a64_bad_x19(void), fg_abi_a64_bad_x28(void),
        fg_abi_a64_bad_x29(void), fg_abi_a64_bad_x18(void), fg_abi_a64_bad_d8(void), fg_abi_a64_bad_d15(void),
        fg_abi_a64_bad_stack(void);
    static const struct {
        const char *name;
        void (*fn)(void);
        uint64_t want;
    } cases[] = {
        {"good", fg_abi_a64_good, 0},
        {"x19", fg_abi_a64_bad_x19, 1u << 0},
        {"x28", fg_abi_a64_bad_x28, 1u << 9},
        {"x29", fg_abi_a64_bad_x29, 1u << 10},
        {"x18", fg_abi_a64_bad_x18, 1u << 11},
        {"d8", fg_abi_a64_bad_d8, 1u << 12},
        {"d15", fg_abi_a64_bad_d15, 1u << 19},
        {"stack", fg_abi_a64_bad_stack, 1u << 21},
    };
    unsigned i, bad = 0;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t got = fg_abi_call_a64((const void *)cases[i].fn, 0, 0, 0);
        printf("selftest %-6s mask %#llx (want %#llx)\n", cases[i].name, (unsigned long long)got,
               (unsigned long long)cases[i].want);
        bad += got != cases[i].want;
    }
    return bad ? 1 : 0;
}

#if C(HAVE_AARCH64_ASM)
struct kernel {
    const char *name;
    const void *fn;
    void (*ref2)(uint64_t *, const uint64_t *);                   /* one input */
    void (*ref3)(uint64_t *, const uint64_t *, const uint64_t *); /* two inputs */
    int in_words, out_words;
    int fp2; /* an Fp2 kernel: a, b and r are 2N words (c0, c1) */
};
#define B_WORDS(k) ((k)->fp2 ? 2 * N : N)

#if C(HAVE_FP2) && (C(HAVE_FP2_MUL_AARCH64) || C(HAVE_FP2_SQR_AARCH64))
#include "fg_fp2_reference.h"

static void fp2_sqr_reference(uint64_t *out, const uint64_t *a)
{
    fp2_mul_reference(out, a, a);
}
#endif

static void element(uint64_t x[N])
{
    FE e;
    fgt_element(&e);
    if (rnd() % 4 == 0) { /* p - 1 */
        F(from_u64)(&e, 1);
        F(neg)(&e, &e);
    }
    memcpy(x, e.limb, W);
}

/* one call of k on inputs a (in_words), b (N) placed at in/in2, output at out */
static void check_call(const struct kernel *k, uint64_t *out, uint64_t *in, uint64_t *in2, const uint64_t *want,
                       const char *how)
{
    uint64_t mask = fg_abi_call_a64(k->fn, (uint64_t)(uintptr_t)out, (uint64_t)(uintptr_t)in,
                                    (uint64_t)(uintptr_t)in2);
    uint64_t got[2 * N];
    checks++;
    memcpy(got, out, 8 * (size_t)k->out_words);
    if (mask != 0 || memcmp(got, want, 8 * (size_t)k->out_words) != 0) {
        if (failures++ < 20)
            fprintf(stderr, "FAIL %s %s (%s): ABI mask %#llx, result %s\n", STR(FG_FIELD), k->name, how,
                    (unsigned long long)mask, memcmp(got, want, 8 * (size_t)k->out_words) ? "wrong" : "right");
    }
}

static void run_kernel(const struct kernel *k, unsigned long count)
{
    unsigned long it;
    for (it = 0; it < count; it++) {
        uint64_t a[2 * N], b[2 * N], want[2 * N];
        unsigned off, front;
        element(a);
        element(b);
        if (k->fp2) { /* the second halves */
            element(a + N);
            element(b + N);
        } else if (k->in_words == 2 * N) { /* redc: t = a product, within its bound */
            F(mul_wide_c)(a, b, b);
        }
        if (k->ref3)
            k->ref3(want, a, b);
        else
            k->ref2(want, a);
        for (front = 0; front < 2; front++)
            for (off = 0; off < 8; off++) {
                fg_guard go, ga, gb;
                size_t osz = 8 * (size_t)k->out_words + off, isz = 8 * (size_t)k->in_words + off;
                uint8_t *o = front ? fg_guard_alloc_front(&go, osz) : fg_guard_alloc(&go, osz);
                uint8_t *x = front ? fg_guard_alloc_front(&ga, isz) : fg_guard_alloc(&ga, isz);
                size_t bsz = 8 * (size_t)B_WORDS(k) + off;
                uint8_t *y = front ? fg_guard_alloc_front(&gb, bsz) : fg_guard_alloc(&gb, bsz);
                uint64_t *po, *px, *py;
                char how[64];
                if (!o || !x || !y) {
                    fprintf(stderr, "guard allocation failed\n");
                    exit(2);
                }
                /* misaligned by off: at the front the object starts off bytes in */
                po = (uint64_t *)(void *)(front ? o + off : o);
                px = (uint64_t *)(void *)(front ? x + off : x);
                py = (uint64_t *)(void *)(front ? y + off : y);
                memcpy(px, a, 8 * (size_t)k->in_words);
                memcpy(py, b, 8 * (size_t)B_WORDS(k));
                snprintf(how, sizeof how, "%s guard, offset %u", front ? "front" : "end", off);
                check_call(k, po, px, py, want, how);
                fg_guard_free(&go);
                fg_guard_free(&ga);
                fg_guard_free(&gb);
            }
        /* aliasing: the result over an input (and, for squarings, a == b) */
        {
            uint64_t buf[4 * N];
            if (k->out_words <= k->in_words || k->out_words == N) {
                memcpy(buf, a, 8 * (size_t)k->in_words);
                memcpy(buf + 2 * N, b, 8 * (size_t)B_WORDS(k));
                check_call(k, buf, buf, buf + 2 * N, want, "r == a");
            }
            if (k->ref3 && k->out_words == B_WORDS(k)) {
                memcpy(buf, a, 8 * (size_t)k->in_words);
                memcpy(buf + 2 * N, b, 8 * (size_t)B_WORDS(k));
                check_call(k, buf + 2 * N, buf, buf + 2 * N, want, "r == b");
                uint64_t w2[2 * N];
                k->ref3(w2, a, a);
                memcpy(buf, a, 8 * (size_t)k->in_words);
                check_call(k, buf, buf, buf, w2, "r == a == b");
            }
            if (k->in_words == 2 * N && !k->fp2) { /* r inside t: its upper half */
                memcpy(buf, a, 16 * (size_t)N);
                check_call(k, buf + N, buf, NULL, want, "r == t + N");
            }
            if (k->out_words == 2 * N && !k->fp2) { /* t over a (its low half), then its upper half */
                memcpy(buf, a, W);
                memcpy(buf + 3 * N, b, W);
                check_call(k, buf, buf, buf + 3 * N, want, "t over a");
                memcpy(buf + N, a, W);
                memcpy(buf + 3 * N, b, W);
                check_call(k, buf, buf + N, buf + 3 * N, want, "t over a, shifted");
            }
        }
    }
}
#endif

int main(int argc, char **argv)
{
    unsigned long count = 50;
    int i;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--selftest"))
            return selftest();
        if (!strcmp(argv[i], "--count") && i + 1 < argc)
            count = strtoul(argv[++i], NULL, 0);
    }
#if C(HAVE_AARCH64_ASM)
    {
        static const struct kernel ks[] = {
            {"mul", (const void *)F(mul_aarch64), NULL, F(mul_c), N, N, 0},
            {"sqr", (const void *)F(sqr_aarch64), F(sqr_c), NULL, N, N, 0},
            {"mul_wide", (const void *)F(mul_wide_aarch64), NULL, F(mul_wide_c), N, 2 * N, 0},
            {"sqr_wide", (const void *)F(sqr_wide_aarch64), F(sqr_wide_c), NULL, N, 2 * N, 0},
            {"redc", (const void *)F(redc_aarch64), F(redc_c), NULL, 2 * N, N, 0},
#if C(HAVE_LAZY)
            {"mul_lazy", (const void *)F(mul_lazy_aarch64), NULL, F(mul_lazy_c), N, N, 0},
            {"sqr_lazy", (const void *)F(sqr_lazy_aarch64), F(sqr_lazy_c), NULL, N, N, 0},
#endif
#if C(HAVE_FP2) && C(HAVE_FP2_MUL_AARCH64)
            {"fp2_mul", (const void *)F(fp2_mul_aarch64), NULL, fp2_mul_reference, 2 * N, 2 * N, 1},
#endif
#if C(HAVE_FP2) && C(HAVE_FP2_SQR_AARCH64)
            {"fp2_sqr", (const void *)F(fp2_sqr_aarch64), fp2_sqr_reference, NULL, 2 * N, 2 * N, 1},
#endif
        };
        unsigned j;
        rng_state = 0x5eed;
        for (j = 0; j < sizeof ks / sizeof ks[0]; j++)
            run_kernel(&ks[j], count);
        printf("%s aarch64 abi: %lu checks, %lu failures\n", STR(FG_FIELD), checks, failures);
        return failures ? 1 : 0;
    }
#else
    printf("%s: no aarch64 kernels in this build: skipped\n", STR(FG_FIELD));
    return 77;
#endif
}
