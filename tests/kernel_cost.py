# SPDX-License-Identifier: MIT OR Apache-2.0
"""The kernel counts in the headers, checked on the built machine code.

    kernel_cost.py [--objdump PATH] LIBRARY DIR FIELD...

For each FIELD (headers DIR/FIELD/fg_FIELD.h and fg_FIELD_x86_64_costs.h)
and each scalar kernel fg_FIELD_OP_LEVEL they describe, the generator's counts
FG_FIELD_OP_LEVEL_MULTS, _P06 and _ALU (gen/fg/targets/x86_64/cost.py, read off the GAS
text) must equal the counts in LIBRARY's disassembly (objdump -d: a second
reader of the assembled code, with the generator's instruction classes), and
the kernel must be straight-line: no jump or call between its entry and its
single ret, so that the counts are what every call executes (and no branch
can depend on data). fieldgen-bench's port floors rest on these counts. The
kernels are assembled from .S files, so they are machine code in every
build, LTO included. For fields of at most 4 limbs the Fp kernels (mul, sqr,
mul_wide, sqr_wide, redc) must keep every value in registers: no operand
addresses the stack (push and pop of callee-saved registers aside; the
one-function Fp2 kernels keep their wide products on the stack by design).
Exits 1 with a line per mismatch.
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dispatch_shape import functions  # noqa: E402  (the objdump -d parser)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "gen"))
from fg.targets.x86_64.cost import KERNELS, MULTS, OPS, P06, is_alu  # noqa: E402  (one definition of the classes)

REGISTERS_ONLY = 4          # limbs up to which the Fp kernels use no stack slot
LIMBS = re.compile(r"^#define FG_\w+?_LIMBS (\d+)\b")
MACRO = re.compile(r"^#define FG_(\w+?)_(MUL|SQR|MUL_WIDE|SQR_WIDE|REDC|MUL_LAZY|SQR_LAZY|FP2_MUL|FP2_SQR)_(X86_64|BMI2|ADX|ADX_ZEN)_(MULTS|P06|ALU) (\d+)$")


def header_counts(*paths):
    """({(op, level): {"MULTS": n, "P06": n, "ALU": n}}, limbs) from a field's
    generated header and its x86-64 counts header."""
    out, limbs = {}, None
    for path in paths:
        with open(path) as f:
            for line in f:
                m = MACRO.match(line.rstrip("\n"))
                if m:
                    out.setdefault((m.group(2).lower(), m.group(3).lower()), {})[m.group(4)] = int(m.group(5))
                m = LIMBS.match(line.rstrip("\n"))
                if m and limbs is None:
                    limbs = int(m.group(1))
    return out, limbs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--objdump", default="objdump")
    ap.add_argument("library")
    ap.add_argument("dir")
    ap.add_argument("fields", nargs="+")
    a = ap.parse_args()
    dis = subprocess.run([a.objdump, "-dr", "--no-show-raw-insn", a.library], capture_output=True, text=True)
    if dis.returncode != 0:
        print("kernel_cost: %s failed: %s" % (a.objdump, dis.stderr.strip()))
        return 1
    funcs = functions(dis.stdout)
    bad, checked = [], 0
    for field in a.fields:
        counts, limbs = header_counts(os.path.join(a.dir, field, "fg_%s.h" % field),
                                      os.path.join(a.dir, field, "fg_%s_x86_64_costs.h" % field))
        if not counts or limbs is None:
            bad.append("%s: fg_%s_x86_64_costs.h carries no kernel counts or the header no limb count" % (field, field))
        for op, level in KERNELS:
            name = "fg_%s_%s_%s" % (field, op, level)
            want = counts.get((op, level))
            body = funcs.get(name)
            if want is None or body is None:
                if (want is None) != (body is None):
                    bad.append("%s: %s" % (name, "no counts in the header" if want is None
                                            else "counted in the header but not in the library"))
                continue
            insns = [mn for mn, _, _ in body]
            rets = [k for k, mn in enumerate(insns) if mn.startswith("ret")]
            if not rets:
                bad.append("%s: no ret" % name)
                continue
            code = insns[:rets[0]]
            flow = [mn for mn in code if mn.startswith(("j", "call", "loop"))]
            if flow:
                bad.append("%s: not straight-line (%s)" % (name, ", ".join(sorted(set(flow)))))
            # objdump's mnemonics, matched as a GAS line (it prints CMOVC as cmovb:
            # the class is cmov*, as every SETcc is set*)
            got = {"MULTS": sum(bool(MULTS.match("\t%s " % mn)) for mn in code),
                   "P06": sum(bool(P06.match("\t%s " % mn)) for mn in code),
                   "ALU": sum(is_alu(mn, ops) for mn, ops, _ in body[:rets[0]])}
            for k in ("MULTS", "P06", "ALU"):
                if want.get(k) != got[k]:
                    bad.append("%s: header %s %s, machine code %d" % (name, k, want.get(k), got[k]))
            if op in OPS and limbs is not None and limbs <= REGISTERS_ONLY:
                stack = [mn + " " + ops for mn, ops, _ in body[:rets[0]] if "(%rsp" in ops]
                if stack:
                    bad.append("%s: %d stack operands at %d limbs (%s)" % (name, len(stack), limbs, stack[0]))
            checked += 1
    for line in bad:
        print("kernel_cost: " + line)
    print("kernel_cost: %d kernels of %d fields checked, %d mismatches" % (checked, len(a.fields), len(bad)))
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
