# SPDX-License-Identifier: MIT OR Apache-2.0
"""The dispatcher rule, checked on the built library's machine code.

    dispatch_shape.py [--objdump PATH] [--indirect-only] [--headers DIR] LIBRARY FIELD...

1. No indirect call or jump anywhere in LIBRARY (never a function pointer).
   LIBRARY may also be a linked shared object (a vendored build, -fPIC
   -shared): there the check covers its own functions, not the PLT stubs of
   what it imports from libc or the C runtime's start-up code, and no call
   or jump may reach a fieldgen function through a PLT stub (fg_*@plt: an
   indirect jump through the GOT), which fieldgen's protected symbols rule
   out (runtime/fg_cpu.h, FG_VISIBILITY).
2. For each FIELD, the dispatchers of the kernel ops (mul, sqr, mul_wide,
   sqr_wide, redc, and mul_lazy, sqr_lazy where the field has them) make no
   call, only tail jumps to kernels of that op, and:
   - with runtime dispatch (the body reads the selector word fg_cpu_sel):
     one load of the word, and the first jump to a kernel (the generic
     tuning's top level's, the hot path) comes after at most one conditional
     branch and no other branch (where a Zen core runs another kernel at
     that level, its path takes one more test: runtime/fg_cpu.h);
   - with compile-time dispatch: the body is a single jump to one kernel.
   The same holds for fp2_mul and fp2_sqr where the field has Fp2: their
   kernels are the Fp2 assembly functions and the C path, fg_FIELD_fp2_OP_c
   (a frame set up before the first test, for the C path's buffers, fails).
3. For each FIELD, the word helpers (is_zero, eq, cmov, cswap, to_bytes, and
   canon where the field has it; with Fp2 also fp2_is_zero, fp2_eq, fp2_cmov,
   fp2_cswap, fp2_conj, fp2_mul_fp, fp2_to_bytes) load memory only into general
   registers: no xmm, ymm
   or zmm register is loaded from memory. The kernels store an element as
   64-bit words, and a wider load cannot take two of those stores forwarded: it
   waits for them to reach the cache (in a chain of p25519 mul and cmov, 33
   core cycles a cmov instead of 11). GCC vectorizes these loops unless each
   word passes a barrier.
4. With --headers DIR (DIR/FIELD/fg_FIELD.h or DIR/fg_FIELD.h), for each kernel op's runtime
   dispatcher: which kernel it reaches for every selector bit (each ISA level
   under each tuning), found by running its tests and jumps on that value,
   against the header's FG_FIELD_OP_AT_LEVEL_USES (generic tuning) and
   _AT_LEVEL_ZEN_USES (zen and zen4), and the C kernel at level c. The kernels
   of all levels compute the same results, so the differential tests cannot
   see a dispatcher that routes a selector to the wrong one; this does.
Checks 2 and 3 need an optimized build without sanitizers (at -O0, or with ASan
and UBSan, the C dispatchers call their kernels and run checks first):
--indirect-only keeps check 1 alone, and CMake passes it for such builds.
Exits 1 with one line per violation, 77 (skipped) when LIBRARY holds LTO
bytecode instead of the final machine code.
"""
import argparse
import os
import re
import subprocess
import sys

OPS = ("mul", "sqr", "mul_wide", "sqr_wide", "redc")
LAZY_OPS = ("mul_lazy", "sqr_lazy")     # only fields with 4p <= 2^(64n) have them
FP2_OPS = ("fp2_mul", "fp2_sqr")        # only fields with an Fp2 extension have them
WORD_HELPERS = ("is_zero", "eq", "cmov", "cswap", "to_bytes", "canon")   # canon: lazy fields only
FP2_WORD_HELPERS = ("fp2_is_zero", "fp2_eq", "fp2_cmov", "fp2_cswap", "fp2_conj", "fp2_mul_fp",
                    "fp2_to_bytes")
