// SPDX-License-Identifier: MIT OR Apache-2.0
/* The checked build (FIELDGEN_VERIFY, docs/verify.md): each public entry point
 * called with an input outside its contract must abort with a message naming
 * the function and the argument; inputs at the edge of the contract must not.
 * Issue 53 defect 7 names the cases this started from: p503 sqr(2^512 - 1) and
 * redc(2^1024 - 1), p25519 to_bytes(a >= p), cmov with cond = 2.
 *
 * Compiled once per field with -DFG_FIELD=name -DFG_FIELD_UC=NAME against the
 * library built with FG_VERIFY; every case runs in a child process.
 * Prints "N passed, N failed"; exit 0 when all pass. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fg_test_field.h"

#if !defined(FG_VERIFY)
#error "test_verify is built only in the checked build (FIELDGEN_VERIFY=ON)"
#endif

#define FE2 CAT(FE, _fp2)
/* LAZY: a Montgomery field's lazy bound, operands below 2p; LAZY_PM: a
 * pseudo-Mersenne field's lazy range, every limb pattern (nothing to check
 * for the ops that take it: mul, sqr, mul_wide, sqr_wide, the lazy ops, cmov
 * and cswap) */
#define LAZY (C(HAVE_LAZY) && C(MONTGOMERY))
#define LAZY_PM (C(HAVE_LAZY) && !C(MONTGOMERY))

static FE bad, edge, zero_e, ok_e; /* bad: not allowed anywhere; edge: p - 1 */
#if LAZY
static FE bad_lazy, edge_lazy; /* 2p and 2p - 1 */
#endif

/* x = limbs of the integer p * k + d (k in {1, 2}, d in {-1, 0}), in n limbs */
static void p_times(uint64_t *x, int k, int d)
{
    unsigned __int128 carry = 0;
    int i;
    for (i = 0; i < N; i++) {
        carry += (unsigned __int128)F(P)[i] * (unsigned)k;
        x[i] = (uint64_t)carry;
        carry >>= 64;
    }
    if (d < 0) { /* subtract one */
        for (i = 0; i < N; i++)
            if (x[i]-- != 0)
                break;
    }
}

typedef void (*case_fn)(void);
static int passed, failed;

/* Runs fn in a child: want_abort = 1 expects SIGABRT and `needle` on stderr,
 * 0 expects a normal exit. */
static void run(const char *what, case_fn fn, int want_abort, const char *needle)
{
    int fds[2], status;
    char buf[2048];
    ssize_t n, total = 0;
    pid_t pid;
    fflush(stdout);
    if (pipe(fds) != 0)
        abort();
    pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        fn();
        _exit(0);
    }
    close(fds[1]);
    while ((n = read(fds[0], buf + total, sizeof buf - 1 - (size_t)total)) > 0)
        total += n;
    buf[total] = '\0';
    close(fds[0]);
    waitpid(pid, &status, 0);
    int aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
    int ok = want_abort ? aborted && strstr(buf, needle) != NULL : WIFEXITED(status) && WEXITSTATUS(status) == 0;
    printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what, ok ? "" : ": ", ok ? "" : (buf[0] ? buf : "(no message)"));
    ok ? passed++ : failed++;
}

#define NAME(op) STR(F(op))
#define MSG(op, arg) "fieldgen VERIFY: " NAME(op) ": " arg " "

static FE r;
static uint64_t t[2 * N];
static uint8_t bytes[C(BYTES)];

/* outside the contract */
static void add_bad(void) { F(add)(&r, &bad, &ok_e); }
static void sub_bad(void) { F(sub)(&r, &ok_e, &bad); }
static void neg_bad(void) { F(neg)(&r, &bad); }
static void mul_small_bad(void) { F(mul_small)(&r, &bad, 3); }
static void to_bytes_bad(void) { F(to_bytes)(bytes, &bad); }
static void eq_bad(void) { (void)F(eq)(&ok_e, &bad); }
static void is_zero_bad(void) { (void)F(is_zero)(&bad); }
static void inv_bad(void) { (void)F(inv)(&r, &bad); }
static void sqrt_bad(void) { (void)F(sqrt)(&r, &bad); }
static void is_square_bad(void) { (void)F(is_square)(&bad); }
static void cmov_cond2(void) { r = ok_e; F(cmov)(&r, &ok_e, 2); }
static void cmov_r_bad(void) { r = bad; F(cmov)(&r, &ok_e, 0); }
static void cswap_cond_neg(void) { FE a = ok_e, b = ok_e; F(cswap)(&a, &b, -1); }
static void cswap_b_bad(void) { FE a = ok_e, b = bad; F(cswap)(&a, &b, 1); }
static void select_bad(void)
{
    FE table[3] = {ok_e, bad, ok_e};
    F(select)(&r, table, 3, 0);
}
static void inv_batch_bad(void)
{
    FE in[3] = {ok_e, ok_e, bad}, out[3], scratch[3];
    F(inv_batch)(out, in, 3, scratch);
}
/* the mul family: 2p where the lazy bound holds (operands below 2p are in
 * contract there), else p; and every limb all ones (the sqr(2^512 - 1)) */
