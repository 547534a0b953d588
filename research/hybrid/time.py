#!/usr/bin/python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Time the hybrid Fp2 kernels against the kernels they replace, in one process.

    research/hybrid/time.py [--config FIELDS_TOML] [--spread S] [--set NAME=VALUE]
                            [--all] FIELD...

For each FIELD (of fields.toml, or --config's file) it generates the field's
kernels as gen/fieldgen does (cli._kernels; with --spread, the hybrid's
x86_64_hybrid.SPREAD set first, with --set any of its module constants; with --all, the hybrid generated for each op
it supports even where x86_64_hybrid.chosen says no), writes a harness that
  - checks the hybrid mul and sqr against the scalar Zen form (or the adx
    kernel) on 100,000 random and edge inputs, r aliasing a and separate,
  - times, interleaved round by round (201 rounds of 1000 calls), the Fp
    mul, the scalar Fp2 kernel, the IFMA Fp2 kernel where the field has one
    and the hybrid: latency (each output the next input) and throughput
    (8 independent calls),
and prints the median TSC ticks per call. Each round calls from a stack 64
bytes deeper than the last (64 depths, 4 KiB) and moves the chained operand
to another cache line of a 4 KiB buffer, so the medians cover the
placements of frames, operands and tables modulo 4 KiB: one placement
alone moved p751's hybrid squaring by 30% and p610's IFMA kernels by 2x. Compare within one run only: the
ratios, not the ticks. Needs a Python with PeachPy (Debian's /usr/bin/python3,
the shebang), gcc, a CPU with
AVX-512 IFMA/VBMI, BMI2 and ADX; pins to cpu 1 with taskset when there.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "gen"))
from fg import analysis, cli, spec  # noqa: E402
from fg.targets import x86_64  # noqa: E402
from fg.targets.x86_64 import hybrid as x86_64_hybrid  # noqa: E402

HARNESS = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
#include <alloca.h>
#define N @N@
typedef void (*f3)(uint64_t *, const uint64_t *, const uint64_t *);
@DECLS@
static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static void elem(uint64_t *x) { for (int i = 0; i < N; i++) x[i] = rnd(); x[N - 1] >>= @SHIFT@; }
static uint64_t tsc(void) { _mm_lfence(); uint64_t t = __rdtsc(); _mm_lfence(); return t; }
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
#define IT 1000
#define ROUNDS 201
static uint64_t XBUF[512 + 2 * N], *X = XBUF, Y[2 * N], B[2 * N], T[8][2 * N];
struct k { const char *name; f3 fn; int sqr; double lat[ROUNDS], thr[ROUNDS]; };
@SQRWRAP@
static struct k K[] = {@KERNELS@};
#define NK (int)(sizeof K / sizeof K[0])
static double run(struct k *k, int thr)
{
    uint64_t t0 = tsc();
    if (!thr)
        for (int i = 0; i < IT; i++) k->fn(X, X, B);
    else
        for (int i = 0; i < IT / 8; i++)
            for (int j = 0; j < 8; j++) k->fn(T[j], Y, B);
    return (double)(tsc() - t0) / IT;
}
/* the call's stack 64 * (round % 64) bytes deeper and the chained operand on
   one of 64 cache lines of a 4 KiB buffer: over the rounds the kernels'
   frames, the operand and the constant tables meet at many offsets modulo
   4 KiB (one placement alone moved a kernel by 30% to 100%: research/aliasing) */