# a vector load: a memory operand read into an xmm/ymm/zmm register (AT&T order,
# the destination last); vector stores (a zeroed local, say) forward to the word
# loads that follow them, so they are fine
VECTOR_LOAD = re.compile(r"\(.*%[xyz]mm\d+\s*$")
INDIRECT = re.compile(r"\b(?:notrack\s+)?(?:call|jmp)[a-z]*\s+\*")
FUNC = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
INSN = re.compile(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$")
RELOC = re.compile(r"^\s+[0-9a-f]+: (R_X86_64_\w+)\s+(\S+?)(?:[-+]0x[0-9a-f]+)?$")
# in a linked object the operands name their targets: "jmp 1a840 <fg_p503_sqr_adx>",
# "mov 0x49de2(%rip),%eax  # 59028 <fg_cpu_sel>" (a target with an offset is a label
# inside a function, not a symbol)
TARGET = re.compile(r"<([^<>+-]+)>$")
# a linked object's own start-up and shutdown code from the C runtime (crti, crtbegin)
CRT = ("_init", "_fini", "deregister_tm_clones", "register_tm_clones",
       "__do_global_dtors_aux", "frame_dummy")
FILLER = ("nop", "nopl", "nopw", "xchg", "ud2", "int3", "endbr64", "data16", "cs")


class Insn(tuple):
    """(mnemonic, operands, target symbol or relocation symbol or None) and .addr"""
    def __new__(cls, mn, ops, sym, addr):
        t = super().__new__(cls, (mn, ops, sym))
        t.addr = addr
        return t


def functions(text):
    """{name: [(mnemonic, operands, relocation symbol or None)]} from objdump -dr."""
    out, cur = {}, None
    for line in text.splitlines():
        m = FUNC.match(line)
        if m:
            cur = out.setdefault(m.group(1), [])
            continue
        if cur is None:
            continue
        r = RELOC.match(line)
        if r and cur:
            mn, ops, _ = cur[-1]
            cur[-1] = Insn(mn, ops, r.group(2), cur[-1].addr)
            continue
        m = INSN.match(line)
        if m:
            t = TARGET.search(m.group(3))
            cur.append(Insn(m.group(2), m.group(3), t.group(1) if t else None, int(m.group(1), 16)))
    return out


LEVELS = ("c", "x86_64", "bmi2", "adx", "adx_zen", "ifma", "ifma_zen")   # a level's kernel, or its Zen form


def check_dispatcher(name, body):
    """Violations of one kernel op's dispatcher fg_FIELD_OP (list of strings)."""
    kernels = {"%s_%s" % (name, level) for level in LEVELS}
    bad = []
    insns = [i for i in body if i[0] not in FILLER]
    if not insns:
        return ["%s: empty" % name]
    for mn, ops, sym in insns:
        if mn.startswith("call"):
            bad.append("%s: makes a call (%s %s)" % (name, mn, ops))
        if mn.startswith("j") and sym is not None and sym not in kernels:
            bad.append("%s: jumps to %s, not a kernel of this op" % (name, sym))
    loads = [i for i in insns if i[2] == "fg_cpu_sel"]
    branches = [i for i in insns if i[0].startswith("j")]
    if loads:
        if len(loads) != 1:
            bad.append("%s: reads fg_cpu_sel %d times" % (name, len(loads)))
        hot = next((k for k, b in enumerate(branches) if b[2] is not None), None)
        if hot is None:
            bad.append("%s: no jump to a kernel" % name)
        elif hot > 1 or any(b[0] == "jmp" for b in branches[:hot]):
            bad.append("%s: %d branch(es) before the first jump to a kernel (%s)" %
                       (name, hot, "; ".join(" ".join(b[:2]) for b in branches[:hot])))
    else:
        if len(insns) != 1 or insns[0][0] != "jmp" or insns[0][2] is None:
            bad.append("%s: compile-time dispatch should be one jump to a kernel, found %d instructions" %
                       (name, len(insns)))
    return bad


ISA_LEVELS = ("c", "x86_64", "bmi2", "adx", "ifma")   # fg_isa order: selector bit = level + 5 * tuning
TUNES = ("generic", "zen", "zen4")
KERNEL_IDS = {"FG_ISA_C": "c", "FG_ISA_X86_64": "x86_64", "FG_ISA_BMI2": "bmi2", "FG_ISA_ADX": "adx",
              "FG_ISA_IFMA": "ifma", "FG_KERNEL_ADX_ZEN": "adx_zen"}
USES = re.compile(r"^#define FG_(\w+?)_AT_(X86_64|BMI2|ADX|IFMA)(_ZEN)?_USES (\w+)")
TEST_IMM = re.compile(r"^\$(0x[0-9a-f]+|\d+),%(eax|al|ah)$")
JUMP_ADDR = re.compile(r"^([0-9a-f]+) <")


def header_routes(path, field):
    """{op: {selector bit: kernel suffix}} from a field header's _USES macros (the
    assembly build's: the first definition of each)."""
    routes = {}
    with open(path) as fh:
        for line in fh:
            m = USES.match(line)
            if not m or not m.group(1).lower().startswith(field + "_"):
                continue
            op = m.group(1).lower()[len(field) + 1:]
            level = ISA_LEVELS.index(m.group(2).lower())
            tunes = (1, 2) if m.group(3) else (0,)
            r = routes.setdefault(op, {})
            for t in tunes:
                r.setdefault(level + len(ISA_LEVELS) * t, KERNEL_IDS[m.group(4)])
    for r in routes.values():
        for t in range(len(TUNES)):
            r[len(ISA_LEVELS) * t] = "c"
    return routes


def reached(name, body, sel):
    """The kernel suffix body reaches with fg_cpu_sel = sel, or an error string."""
    insns = [i for i in body if i[0] not in FILLER]
    at = {i.addr: k for k, i in enumerate(insns)}
    k, zf, steps = 0, None, 0
    while k < len(insns) and steps < 4 * len(insns):
        steps += 1
        mn, ops, sym = insns[k]
        if mn.startswith("test"):
            m = TEST_IMM.match(ops)
            if not m:
                return "unexpected test %s" % ops
            v = {"eax": sel, "al": sel & 0xff, "ah": (sel >> 8) & 0xff}[m.group(2)]
            zf = (int(m.group(1), 0) & v) == 0
        elif mn.startswith("j"):
            taken = True if mn == "jmp" else zf if mn in ("je", "jz") else not zf if mn in ("jne", "jnz") else None
            if taken is None or zf is None and mn != "jmp":
                return "unexpected branch %s %s" % (mn, ops)
            if taken:
                if sym is not None:
                    return sym[len(name) + 1:] if sym.startswith(name + "_") else "jumps to " + sym
                m = JUMP_ADDR.match(ops)
                if not m or int(m.group(1), 16) not in at:
                    return "jumps outside the dispatcher (%s)" % ops
                k = at[int(m.group(1), 16)]
                continue
        elif not mn.startswith("mov"):
            return "unexpected %s %s" % (mn, ops)
        k += 1
    return "falls off its end"


def check_routing(name, body, route):
    """Violations of the kernel each selector bit reaches (list of strings)."""
    bad = []
    for bit, want in sorted(route.items()):
        got = reached(name, body, 1 << bit)
        if got != want:
            bad.append("%s: level %s under the %s tuning reaches %s, the header says %s" %
                       (name, ISA_LEVELS[bit % len(ISA_LEVELS)], TUNES[bit // len(ISA_LEVELS)], got, want))
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--objdump", default="objdump")
    ap.add_argument("--indirect-only", action="store_true",
                    help="only check 1 (unoptimized or sanitized builds)")
    ap.add_argument("--headers", help="check 4: the fields' headers, DIR/FIELD/fg_FIELD.h or DIR/fg_FIELD.h")
    ap.add_argument("library")
    ap.add_argument("fields", nargs="*")
    args = ap.parse_args(argv)
    dis = subprocess.run([args.objdump, "-dr", "--no-show-raw-insn", args.library],
                         capture_output=True, text=True)
    heads = subprocess.run([args.objdump, "-h", args.library], capture_output=True, text=True)
    if ".gnu.lto_" in heads.stdout or "file format not recognized" in dis.stderr + heads.stderr:
        print("dispatch_shape: %s holds LTO bytecode, not the final machine code: skipped" % args.library)
        return 77
    if dis.returncode != 0:
        print("dispatch_shape: %s failed: %s" % (args.objdump, dis.stderr.strip()))
        return 1
    funcs = functions(dis.stdout)
    bad = []
    for fname, body in funcs.items():
        if "@plt" in fname:
            # a linked object's PLT: stubs for its imports are expected, one for
            # a fieldgen function means some call reaches it indirectly
            if fname.startswith("fg_"):
                bad.append("%s: a fieldgen function reached through the PLT (an indirect jump)" % fname)
            continue
        if fname in CRT:
            continue
        for mn, ops, _ in body:
            if INDIRECT.search(mn + " " + ops):
                bad.append("%s: indirect branch: %s %s" % (fname, mn, ops))
    checked = helpers = routed = 0
    for field in ([] if args.indirect_only else args.fields):
        routes = {}
        if args.headers:
            # a generator output (DIR/FIELD/fg_FIELD.h) or a vendored copy (DIR/fg_FIELD.h)
            paths = [os.path.join(args.headers, field, "fg_%s.h" % field), os.path.join(args.headers, "fg_%s.h" % field)]
            path = next((x for x in paths if os.path.exists(x)), None)
            if path is None:
                bad.append("%s: no header under %s" % (field, args.headers))
            else:
                routes = header_routes(path, field)
        for op in OPS + LAZY_OPS + FP2_OPS:
            name = "fg_%s_%s" % (field, op)
            if op in LAZY_OPS and name not in funcs and name + "_c" not in funcs:
                continue
            if op in FP2_OPS and name not in funcs:
                continue
            if name not in funcs:
                bad.append("%s: not in %s" % (name, args.library))
                continue
            bad += check_dispatcher(name, funcs[name])
            checked += 1
            if op in routes and any(i[2] == "fg_cpu_sel" for i in funcs[name]):
                bad += check_routing(name, funcs[name], routes[op])
                routed += 1
        for op in WORD_HELPERS + FP2_WORD_HELPERS:
            name = "fg_%s_%s" % (field, op)
            if name not in funcs:
                if op in ("is_zero", "eq", "cmov", "cswap", "to_bytes"):
                    bad.append("%s: not in %s" % (name, args.library))
                continue
            for mn, ops, _ in funcs[name]:
                if VECTOR_LOAD.search(ops):
                    bad.append("%s: vector load (%s %s)" % (name, mn, ops))
            helpers += 1
    for line in bad:
        print("dispatch_shape: " + line)
    print("dispatch_shape: %d functions scanned, %d dispatchers (%d routed for every selector) and %d word "
          "helpers checked, %d violation(s)" % (len(funcs), checked, routed, helpers, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