static FE *mul_bound(void)
{
#if LAZY
    return &bad_lazy;
#else
    return &bad;
#endif
}
static void mul_bad(void) { F(mul)(&r, &ok_e, mul_bound()); }
static void sqr_ones(void)
{
    FE a;
    memset(&a, 0xff, sizeof a);
    F(sqr)(&r, &a);
}
#if !LAZY_PM
static void sqr_bound(void) { F(sqr)(&r, mul_bound()); }
#endif
static void mul_wide_bad(void) { F(mul_wide)(t, mul_bound(), &ok_e); }
static void sqr_wide_bad(void) { F(sqr_wide)(t, mul_bound()); }
static void redc_ones(void)
{
    memset(t, 0xff, sizeof t);
    F(redc)(&r, t);
}
#if LAZY
static void mul_lazy_bad(void) { F(mul_lazy)(&r, &bad_lazy, &ok_e); }
static void canon_bad(void) { F(canon)(&r, &bad_lazy); }
#endif
#if LAZY_PM
/* every op of the lazy range on its largest value, 2^(64n) - 1: in contract */
static void lazy_range_top(void)
{
    FE a, b;
    memset(&a, 0xff, sizeof a);
    b = a;
    F(mul)(&r, &a, &b);
    F(sqr)(&r, &a);
    F(mul_wide)(t, &a, &b);
    F(sqr_wide)(t, &a);
    F(mul_lazy)(&r, &a, &b);
    F(sqr_lazy)(&r, &a);
    F(add_lazy)(&r, &a, &b);
    F(sub_lazy)(&r, &a, &b);
    F(mul_small_lazy)(&r, &a, 0xffffffffu);
    F(canon)(&r, &a);
    F(cmov)(&a, &b, 1);
    F(cswap)(&a, &b, 1);
}
/* a lazy value where a canonical one is wanted still aborts */
static void add_lazy_value(void)
{
    FE a;
    memset(&a, 0xff, sizeof a);
    F(add)(&r, &a, &ok_e);
}
#endif

/* at the edge of the contract: must run */
static void edges(void)
{
    FE a = edge, b = edge, table[2] = {edge, zero_e};
    F(add)(&r, &edge, &edge);
    F(mul)(&r, &edge, &edge);
    F(sqr)(&r, &edge);
    F(to_bytes)(bytes, &edge);
    F(cmov)(&r, &edge, 1);
    F(cmov)(&r, &edge, 0);
    F(cswap)(&a, &b, 1);
    F(select)(&r, table, 2, 5); /* idx past n: defined (r = 0) */
    (void)F(inv)(&r, &zero_e);
    F(mul_wide)(t, &edge, &edge);
    F(redc)(&r, t);
    p_times(t + N, 1, -1); /* t = (p - 1) * R + 0: the largest high half allowed */
    memset(t, 0xff, N * sizeof t[0]);
    F(redc)(&r, t);
#if LAZY
    F(mul)(&r, &edge_lazy, &edge_lazy);
    F(mul_lazy)(&r, &edge_lazy, &edge_lazy);
    F(canon)(&r, &edge_lazy);
#endif
}

#if C(HAVE_FP2)
static FE2 bad2, ok2;
static FE2 r2;
static void fp2_mul_bad(void) { F(fp2_mul)(&r2, &ok2, &bad2); }
static void fp2_sqr_bad(void) { F(fp2_sqr)(&r2, &bad2); }
static void fp2_add_bad(void) { F(fp2_add)(&r2, &bad2, &ok2); }
static void fp2_inv_bad(void) { (void)F(fp2_inv)(&r2, &bad2); }
static void fp2_to_bytes_bad(void)
{
    uint8_t out[C(FP2_BYTES)];
    F(fp2_to_bytes)(out, &bad2);
}
static void fp2_mul_fp_bad(void) { F(fp2_mul_fp)(&r2, &ok2, &bad); }
static void fp2_cmov_cond2(void) { r2 = ok2; F(fp2_cmov)(&r2, &ok2, 2); }
static void fp2_edges(void)
{
    FE2 e;
    e.c0 = edge;
    e.c1 = edge;
    F(fp2_mul)(&r2, &e, &e);
    F(fp2_sqr)(&r2, &e);
    F(fp2_cmov)(&r2, &e, 1);
}
#endif