static __attribute__((noinline)) double run_at(struct k *k, int thr, int r)
{
    volatile char *pad = alloca(64 * (r % 64) + 1);
    pad[0] = 0;
    uint64_t *x = XBUF + 8 * ((r * 37) % 64);        /* the chained operand's line, too */
    memmove(x, X, sizeof(uint64_t) * 2 * N);
    X = x;
    return run(k, thr);
}
static int check(f3 ref, f3 fn, const char *name)
{
    for (int n = 0; n < 100000; n++) {
        uint64_t a[2 * N], b[2 * N], x[2 * N], y[2 * N], z[2 * N];
        elem(a), elem(a + N), elem(b), elem(b + N);
        if (n < 64)
            for (int i = 0; i < N; i++) {
                if (n & 1) a[i] = 0;
                if (n & 2) a[N + i] = 0;
                if (n & 4) b[i] = 0;
                if (n & 8) b[N + i] = 0;
            }
        ref(x, a, b), fn(y, a, b);
        memcpy(z, a, sizeof z), fn(z, z, b);
        if (memcmp(x, y, sizeof x) || memcmp(x, z, sizeof x)) {
            printf("MISMATCH %s at input %d\n", name, n);
            return 1;
        }
    }
    return 0;
}
int main(void)
{
@CHECKS@
    elem(X), elem(X + N), elem(Y), elem(Y + N), elem(B), elem(B + N);
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < NK; i++) K[i].lat[r] = run_at(&K[i], 0, r), K[i].thr[r] = run_at(&K[i], 1, r);
    printf("%-34s %10s %10s   (TSC ticks per call, medians of %d rounds, 64 stack depths)\n", "kernel", "latency",
           "throughput", ROUNDS);
    for (int i = 0; i < NK; i++) {
        qsort(K[i].lat, ROUNDS, sizeof(double), cmpd), qsort(K[i].thr, ROUNDS, sizeof(double), cmpd);
        printf("%-34s %10.1f %10.1f   [latency p10 %.1f, p90 %.1f]\n", K[i].name, K[i].lat[ROUNDS / 2],
               K[i].thr[ROUNDS / 2], K[i].lat[ROUNDS / 10], K[i].lat[ROUNDS - 1 - ROUNDS / 10]);
    }
    return 0;
}
"""


def field_text(cfg, name, spread, everything):
    fs = [f for f in spec.load(cfg) if f.name == name]
    if not fs:
        sys.exit("time.py: no field %s in %s" % (name, cfg))
    fa = x86_64.Kernels(analysis.analyze(fs[0]))  # the backends take a kernel set
    if spread is not None:
        x86_64_hybrid.SPREAD = spread
    if everything:
        x86_64_hybrid.chosen = lambda fa, op, text: x86_64_hybrid.supported(fa, op)
    return fa, cli._kernels(fa)


def harness(fa, text):
    name, n = fa.name, fa.n
    have = lambda sym: ("\n%s:" % sym) in text
    decls, kernels, wraps, checks = [], [], [], []
    mul = "fg_%s_mul_adx_zen" % name if have("fg_%s_mul_adx_zen" % name) else "fg_%s_mul_adx" % name
    decls.append("void %s(uint64_t *, const uint64_t *, const uint64_t *);" % mul)
    kernels.append('{"%s", %s, 0}' % (mul, mul))
    for op in ("mul", "sqr"):
        hyb = "fg_%s_fp2_%s_ifma_zen" % (name, op)
        if not have(hyb):
            continue
        ref = next(s for s in ("fg_%s_fp2_%s_adx_zen" % (name, op), "fg_%s_fp2_%s_adx" % (name, op)) if have(s))
        syms = [ref] + (["fg_%s_fp2_%s_ifma" % (name, op)] if have("fg_%s_fp2_%s_ifma" % (name, op)) else []) + [hyb]
        for sym in syms:
            if op == "mul":
                decls.append("void %s(uint64_t *, const uint64_t *, const uint64_t *);" % sym)
                kernels.append('{"%s", %s, 0}' % (sym, sym))
            else:
                decls.append("void %s(uint64_t *, const uint64_t *);" % sym)
                wraps.append("static void w_%s(uint64_t *r, const uint64_t *a, const uint64_t *b) "
                             "{ (void)b; %s(r, a); }" % (sym, sym))
                kernels.append('{"%s", w_%s, 1}' % (sym, sym))
        f = (lambda s: s) if op == "mul" else (lambda s: "w_" + s)
        checks.append('    if (check(%s, %s, "%s")) return 1;' % (f(ref), f(hyb), hyb))
    top = (fa.p >> (64 * (n - 1))).bit_length()
    return (HARNESS.replace("@N@", str(n)).replace("@SHIFT@", str(65 - top))
            .replace("@DECLS@", "\n".join(decls)).replace("@SQRWRAP@", "\n".join(wraps))
            .replace("@KERNELS@", ", ".join(kernels)).replace("@CHECKS@", "\n".join(checks)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("fields", nargs="+")
    ap.add_argument("--config", default=os.path.join(REPO, "fields.toml"))
    ap.add_argument("--spread", type=float)
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="set x86_64_hybrid.NAME (a number or None) before generating")
    ap.add_argument("--all", action="store_true", help="every op the field supports, chosen or not")
    args = ap.parse_args()
    pin = ["taskset", "-c", "1"] if shutil.which("taskset") else []
    for kv in args.set:
        key, val = kv.split("=", 1)
        if not hasattr(x86_64_hybrid, key):
            sys.exit("time.py: x86_64_hybrid has no %s" % key)
        setattr(x86_64_hybrid, key, None if val == "None" else float(val))
    for name in args.fields:
        fa, text = field_text(args.config, name, args.spread, args.all)
        if "_ifma_zen:" not in text:
            print("%s: no hybrid kernel (x86_64_hybrid.chosen; --all for every supported one)" % name)
            continue
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "k.S"), "w") as f:
                f.write(text + '\n.section .note.GNU-stack,"",%progbits\n')
            with open(os.path.join(d, "h.c"), "w") as f:
                f.write(harness(fa, text))
            exe = os.path.join(d, "h")
            subprocess.run(["gcc", "-O2", "-o", exe, os.path.join(d, "h.c"), os.path.join(d, "k.S")], check=True)
            print("%s (%d limbs), SPREAD %s%s" % (name, fa.n, x86_64_hybrid.SPREAD,
                                                "".join(", " + kv for kv in args.set)))
            sys.stdout.flush()
            subprocess.run(pin + [exe], check=True)


if __name__ == "__main__":
    main()
