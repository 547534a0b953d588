#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""A hybrid p503 Fp mul, built by hand to be timed (research, not shipped).

    ./fpmul_proto.py [SPREAD [NAME [novec|nodep]]] > proto.S
    (environment: BCAST_MEM=1, SHARE_IDX=1: the two variants tried)

hyb_mul(r, a, b) = a b / 2^512 mod p, canonical, for p503 (8 limbs), r may
alias a or b:
  * vector half (AVX-512 IFMA): a_H b, a_H = a's top four limbs, as two
    numbers that need no carry resolution: X packs the low 52 bits of each
    radix-2^52 column sum and Y their high bits (both have non-overlapping
    digits, so packing to 64-bit words is permutes, shifts and ORs), stored
    to the stack;
  * scalar half (MULX, ADCX/ADOX): product rows a_0..a_3 times b with
    reduction rows 0..3, then X and Y added into columns 4..15 on the CF and
    OF chains, then reduction rows 4..7 (whose carries out of the top column
    travel to the next row in a carry word, the columns above being
    occupied), then the canonical subtraction.
The vector instructions up to the stores are spread evenly over the first
SPREAD of the scalar instructions before the merge. novec leaves the vector
half out (the scalar half's own speed; wrong results), nodep has it store
elsewhere (its cost without the dependency; wrong results).
fpmul_proto.c checks it against fg_p503_mul_adx_zen and times the two."""
import os
import sys

SPREAD = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
NAME = sys.argv[2] if len(sys.argv) > 2 else "hyb_mul"
NOVEC = len(sys.argv) > 3 and sys.argv[3] == "novec"
NODEP = len(sys.argv) > 3 and sys.argv[3] == "nodep"
BCAST_MEM = os.environ.get("BCAST_MEM") == "1"
SHARE_IDX = os.environ.get("SHARE_IDX") == "1"
p = 2**250 * 3**159 - 1
P = [(p >> (64 * i)) & (2**64 - 1) for i in range(8)]
P1 = [((p + 1) >> (64 * i)) & (2**64 - 1) for i in range(8)]
assert P1[:3] == [0, 0, 0]
M52 = 2**52 - 1

out = []
def e(s): out.append(s)

# ---------------- tables ----------------
tab = []
def q(name, vals):
    tab.append("\t.balign 64\n%s:\n" % name + "".join("\t.quad 0x%x\n" % (v % 2**64) for v in vals))
def b(name, vals):
    tab.append("\t.balign 64\n%s:\n" % name + "".join("\t.byte %s\n" % ",".join(str(x) for x in vals[i:i+16]) for i in range(0, 64, 16)))
# conversion: digit l of block f from bit 52(8f+l)
for f in range(2):
    idx, sh = [], []
    for l in range(8):
        bit = 52 * (8 * f + l); byte = bit // 8
        sh.append(bit % 8)
        idx += [min(byte + j, 63) if byte + j < 64 else 0 for j in range(8)]
    b("H_IDX%d" % f, idx); q("H_SH%d" % f, sh)
# keep-mask for block 1 of b: bytes with source index < 64 (8 digits)
km = 0
for l in range(8):
    byte = 52 * (8 + l) // 8
    for j in range(8):
        if byte + j < 64: km |= 1 << (8 * l + j)
q("H_KB1", [km])
q("H_M52", [M52])
for i in range(5): q("H_BC%d" % i, [i] * 8)
# packing
for t in range(3):
    for v in range(2):
        idx, sh = [], []
        for w in range(8 * v, 8 * v + 8):
            k = 64 * w // 52; r = 64 * w - 52 * k
            idx.append((k + t) & 15)
            sh.append([r, 52 - r, 104 - r if 104 - r < 64 else 64][t])
        q("H_PI%d%d" % (t, v), idx); q("H_PS%d%d" % (t, v), sh)
q("H_P1", P1[3:])
q("H_P", P[3:])

# ---------------- vector half (list of lines) ----------------
V = []
def v(s): V.append(s)
# stack: X at 0..95, Y at 96..191 (words for columns 4..15), spill C13..15 at 192..215, rdi at 216
XO, YO, CO = 0, 96, 192
v("vmovdqu64 32(%rsi), %ymm16")                     # a_H, upper lanes zero
v("vmovdqa64 H_IDX0(%rip), %zmm30")
v("vpermb %zmm16, %zmm30, %zmm16")                # a digits 0..4 (bytes >= 32 are zero)
v("vpsrlvq H_SH0(%rip), %zmm16, %zmm16")
v("vpandq H_M52(%rip){1to8}, %zmm16, %zmm16")
v("vpermb (%r8), %zmm30, %zmm17")                 # b digits 0..7
v("vmovdqa64 H_IDX1(%rip), %zmm31")
v("kmovq H_KB1(%rip), %k1")
v("vpermb (%r8), %zmm31, %zmm18%{%k1%}%{z%}".replace("%{", "{").replace("%}", "}"))
v("vpsrlvq H_SH0(%rip), %zmm17, %zmm17")
v("vpsrlvq H_SH1(%rip), %zmm18, %zmm18")
v("vpandq H_M52(%rip){1to8}, %zmm17, %zmm17")
v("vpandq H_M52(%rip){1to8}, %zmm18, %zmm18")
# a_H digits 0..4 only: lanes >= 5 of zmm16 hold digit bits of zero bytes -> zero already (bytes >= 32 zero)
# b block 1: digits 8, 9 (lanes 2..7 must be zero: digits 10.. come from bytes >= 65 -> masked)
v("vpxorq %zmm19, %zmm19, %zmm19")                # Z
# shifted b: x0[s] = zmm20+s, x1[s] = zmm26+s ... registers: x0: 20..25 (s 0..5 with 20 = b0), x1: 26..31? 31 used -> reuse
# s=0: x0 = zmm17, x1 = zmm18
X0 = {0: "%zmm17"}; X1 = {0: "%zmm18"}
regs = ["%%zmm%d" % i for i in (20, 21, 22, 23, 24, 25, 26, 27, 28, 29)]
for s in range(1, 6):
    X0[s] = regs.pop(0); X1[s] = regs.pop(0)
    v("valignq $%d, %%zmm19, %%zmm17, %s" % (8 - s, X0[s]))
    v("valignq $%d, %%zmm17, %%zmm18, %s" % (8 - s, X1[s]))
# broadcasts of a digits: zmm0..4
AD = 512
if BCAST_MEM:
    v("vmovdqu64 %%zmm16, %d(%%rsp)" % AD)
else:
    for i in range(5):
        v("vmovdqa64 H_BC%d(%%rip), %%zmm%d" % (i, i))
        v("vpermq %%zmm16, %%zmm%d, %%zmm%d" % (i, i))
# accumulators zmm5..12 (even: 5..8, odd: 9..12), zeroed
for r in range(5, 13): v("vpxorq %%zmm%d, %%zmm%d, %%zmm%d" % (r, r, r))
for i in range(5):
    base = 5 if i % 2 == 0 else 9
    A = ("%d(%%rsp){1to8}" % (AD + 8 * i)) if BCAST_MEM else "%%zmm%d" % i
    v("vpmadd52luq %s, %s, %%zmm%d" % (A, X0[i], base))
    v("vpmadd52luq %s, %s, %%zmm%d" % (A, X1[i], base + 1))
    v("vpmadd52huq %s, %s, %%zmm%d" % (A, X0[i + 1], base + 2))
    v("vpmadd52huq %s, %s, %%zmm%d" % (A, X1[i + 1], base + 3))
v("vpaddq %zmm5, %zmm7, %zmm5"); v("vpaddq %zmm9, %zmm11, %zmm9"); v("vpaddq %zmm5, %zmm9, %zmm13")   # S0
v("vpaddq %zmm6, %zmm8, %zmm6"); v("vpaddq %zmm10, %zmm12, %zmm10"); v("vpaddq %zmm6, %zmm10, %zmm14") # S1
# X digits = S & M52 (zmm5, zmm6); Y digits = S >> 52 moved up one lane (zmm7, zmm8)
v("vpandq H_M52(%rip){1to8}, %zmm13, %zmm5")
v("vpandq H_M52(%rip){1to8}, %zmm14, %zmm6")
v("vpsrlq $52, %zmm13, %zmm13")
v("vpsrlq $52, %zmm14, %zmm14")
v("valignq $7, %zmm19, %zmm13, %zmm7")
v("valignq $7, %zmm13, %zmm14, %zmm8")
# pack both: words 0..11 of X (from zmm5/6) and Y (zmm7/8)
if SHARE_IDX:
    for t in range(3):
        for vv in range(2):
            v("vmovdqa64 H_PI%d%d(%%rip), %%zmm%d" % (t, vv, 20 + 2 * t + vv))
for (lo, hi, off) in (("%zmm5", "%zmm6", XO), ("%zmm7", "%zmm8", YO)):
    for vv in range(2):
        parts = []
        for t in range(3):
            r = "%%zmm%d" % (0 + t)
            if SHARE_IDX:
                v("vmovdqa64 %s, %s" % (lo, r))
                v("vpermt2q %s, %%zmm%d, %s" % (hi, 20 + 2 * t + vv, r))
            else:
                v("vmovdqa64 H_PI%d%d(%%rip), %s" % (t, vv, r))
                v("vpermi2q %s, %s, %s" % (hi, lo, r))
            v("%s H_PS%d%d(%%rip), %s, %s" % ("vpsrlvq" if t == 0 else "vpsllvq", t, vv, r, r))
        v("vpternlogq $0xfe, %zmm2, %zmm1, %zmm0")
        if vv == 0:
            v("vmovdqu64 %%zmm0, %d(%%rsp)" % (off + 256 * NODEP))
        else:
            v("vmovdqu64 %%ymm0, %d(%%rsp)" % (off + 64 + 256 * NODEP))
# note: pack reuses zmm0..2 sequentially (register reuse -> renamed by hardware)

# ---------------- scalar half ----------------
S = []
def s(x): S.append(x)
free = ["%rax", "%rbx", "%rbp", "%r9", "%r10", "%r12", "%r13", "%r14", "%r15"]
col = {}
LO = "%r11"
def take():
    return free.pop(0)
# product row 0
s("movq 0(%rsi), %rdx"); s("xorq %rcx, %rcx")
c0, c1 = take(), take()
s("mulxq 0(%%r8), %s, %s" % (c0, c1)); col[0], col[1] = c0, c1
for j in range(1, 8):
    h = take()
    s("mulxq %d(%%r8), %s, %s" % (8 * j, LO, h)); s("adcxq %s, %s" % (LO, col[j])); col[j + 1] = h
s("adcxq %%rcx, %s" % col[8])
hi_tmp = None
def red_row(i, top_mem=None, cc_in=None, capture=False):
    """reduction row i: q = col[i]; adds q*P1[3..7] to columns i+3..i+8."""
    global hi_tmp
    s("movq %s, %%rdx" % col[i]); s("xorq %rcx, %rcx") if cc_in is None or True else None
    h = col.pop(i)
    for j in range(5):
        s("mulxq H_P1+%d(%%rip), %s, %s" % (8 * j, LO, h))
        s("adcxq %s, %s" % (LO, col[i + 3 + j]))
        if j < 4 or top_mem is None:
            s("adoxq %s, %s" % (h, col[i + 4 + j]))
        else:
            s("adoxq %d(%%rsp), %s" % (top_mem, h))     # h = column i+8 from memory + hi + OF
            col[i + 8] = h; h = None
    s("adcxq %s, %s" % (cc_in or "%rcx", col[i + 8]))
    cc = None
    if capture:
        cc = free.pop(0) if free else h
        if cc is h: h = None
        s("movl $0, %s" % (cc + "d" if cc[2:].isdigit() else "%e" + cc[2:]))
        s("adcxq %%rcx, %s" % cc); s("adoxq %%rcx, %s" % cc)
    if h is not None: free.append(h)
    if cc_in is not None: free.append(cc_in)
    return cc
def prod_row(i):
    s("movq %d(%%rsi), %%rdx" % (8 * i)); s("xorq %rcx, %rcx")
    for j in range(8):
        h = take()
        s("mulxq %d(%%r8), %s, %s" % (8 * j, LO, h))
        s("adcxq %s, %s" % (LO, col[i + j]))
        if j < 7:
            s("adoxq %s, %s" % (h, col[i + j + 1])); free.append(h)
        else:
            s("adoxq %%rcx, %s" % h); s("adcxq %%rcx, %s" % h); col[i + 8] = h
red_row(0)
for i in range(1, 4):
    prod_row(i)
    if i == 3:
        free.extend(["%rsi", "%r8"])           # the vector half's loads all come before the merge
    red_row(i)
MERGE_AT = len(S)
# merge X, Y (columns 4..15): 4..11 in registers, 12 new register, 13..15 to memory
s("xorq %rcx, %rcx")
for k in range(8):
    s("adcxq %d(%%rsp), %s" % (XO + 8 * k, col[4 + k])); s("adoxq %d(%%rsp), %s" % (YO + 8 * k, col[4 + k]))
r12 = take()
s("movq %d(%%rsp), %s" % (XO + 64, r12)); s("adcxq %%rcx, %s" % r12); s("adoxq %d(%%rsp), %s" % (YO + 64, r12)); col[12] = r12
tmp = free[0]
for k in range(9, 12):
    s("movq %d(%%rsp), %s" % (XO + 8 * k, tmp)); s("adcxq %%rcx, %s" % tmp); s("adoxq %d(%%rsp), %s" % (YO + 8 * k, tmp))
    s("movq %s, %d(%%rsp)" % (tmp, CO + 8 * (k - 9)))
# reduction rows 4..7
cc = red_row(4, capture=True)
cc = red_row(5, top_mem=CO + 0, cc_in=cc, capture=True)
cc = red_row(6, top_mem=CO + 8, cc_in=cc, capture=True)
red_row(7, top_mem=CO + 16, cc_in=cc)
# canonical: result in col[8..15] < 2p
for k in range(8):
    s("movq %s, %d(%%rdi)" % (col[8 + k], 8 * k))
s("subq $-1, %s" % col[8]); s("sbbq $-1, %s" % col[9]); s("sbbq $-1, %s" % col[10])
for k in range(3, 8):
    s("sbbq H_P+%d(%%rip), %s" % (8 * (k - 3), col[8 + k]))
for k in range(8):
    s("cmovcq %d(%%rdi), %s" % (8 * k, col[8 + k]))
for k in range(8):
    s("movq %s, %d(%%rdi)" % (col[8 + k], 8 * k))

# ---------------- interleave ----------------
if NOVEC:
    V = []
n = int(MERGE_AT * SPREAD)
head, rest = S[:n], S[n:]
merged, i, j = [], 0, 0
while i < len(head) or j < len(V):
    if j < len(V) and (i >= len(head) or j * len(head) <= i * len(V)):
        merged.append(V[j]); j += 1
    else:
        merged.append(head[i]); i += 1
body = merged + rest

e("\t.section .rodata")
e("".join(tab))
e("\t.text\n\t.globl %s\n\t.type %s,@function\n\t.p2align 6\n%s:" % (NAME, NAME, NAME))
for r in ("%r15", "%r14", "%r13", "%r12", "%rbp", "%rbx"):
    e("\tpushq %s" % r)
e("\tsubq $584, %rsp")
e("\tmovq %rdx, %r8")
for x in body: e("\t" + x)
e("\taddq $584, %rsp")
for r in ("%rbx", "%rbp", "%r12", "%r13", "%r14", "%r15"):
    e("\tpopq %s" % r)
e("\tvzeroupper\n\tret\n\t.size %s, .-%s\n\t.section .note.GNU-stack,\"\",@progbits" % (NAME, NAME))
print("\n".join(out))
print("# vector %d, scalar %d (merge at %d)" % (len(V), len(S), MERGE_AT), file=sys.stderr)