int main(void)
{
    p_times(bad.limb, 1, 0);   /* p */
    p_times(edge.limb, 1, -1); /* p - 1 */
    F(zero)(&zero_e);
    F(from_u64)(&ok_e, 12345);
#if LAZY
    p_times(bad_lazy.limb, 2, 0);
    p_times(edge_lazy.limb, 2, -1);
#endif
    printf("%s, level %s\n", STR(FG_FIELD), fg_isa_name(fg_isa_active()));
    run("add(p, a)", add_bad, 1, MSG(add, "a"));
    run("sub(a, p)", sub_bad, 1, MSG(sub, "b"));
    run("neg(p)", neg_bad, 1, MSG(neg, "a"));
    run("mul_small(p, 3)", mul_small_bad, 1, MSG(mul_small, "a"));
    run("to_bytes(p)", to_bytes_bad, 1, MSG(to_bytes, "a"));
    run("eq(a, p)", eq_bad, 1, MSG(eq, "b"));
    run("is_zero(p)", is_zero_bad, 1, MSG(is_zero, "a"));
    run("inv(p)", inv_bad, 1, MSG(inv, "a"));
    run("sqrt(p)", sqrt_bad, 1, MSG(sqrt, "a"));
    run("is_square(p)", is_square_bad, 1, MSG(is_square, "a"));
    run("cmov cond = 2", cmov_cond2, 1, MSG(cmov, "cond"));
    run("cswap cond = -1", cswap_cond_neg, 1, MSG(cswap, "cond"));
    run("select, an entry = p", select_bad, 1, MSG(select, "table"));
    run("inv_batch, an input = p", inv_batch_bad, 1, MSG(inv_batch, "in"));
#if LAZY_PM
    /* the lazy range: these operands are in contract */
    run("cmov r = p: in the lazy range", cmov_r_bad, 0, "");
    run("cswap b = p: in the lazy range", cswap_b_bad, 0, "");
    run("mul(a, p): in the lazy range", mul_bad, 0, "");
    run("sqr(2^(64n) - 1): in the lazy range", sqr_ones, 0, "");
    run("mul_wide(p, a): in the lazy range", mul_wide_bad, 0, "");
    run("sqr_wide(p): in the lazy range", sqr_wide_bad, 0, "");
    run("every op of the lazy range at 2^(64n) - 1", lazy_range_top, 0, "");
    run("add(2^(64n) - 1, a): a lazy value where a canonical one is wanted", add_lazy_value, 1, MSG(add, "a"));
#else
    run("cmov r = p", cmov_r_bad, 1, MSG(cmov, "r"));
    run("cswap b = p", cswap_b_bad, 1, MSG(cswap, "b"));
    run(LAZY ? "mul(a, 2p)" : "mul(a, p)", mul_bad, 1, MSG(mul, "b"));
    run("sqr(2^(64n) - 1)", sqr_ones, 1, MSG(sqr, "a"));
    run(LAZY ? "sqr(2p)" : "sqr(p)", sqr_bound, 1, MSG(sqr, "a"));
    run("mul_wide at the bound", mul_wide_bad, 1, MSG(mul_wide, "a"));
    run("sqr_wide at the bound", sqr_wide_bad, 1, MSG(sqr_wide, "a"));
#endif
#if C(MONTGOMERY)
    run("redc(2^(128n) - 1)", redc_ones, 1, MSG(redc, "t"));
#else
    run("redc(2^(128n) - 1): any t is in contract (pseudo-Mersenne)", redc_ones, 0, "");
#endif
#if LAZY
    run("mul_lazy(2p, a)", mul_lazy_bad, 1, MSG(mul_lazy, "a"));
    run("canon(2p)", canon_bad, 1, MSG(canon, "a"));
#endif
    run("the edges of every contract (p - 1, 2p - 1, cond 0 and 1, redc's largest t)", edges, 0, "");
#if C(HAVE_FP2)
    ok2.c0 = ok_e;
    ok2.c1 = edge;
    bad2.c0 = ok_e;
    bad2.c1 = bad;
    run("fp2_mul(a, (x, p))", fp2_mul_bad, 1, MSG(fp2_mul, "b"));
    run("fp2_sqr((x, p))", fp2_sqr_bad, 1, MSG(fp2_sqr, "a"));
    run("fp2_add((x, p), b)", fp2_add_bad, 1, MSG(fp2_add, "a"));
    run("fp2_inv((x, p))", fp2_inv_bad, 1, MSG(fp2_inv, "a"));
    run("fp2_to_bytes((x, p))", fp2_to_bytes_bad, 1, MSG(fp2_to_bytes, "a"));
    run("fp2_mul_fp(a, p)", fp2_mul_fp_bad, 1, MSG(fp2_mul_fp, "b"));
    run("fp2_cmov cond = 2", fp2_cmov_cond2, 1, MSG(fp2_cmov, "cond"));
    run("fp2 edges", fp2_edges, 0, "");
#endif
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
