#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""What a product row costs beside its MULX (research/ports/README.md, "Zen 3 again").

ports.c times blocks of independent instructions; this times the shape the
adx kernels are made of: rows of 8 MULX (rdx loaded per row, the other operand
from memory, a fresh zero/flag reset per row, the row's low word stored), each
row with N further instructions of one class beside its MULX, 8 rows a loop
iteration, so a kernel-sized window is in flight. Every figure is a median of
201 rounds in one process, divided by the time of the same rows with no
further instruction: the unit is a "MULX slot" (what one MULX of such a row
costs alone), which is stable within a process on a host whose clock is not.
The last rows add stores, loads or register moves to a product row (8 MULX,
16 ADCX/ADOX): what a kernel's memory traffic costs beside its MULX.

With --kernels, the shipped kernels of a built tree (build/libfieldgen.a) and
OpenSSL's bn_mul_mont (libcrypto.a) are timed in the same unit (chained:
x = f(x, b)), beside each kernel's count of MULX and of ALU instructions read
off its generated assembly (loads, stores, register moves, pushes and zeroing
XORs not counted) and of its stores and loads; 'model' sets the slots the
kernel took against its operations at the product row's rate plus its stores
and loads at their measured cost.

    python3 research/ports/rows.py [--kernels [BUILD_DIR]]

A measurement, not a test: nothing here is built by CMake.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WINDOW = ["r9", "r10", "r11", "r12", "r13", "r14", "r15", "rbx", "rbp"]

# one instruction of each class on accumulator word w; "dep" reads a MULX half
CLASSES = {
    "adx": lambda k, w: ("adcxq" if k % 2 == 0 else "adoxq") + " %%rsi,%%%s" % w,
    "dep": lambda k, w: ("adcxq %%rax,%%%s" if k % 2 == 0 else "adoxq %%rdi,%%%s") % w,
    "cf": lambda k, w: "adcxq %%rsi,%%%s" % w,
    "add": lambda k, w: "addq %%rsi,%%%s" % w,
    "adc": lambda k, w: "adcq %%rsi,%%%s" % w,
    "sbb": lambda k, w: "sbbq %%rsi,%%%s" % w,
    "cmov": lambda k, w: "cmovcq %%rsi,%%%s" % w,
    "shr": lambda k, w: "shrq $1,%%%s" % w,
    # beside a product row ("adx" + these): none touches an accumulator word, so
    # the row's dependencies stay as they are (rax and rdi are MULX outputs)
    "mov": lambda k, w: "movq %rsi,%rax",
    "load": lambda k, w: "movq %d(%%rsp),%%rdi" % (8 * (k % 8) + 64),
    "store": lambda k, w: "movq %%%s,%d(%%rsp)" % (w, 8 * (k % 6) + 64),
    "adxmem": lambda k, w: ("adcxq" if k % 2 == 0 else "adoxq") + " %d(%%rsp),%%%s" % (8 * (k % 6) + 64, w),
}

# (name, with MULX, class, N per row)
BLOCKS = [("8 MULX", True, "adx", 0)]
BLOCKS += [("8 MULX + %d ADCX/ADOX" % n, True, "adx", n) for n in (4, 8, 12, 16, 24)]
ROW = 6                                         # the block shaped like a kernel's product row
BLOCKS += [("8 MULX + 16 ADCX/ADOX on MULX halves", True, "dep", 16),
           ("8 MULX + 16 ADCX, one CF chain", True, "cf", 16)]
BLOCKS += [("8 MULX + 16 %s" % c.upper(), True, c, 16) for c in ("add", "adc", "sbb", "cmov", "shr")]
BLOCKS += [("16 %s alone" % ("ADCX/ADOX" if c == "adx" else c.upper()), False, c, 16)
           for c in ("adx", "add", "adc", "sbb", "cmov", "shr")]
# memory traffic and register moves beside a product row (8 MULX + 16 ADCX/ADOX):
# what the stores, loads and moves of a kernel cost on top of its MULX + ALU
BLOCKS += [("  + %d %s" % (n, c.upper() + "S"), True, "adx+" + c, n)
           for c in ("store", "load", "mov") for n in (8, 16)]
