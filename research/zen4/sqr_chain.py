# SPDX-License-Identifier: MIT OR Apache-2.0
"""Repeated squaring x = x^2, k times: what a kernel looping in registers
would save over k calls of the shipped one (research/zen4/README.md,
"Repeated squaring in registers"). A measurement aid, not built by CMake.

    /usr/bin/python3 sqr_chain.py [K]     (from this directory; K = 250)

Takes fg_p25519_sqr_adx from ../../generated/p25519/fg_p25519_x86_64.S
and writes into a temporary directory three functions f(r, a, k), r = a^(2^k):
  calls  k calls of the shipped kernel (r = a first, then r = r^2);
  loop   the kernel's body once, in a loop: the four input words move from
         the output registers to the input registers (no stores, loads,
         pushes, pops, call or return between squarings), the canonical
         tail kept, r stored once at the end;
  lazy   loop with the canonical tail replaced by the two-step fold
         (result < 2^256, not canonical: the chain's value differs, which
         does not change its timing; the code is constant-time).
It checks loop == calls, then times the three interleaved (TSC ticks per
squaring, medians of 301 rounds, three repetitions) on cpu 1.
The splice points are the text of the generated kernel at 657e54f (the
first MULX's input loads, the tail's IMUL by 38, the four output stores);
the script stops if they have moved."""
import os
import re
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
K = int(sys.argv[1]) if len(sys.argv) > 1 else 250
src = open(os.path.join(here, "../../generated/p25519/fg_p25519_x86_64.S")).read()
i = src.index("\nfg_p25519_sqr_adx:\n")
body = src[i + 1:src.index("\tret", i)].split("\n")[1:]
body = [l for l in body if l and not l.startswith("#")]
pushes = [l for l in body if l.startswith("push")]
pops = [l for l in body if l.startswith("pop")]
core = [l for l in body if not l.startswith(("push", "pop"))]

LOADS = ["\tmovq 8(%rsi), %rcx", "\tmovq 16(%rsi), %r8", "\tmovq 24(%rsi), %r9", "\tmovq 0(%rsi), %rdx"]
STORES = ["\tmovq %r10, 0(%rdi)", "\tmovq %rax, 8(%rdi)", "\tmovq %rsi, 16(%rdi)", "\tmovq %r12, 24(%rdi)"]
if core[:4] != LOADS or core[-4:] != STORES or "\timulq $38, %r11, %r11" not in core:
    sys.exit("sqr_chain.py: fg_p25519_sqr_adx no longer has the text this splice expects")
mid = core[4:-4]
# output words (r10, rax, rsi, r12) become the next input (rdx, rcx, r8, r9)
back = ["\tmovq %r10, %rdx", "\tmovq %rax, %rcx", "\tmovq %rsi, %r8", "\tmovq %r12, %r9"]
out = ["\tmovq %rdx, 0(%rdi)", "\tmovq %rcx, 8(%rdi)", "\tmovq %r8, 16(%rdi)", "\tmovq %r9, 24(%rdi)"]
cut = mid.index("\timulq $38, %r11, %r11")
lazy_tail = ["\timulq $38, %r11, %r11", "\taddq %r11, %r10", "\tadcq $0, %rax", "\tadcq $0, %rsi",
             "\tadcq $0, %r12", "\tsbbq %r11, %r11", "\tandq $38, %r11", "\taddq %r11, %r10"]


def looped(name, m):
    # k (rdx) is kept in the red zone: a leaf, and the body touches no stack
    return ["\t.globl %s" % name, "%s:" % name] + pushes + ["\tmovq %rdx, -8(%rsp)"] + LOADS + \
           ["1:"] + m + back + ["\tdecq -8(%rsp)", "\tjnz 1b"] + out + pops + ["\tret"]


asm = [".text"] + looped("chain_loop", mid) + looped("chain_lazy", mid[:cut] + lazy_tail) + \
      ['.section .note.GNU-stack,"",@progbits']
harness = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
void fg_p25519_sqr_adx(uint64_t *, const uint64_t *);
void chain_loop(uint64_t *, const uint64_t *, uint64_t);
void chain_lazy(uint64_t *, const uint64_t *, uint64_t);
static __attribute__((noinline)) void chain_calls(uint64_t *r, const uint64_t *a, uint64_t k)
{ fg_p25519_sqr_adx(r, a); while (--k > 0) fg_p25519_sqr_adx(r, r); }
static int cmp(const void *x, const void *y) { double a = *(const double *)x, b = *(const double *)y; return (a > b) - (a < b); }
static uint64_t tick(void) { unsigned aux; _mm_lfence(); uint64_t t = __rdtscp(&aux); _mm_lfence(); return t; }
int main(void)
{
    static void (*const f[3])(uint64_t *, const uint64_t *, uint64_t) = {chain_calls, chain_loop, chain_lazy};
    uint64_t a[4] = {0x0123456789abcdefull, 0xfedcba9876543210ull, 0x0f0f0f0f0f0f0f0full, 0x1234123412341234ull};
    uint64_t r[3][4];
    double t[3][301];
    for (int j = 0; j < 3; j++) f[j](r[j], a, K);
    if (memcmp(r[0], r[1], 32)) { puts("loop != calls"); return 1; }
    for (int rep = 0; rep < 3; rep++) {
        for (int i = 0; i < 301; i++)
            for (int j = 0; j < 3; j++) {
                int jj = (i + j) % 3; /* rotate the order round by round */
                uint64_t t0 = tick();
                f[jj](r[jj], a, K);
                t[jj][i] = (double)(tick() - t0) / K;
            }
        for (int j = 0; j < 3; j++) qsort(t[j], 301, sizeof(double), cmp);
        printf("ticks per squaring: calls %.2f  loop %.2f (%.3f)  lazy %.2f (%.3f)\n", t[0][150], t[1][150],
               t[1][150] / t[0][150], t[2][150], t[2][150] / t[0][150]);
    }
    return 0;
}
""".replace("K)", "%dull)" % K).replace("/ K;", "/ %d;" % K)
with tempfile.TemporaryDirectory() as d:
    open(os.path.join(d, "loop.S"), "w").write("\n".join(asm) + "\n")
    open(os.path.join(d, "h.c"), "w").write(harness)
    gas = os.path.join(here, "../../generated/p25519/fg_p25519_x86_64.S")
    subprocess.run(["cc", "-O2", "-o", os.path.join(d, "h"), os.path.join(d, "h.c"),
                    os.path.join(d, "loop.S"), gas], check=True)
    subprocess.run(["taskset", "-c", "1", os.path.join(d, "h")], check=True)