BLOCKS += [("  the 16 with a memory source", True, "adxmem", 16)]


def block_index(cls, n):
    """The index in BLOCKS of the block with MULX of class cls, n per row."""
    return next(i for i, b in enumerate(BLOCKS) if b[1:] == (True, cls, n))


BASE = block_index("adx", 16)                   # "8 MULX + 16 ADCX/ADOX": the rows below add to it
MEM = {c: block_index("adx+" + c, 16) for c in ("store", "load", "mov")}   # the +16 rows


def block_asm(idx, mulx, cls, n):
    out = [".globl rows_%d" % idx, ".type rows_%d,@function" % idx, "rows_%d:" % idx,
           "pushq %rbx", "pushq %rbp", "pushq %r12", "pushq %r13", "pushq %r14", "pushq %r15",
           "subq $128,%rsp", "movq %rdx,%r8", "movq %rdi,120(%rsp)", ".p2align 5", "1:"]
    win = WINDOW[:]
    for i in range(8):
        out += ["movq %d(%%rsi),%%rdx" % (8 * i), "xorq %rcx,%rcx"]
        k = 0
        for j in range(8):
            if mulx:
                out.append("mulxq %d(%%r8),%%rax,%%rdi" % (8 * j))
            # "adx+c": the product row's 16 ADCX/ADOX, then n of class c
            parts = [("adx", 16), (cls[4:], n)] if cls.startswith("adx+") else [(cls, n)]
            for c, m in parts:
                for _ in range(m // 8 + (j < m % 8)):
                    out.append(CLASSES[c](k, win[k % 9]))
                    k += 1
        out.append("movq %%%s,%d(%%rsp)" % (win[0], 8 * i))
        win = win[1:] + win[:1]
    out += ["decq 120(%rsp)", "jnz 1b", "addq $128,%rsp", "popq %r15", "popq %r14", "popq %r13",
            "popq %r12", "popq %rbp", "popq %rbx", "ret"]
    return "\n".join(out)


# the kernels timed with --kernels: (symbol, field, bn_mul_mont limbs and whether a = b)
KERNELS = [("fg_p256_mul_adx", "p256"), ("fg_p256_sqr_adx", "p256"),
           ("fg_p25519_mul_adx", "p25519"), ("fg_p25519_sqr_adx", "p25519"),
           ("fg_p503_mul_adx_zen", "p503"), ("fg_p503_sqr_adx_zen", "p503"),
           ("fg_p503_mul_wide_adx_zen", "p503"), ("fg_p503_redc_adx", "p503"),
           ("fg_p751_mul_adx_zen", "p751"), ("fg_p751_sqr_adx_zen", "p751"),
           ("fg_p503_fp2_mul_adx_zen", "p503"), ("fg_p503_fp2_sqr_adx_zen", "p503")]
PEERS = [("bn_mul_mont, 8 limbs", 8, False), ("bn_mul_mont, 8 limbs, a = b", 8, True),
         ("bn_mul_mont, 12 limbs", 12, False), ("bn_mul_mont, 12 limbs, a = b", 12, True)]


def count_ops(asm_path, symbol):
    """MULX/MUL/IMUL and ALU instructions of one generated kernel, as the
    generator counts them for the header (gen/fg/targets/x86_64/cost.py: _MULTS, _ALU),
    and its stores and loads (MOVs to and from memory; not the memory operands
    of MULX and of ALU instructions, nor pushes and pops)."""
    sys.path.insert(0, os.path.join(ROOT, "gen"))
    from fg.targets.x86_64 import cost as kernel_cost
    text = open(asm_path).read()
    stores = loads = 0
    for line in kernel_cost.body(text, symbol):
        mnemonic, _, operands = line.strip().partition(" ")
        if mnemonic.startswith("mov"):
            ops = [o.strip() for o in kernel_cost._OPERANDS.split(operands)]
            stores += "(" in ops[-1]
            loads += "(" in ops[0]
    return (kernel_cost.count(text, symbol, kernel_cost.MULTS), kernel_cost.count_alu(text, symbol),
            stores, loads)


def harness(nblocks, kernels, peers):
    h = ["#include <stdint.h>", "#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>",
         "#include <x86intrin.h>",
         "static inline uint64_t tsc(void) { _mm_lfence(); uint64_t t = __rdtsc(); _mm_lfence(); return t; }",
         "static int cmp(const void *a, const void *b) { double u = *(const double *)a, v = *(const double *)b;"
         " return u < v ? -1 : u > v; }",
         "typedef void (*row_fn)(long, const uint64_t *, const uint64_t *);",
         "typedef void (*kern_fn)(uint64_t *, const uint64_t *, const uint64_t *);"]
    h += ["void rows_%d(long, const uint64_t *, const uint64_t *);" % i for i in range(nblocks)]
    h += ["void %s(uint64_t *, const uint64_t *, const uint64_t *);" % k for k, _ in kernels]
    if peers:
        h += ["int bn_mul_mont(uint64_t *, const uint64_t *, const uint64_t *, const uint64_t *,"
              " const uint64_t *, int);",
              "static uint64_t NP[12], N0 = 1;"]
        for i, (_, n, same) in enumerate(peers):
            h.append("static void peer_%d(uint64_t *r, const uint64_t *a, const uint64_t *b) "
                     "{ bn_mul_mont(r, a, %s, NP, &N0, %d); }" % (i, "a" if same else "b", n))
    h.append("static row_fn rows[] = {%s};" % ", ".join("rows_%d" % i for i in range(nblocks)))
    kf = [k for k, _ in kernels] + ["peer_%d" % i for i in range(len(peers))]
    h.append("static kern_fn kerns[] = {%s};" % ", ".join(kf or ["0"]))
    h.append("""
enum { NR = %d, NK = %d, R = 201, ITER = 64, CALLS = 200 };
int main(void)
{
    static uint64_t a[24], b[24];
    static double t[NR + 2 * NK][R];
    for (int i = 0; i < 24; i++) { a[i] = 0x9e3779b97f4a7c15ull * (i + 1) >> 4; b[i] = ~a[i] >> 5; }
    %s
    for (int r = 0; r < R; r++) {
        for (int i = 0; i < NR; i++) {
            uint64_t t0 = tsc(); rows[i](ITER, a, b); t[i][r] = (double)(tsc() - t0) / (ITER * 64.0);
        }
        for (int k = 0; k < NK; k++) {
            uint64_t x[24]; memcpy(x, a, sizeof x);
            uint64_t t0 = tsc();
            for (int i = 0; i < CALLS; i++) kerns[k](x, x, b);
            t[NR + k][r] = (double)(tsc() - t0) / CALLS;
            static uint64_t y[8][24];
            t0 = tsc();
            for (int i = 0; i < CALLS; i++) kerns[k](y[i & 7], a, b);
            t[NR + NK + k][r] = (double)(tsc() - t0) / CALLS;
        }
    }
    for (int i = 0; i < NR + 2 * NK; i++) qsort(t[i], R, sizeof(double), cmp);
    double slot = t[0][R / 2];
    printf("MULX slot %%.3f TSC ticks\\n", slot);
    for (int i = 0; i < NR + 2 * NK; i++) printf("%%.2f\\n", t[i][R / 2] / slot);
    return 0;
}""" % (nblocks, len(kf), "for (int i = 0; i < 12; i++) NP[i] = ~0ull;" if peers else ""))
    return "\n".join(h)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernels", nargs="?", const=os.path.join(ROOT, "build"), metavar="BUILD_DIR",
                    help="also time the shipped kernels and bn_mul_mont (default build dir: build/)")
    ap.add_argument("--runs", type=int, default=1, help="processes (default 1)")
    args = ap.parse_args()
    kernels, peers, objs = [], [], []
    if args.kernels:
        lib = os.path.join(args.kernels, "libfieldgen.a")
        crypto = "/usr/lib/x86_64-linux-gnu/libcrypto.a"
        if not os.path.exists(lib):
            sys.exit("rows.py: %s not found (build the tree first)" % lib)
        kernels, objs = KERNELS, [lib]
        if os.path.exists(crypto):
            peers, objs = PEERS, objs + [crypto, "-lpthread", "-ldl"]
    work = tempfile.mkdtemp()
    try:
        with open(os.path.join(work, "rows.S"), "w") as f:
            f.write(".text\n" + "\n".join(block_asm(i, *b[1:]) for i, b in enumerate(BLOCKS))
                    + '\n.section .note.GNU-stack,"",%progbits\n')
        with open(os.path.join(work, "h.c"), "w") as f:
            f.write(harness(len(BLOCKS), kernels, peers))
        exe = os.path.join(work, "rows")
        subprocess.run(["cc", "-O2", os.path.join(work, "h.c"), os.path.join(work, "rows.S"), "-o", exe]
                       + objs, check=True)
        pin = ["taskset", "-c", "1"] if shutil.which("taskset") and os.cpu_count() > 1 else []
        runs = []
        for _ in range(args.runs):
            out = subprocess.run(pin + [exe], check=True, capture_output=True, text=True).stdout.split("\n")
            runs.append((out[0], [float(x) for x in out[1:] if x]))
    finally:
        shutil.rmtree(work)
    print("rows of 8 MULX (8 rows per iteration), per row, in MULX slots (8 MULX alone = 8)")
    print("".join("  " + r[0] for r in runs))
    for i, b in enumerate(BLOCKS):
        print("%-42s %s" % (b[0], "  ".join("%6.2f" % (8 * r[1][i]) for r in runs)))
    # what one store, load or register move adds beside a product row, in MULX slots
    extra = {c: [8 * (r[1][MEM[c]] - r[1][BASE]) / 16 for r in runs] for c in MEM}
    print("beside a product row, per instruction: " + "; ".join(
        "%s %s" % (c, " ".join("%+.2f" % x for x in extra[c])) for c in MEM) + " slots")
    if kernels:
        row = [r[1][ROW] for r in runs]         # a product row: 8 MULX, 16 ADCX/ADOX adding their halves
        rate = [24 / (8 * x) for x in row]
        nk = len(kernels) + len(peers)
        print("\nkernels and peers, MULX slots per call, chained (x = f(x, b)) / independent calls;"
              " ops = MULX + ALU instructions;"
              "\n'of row' = ops per slot over a product row's (8 MULX, 16 ADCX/ADOX adding their halves:"
              " %s ops per slot);"
              "\n'model' = ops at the row's rate plus the stores and loads (st, ld: MOVs to and from"
              " memory) at their cost beside a row, over the chained slots"
              % " ".join("%.2f" % x for x in rate))
        for j, (sym, field) in enumerate(kernels):
            m, alu, st, ld = count_ops(os.path.join(ROOT, "generated", field, "fg_%s_x86_64.S" % field), sym)
            v = [r[1][len(BLOCKS) + j] for r in runs]
            u = [r[1][len(BLOCKS) + nk + j] for r in runs]
            model = [(m + alu) / q + st * cs + ld * cl
                     for q, cs, cl in zip(rate, extra["store"], extra["load"])]
            print("%-26s mults %3d alu %3d ops %4d st %3d ld %3d  slots %s / %s  ops/slot %s  of row %s"
                  "  model %s" % (
                      sym, m, alu, m + alu, st, ld, " ".join("%5.1f" % x for x in v),
                      " ".join("%5.1f" % x for x in u), " ".join("%.2f" % ((m + alu) / x) for x in v),
                      " ".join("%.2f" % ((m + alu) / x / q) for x, q in zip(v, rate)),
                      " ".join("%.2f" % (y / x) for x, y in zip(v, model))))
        for j, (name, _, _) in enumerate(peers):
            v = [r[1][len(BLOCKS) + len(kernels) + j] for r in runs]
            u = [r[1][len(BLOCKS) + nk + len(kernels) + j] for r in runs]
            print("%-26s %33s %s / %s" % (name, "slots", " ".join("%5.1f" % x for x in v),
                                          " ".join("%5.1f" % x for x in u)))


if __name__ == "__main__":
    main()
