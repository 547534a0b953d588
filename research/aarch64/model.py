#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""AArch64 speed without AArch64 hardware: a model, not a measurement.

For a list of kernels (label, object/archive/.S/.c file, function symbol,
calling kind) this tool

1. links each kernel into a small static arm64 harness that calls it twice
   with two different inputs, runs the harness under qemu-aarch64 with one
   guest instruction per translation block (-singlestep) and every block
   execution logged (-d exec,nochain), and cuts the log at the kernel's
   entry and at the return to the harness: the exact dynamic instruction
   sequence of one call, callees (memcpy, an internal helper) included.
   A second run without -singlestep sums whole blocks' lengths and must
   give the same counts; two hand-written functions of known length are
   counted first, every run.
   Kinds that cannot be called (a local symbol of an archive member) fall
   back to the static listing, which is accepted only if it is
   straight-line;
2. turns that sequence (a loop comes out unrolled, as it ran) into assembly
   llvm-mca accepts and reports, for each llvm-mca and -mcpu, the block
   reciprocal throughput, the cycles per iteration over 100 back-to-back
   iterations and the cycles of a single iteration;
3. prints Markdown tables and, with --write, puts them into README.md
   beside this file between the MODEL-TABLE markers.

Run from the repository root:  nice -n 19 python3 research/aarch64/model.py --write
"""

import argparse
import ast
import concurrent.futures
import datetime
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT_DEFAULT = os.path.normpath(os.path.join(HERE, "..", ".."))

CROSS_CC = "aarch64-linux-gnu-gcc"
CLANG = "clang"
OBJDUMP = "llvm-objdump"
QEMU = "qemu-aarch64"
LIBCRYPTO = "/usr/lib/aarch64-linux-gnu/libcrypto.a"
CPUS = ("neoverse-n1", "neoverse-v1", "apple-m1")
CPU_SHORT = {"neoverse-n1": "N1", "neoverse-v1": "V1", "apple-m1": "M1"}
ITERATIONS = 100
SHIPPED = ("p256", "p256n", "p25519", "p503", "p751")
OPS = ("mul", "sqr", "mul_wide", "sqr_wide", "redc", "mul_lazy", "sqr_lazy")
# Every op a generated kernel may be named after, longest first, so that
# fg_p256_mul_wide_x is read as op mul_wide, not op mul at level wide_x.
ALL_OPS = ("mul_wide", "sqr_wide", "mul_lazy", "sqr_lazy", "redc", "mul", "sqr")
# Kinds: how the harness calls a symbol. n = the field's limb count.
#   mul, sqr, mul_wide, sqr_wide, redc, mul_lazy, sqr_lazy: fieldgen's kernel
#   signatures (the lazy ones get the same reduced inputs as mul and sqr)
#   bn_mul: bn_mul_mont(r, a, b, p, n0, n); bn_sqr: the same with b = a
#   static: not called; the static listing, which must be straight-line
#   fp2_mul (r, a, b), fp2_sqr (r, a): the Fp2 ones, elements of 2n limbs
#   (c0 then c1), from the same two input sets
FP2_KINDS = ("fp2_mul", "fp2_sqr")
KINDS = OPS + FP2_KINDS + ("bn_mul", "bn_sqr", "static")

# Known names of the resources of LLVM's AArch64 scheduling models: what
# llvm-mca's resource list shows tells which model a -mcpu really gets.
MODEL_BY_RESOURCE_PREFIX = (
    ("A57Unit", "Cortex-A57"),
    ("CyUnit", "Apple Cyclone (A7, 2013)"),
    ("N1Unit", "Neoverse N1"),
    ("N2Unit", "Neoverse N2"),
    ("V1Unit", "Neoverse V1"),
    ("V2Unit", "Neoverse V2"),
    ("CortexA55Unit", "Cortex-A55"),
    ("CortexA510Unit", "Cortex-A510"),
    ("A53Unit", "Cortex-A53"),
    ("A64FXIPE", "A64FX"),
    ("A64FX", "A64FX"),
    ("M3Unit", "Exynos M3"),
    ("M4Unit", "Exynos M4"),
    ("M5Unit", "Exynos M5"),
    ("THX2T99", "ThunderX2"),
    ("THX3T110", "ThunderX3"),
    ("TSV110Unit", "TSV110"),
    ("Ampere1Unit", "Ampere1"),
    ("FalkorUnit", "Falkor"),
    ("KryoUnit", "Kryo"),
)
# The model each -mcpu would have if LLVM had one of its own.
OWN_MODEL = {"neoverse-n1": "Neoverse N1", "neoverse-v1": "Neoverse V1",
             "apple-m1": "Apple M1"}


class ToolError(Exception):
    """A step failed; the message says which and why."""


def run(cmd, **kw):
    """Run a command, raising ToolError with its stderr when it fails."""
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise ToolError("command failed (%d): %s\n%s" % (
            p.returncode, " ".join(cmd), (p.stderr or p.stdout)[-2000:]))
    return p


# --------------------------------------------------------------------------
# llvm-mca output


def parse_mca(text):
    """The summary of one llvm-mca report (one code region).

    Returns a dict with iterations, instructions, total_cycles, total_uops,
    dispatch_width, ipc, block_rthroughput (all numbers) and resources (the
    names listed under "Resources:", empty when that view was off). Raises
    ValueError naming the missing field when the text is not such a report.
    """
    if text.count("Iterations:") != 1:
        raise ValueError("expected one llvm-mca report (one code region), found %d"
                         % text.count("Iterations:"))
    fields = {
        "iterations": (r"^Iterations:\s+(\d+)\s*$", int),
        "instructions": (r"^Instructions:\s+(\d+)\s*$", int),
        "total_cycles": (r"^Total Cycles:\s+(\d+)\s*$", int),
        "total_uops": (r"^Total uOps:\s+(\d+)\s*$", int),
        "dispatch_width": (r"^Dispatch Width:\s+(\d+)\s*$", int),
        "ipc": (r"^IPC:\s+([0-9.]+)\s*$", float),
        "block_rthroughput": (r"^Block RThroughput:\s+([0-9.]+)\s*$", float),
    }
    out = {}
    for name, (pat, conv) in fields.items():
        m = re.search(pat, text, re.M)
        if not m:
            raise ValueError("llvm-mca report without %r" % name)
        out[name] = conv(m.group(1))
    if out["iterations"] <= 0 or out["instructions"] % out["iterations"]:
        raise ValueError("llvm-mca report: %d instructions is not a multiple of "
                         "%d iterations" % (out["instructions"], out["iterations"]))
    res = []
    m = re.search(r"^Resources:\n((?:\[[0-9.]+\]\s+- \S+\n)+)", text, re.M)
    if m:
        res = re.findall(r"^\[[0-9.]+\]\s+- (\S+)$", m.group(1), re.M)
    out["resources"] = res
    out["cycles_per_iteration"] = out["total_cycles"] / out["iterations"]
    return out


def model_of(resources):
    """The scheduling model a list of llvm-mca resource names belongs to."""
    for name in resources:
        for prefix, model in MODEL_BY_RESOURCE_PREFIX:
            if name.startswith(prefix):
                return model
    return "unknown (%s)" % (resources[0] if resources else "no resources")


def mca_notes(stderr):
    """The distinct warning/note lines of llvm-mca's stderr."""
    seen = []
    for line in stderr.splitlines():
        line = line.strip()
        if re.match(r"^(warning|note):", line) and line not in seen:
            seen.append(line)
    return seen


def run_mca(mca, cpu, asm_text, iterations, views=False):
    """llvm-mca on asm_text; returns (parsed summary, notes)."""
    cmd = ["nice", "-n", "19", mca, "-mtriple=aarch64", "-mcpu=" + cpu,
           "-iterations=%d" % iterations]
    if not views:
        cmd += ["-instruction-info=false", "-resource-pressure=false"]
    p = subprocess.run(cmd, input=asm_text, capture_output=True, text=True)
    if p.returncode != 0:
        raise ToolError("%s -mcpu=%s rejected the input:\n%s" % (mca, cpu, p.stderr[-3000:]))
    return parse_mca(p.stdout), mca_notes(p.stderr)


# --------------------------------------------------------------------------
# Disassembly to llvm-mca input

BRANCH_RE = re.compile(r"^(b|bl|br|blr|ret|b\.\w+|cbz|cbnz|tbz|tbnz)$")
COND_RE = re.compile(r"^(b\.\w+|cbz|cbnz|tbz|tbnz)$")
# The integer multiplies: on Neoverse N1 (LLVM 17+ model) each 64-bit one
# occupies the multiplier for 3 cycles, so their count is a floor there.
MULTIPLIES = ("mul", "umulh", "smulh", "madd", "msub", "mneg", "umull", "smull",
              "umaddl", "smaddl", "umsubl", "smsubl")
CALL_AS_BRANCH = {"bl": "b", "blr": "br"}
LINE_RE = re.compile(r"^\s*([0-9a-f]+):\s+(.*?)\s*$")


def parse_objdump(text):
    """{address: (mnemonic, operands)} from llvm-objdump -d --no-show-raw-insn."""
    out = {}
    for line in text.splitlines():
        m = LINE_RE.match(line)
        if not m:
            continue
        body = m.group(2).split("//")[0].strip()
        if not body:
            continue
        parts = body.split(None, 1)
        out[int(m.group(1), 16)] = (parts[0], parts[1].strip() if len(parts) > 1 else "")
    return out


def to_mca_line(mnemonic, operands):
    """One disassembled instruction as assembly llvm-mca parses.

    Addresses printed as `0x1234 <sym+0x8>` (branch, adr, adrp and literal
    load targets) become the label .Lt, which the block defines: llvm-mca
    ignores where a branch goes, and a literal's address has no cost.
    A call (bl, blr) becomes a plain branch (b, br): the trace already holds
    the callee's instructions, and llvm-mca would otherwise charge every
    call a fixed 100-cycle latency ("call instructions are not correctly
    modeled"); a core predicts a direct call and its return like a branch.
    """
    if mnemonic in CALL_AS_BRANCH:
        mnemonic = CALL_AS_BRANCH[mnemonic]
    ops = re.sub(r"0x[0-9a-f]+ <[^>]*>", ".Lt", operands)
    if BRANCH_RE.match(mnemonic) or mnemonic in ("adr", "adrp") or (
            mnemonic.startswith("ldr") and "[" not in ops and ops):
        ops = re.sub(r"(^|,\s*)(0x[0-9a-f]+|#?-?\d+)$", r"\1.Lt", ops)
    if mnemonic.startswith("."):  # data the disassembler met (.word): never executed
        raise ToolError("trace reached data: %s %s" % (mnemonic, operands))
    return ("%s\t%s" % (mnemonic, ops)).rstrip()


def mca_text(instrs):
    """The llvm-mca input for a list of (mnemonic, operands)."""
    return ".text\n.Lt:\n" + "".join("\t%s\n" % to_mca_line(m, o) for m, o in instrs)


def shape_of(instrs, pcs=None):
    """Counts of the control flow: calls, conditional branches, loops."""
    calls = sum(1 for m, _ in instrs if m in ("bl", "blr"))
    mults = sum(1 for m, _ in instrs if m in MULTIPLIES)
    conds = sum(1 for m, _ in instrs if COND_RE.match(m))
    repeated = pcs is not None and len(set(pcs)) < len(pcs)
    if repeated:
        word = "loop"
    elif conds:
        word = "branches"
    elif calls:
        word = "calls"
    else:
        word = "straight"
    return {"calls": calls, "cond_branches": conds, "loop": repeated, "word": word,
            "mults": mults}


# --------------------------------------------------------------------------
# Fields and inputs


def eval_modulus(expr):
    """A fields.toml modulus expression (+ - * ^ parentheses, integers)."""
    if isinstance(expr, int):
        return expr
    tree = ast.parse(expr.replace("^", "**"), mode="eval")

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b,
                   ast.Mult: lambda: a * b, ast.Pow: lambda: a ** b}
            if type(n.op) in ops:
                return ops[type(n.op)]()
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -ev(n.operand)
        raise ToolError("modulus expression not understood: %r" % expr)
    return ev(tree)


def load_fields(root):
    with open(os.path.join(root, "fields.toml"), "rb") as f:
        data = tomllib.load(f)
    out = {}
    for name, tbl in data.items():
        p = eval_modulus(tbl["modulus"])
        out[name] = {"p": p, "n": (p.bit_length() + 63) // 64}
    return out


def limbs(x, n):
    return [(x >> (64 * i)) & (2**64 - 1) for i in range(n)]


def inputs_for(p, n):
    """Two input sets (a, b) for a field, both reduced, deterministic."""
    return [(p - 2, p - 3), (p // 3 + 12345, p // 7 + 678910)]


# --------------------------------------------------------------------------
# Rows, units and the harness


class Row:
    """One kernel to model: a label, where its code is, its symbol, its kind.

    field/op/impl place it in the table (impl: "clang", "gcc", "asm",
    "openssl"; other labels print as given)."""

    def __init__(self, label, path, symbol, kind, field=None, op=None, impl=None,
                 note=""):
        if kind not in KINDS:
            raise ToolError("kind %r is not one of %s" % (kind, ", ".join(KINDS)))
        self.label, self.path, self.symbol, self.kind = label, path, symbol, kind
        self.field, self.op, self.impl, self.note = field, op, impl, note
        self.result = None


class Unit:
    """Objects linked into one harness, and the rows it calls."""

    def __init__(self, name, objects, rows):
        self.name, self.objects, self.rows = name, objects, rows


def harness_source(rows, fields):
    """C source calling each row's symbol once per input set, in order."""
    protos, body, data = {}, [], []
    for i, r in enumerate(rows):
        f = fields[r.field]
        n, p = f["n"], f["p"]
        if r.kind in ("bn_mul", "bn_sqr"):
            protos[r.symbol] = ("int %s(uint64_t *, const uint64_t *, const uint64_t *, "
                                "const uint64_t *, const uint64_t *, int);" % r.symbol)
        elif r.kind in ("mul", "mul_wide", "mul_lazy", "fp2_mul"):
            protos[r.symbol] = "void %s(uint64_t *, const uint64_t *, const uint64_t *);" % r.symbol
        else:
            protos[r.symbol] = "void %s(uint64_t *, const uint64_t *);" % r.symbol
        n0 = (-pow(p, -1, 2**64)) % 2**64
        data.append("static const uint64_t p_%d[%d] = {%s};" % (
            i, n, ", ".join("0x%xu" % w for w in limbs(p, n))))
        data.append("static const uint64_t n0_%d[2] = {0x%xu, 0};" % (i, n0))
        for s, (a, b) in enumerate(inputs_for(p, n)):
            data.append("static const uint64_t a_%d_%d[%d] = {%s};" % (
                i, s, n, ", ".join("0x%xu" % w for w in limbs(a, n))))
            data.append("static const uint64_t b_%d_%d[%d] = {%s};" % (
                i, s, n, ", ".join("0x%xu" % w for w in limbs(b, n))))
            data.append("static const uint64_t t_%d_%d[%d] = {%s};" % (
                i, s, 2 * n, ", ".join("0x%xu" % w for w in limbs(a * b, 2 * n))))
            A, B, T = "a_%d_%d" % (i, s), "b_%d_%d" % (i, s), "t_%d_%d" % (i, s)
            if r.kind in FP2_KINDS:  # a = a + b u, b = b + a u
                data.append("static const uint64_t fa_%d_%d[%d] = {%s};" % (
                    i, s, 2 * n, ", ".join("0x%xu" % w for w in limbs(a, n) + limbs(b, n))))
                data.append("static const uint64_t fb_%d_%d[%d] = {%s};" % (
                    i, s, 2 * n, ", ".join("0x%xu" % w for w in limbs(b, n) + limbs(a, n))))
                A, B = "fa_%d_%d" % (i, s), "fb_%d_%d" % (i, s)
            call = {
                "mul": "%s(out, %s, %s);" % (r.symbol, A, B),
                "mul_wide": "%s(out, %s, %s);" % (r.symbol, A, B),
                "sqr": "%s(out, %s);" % (r.symbol, A),
                "sqr_wide": "%s(out, %s);" % (r.symbol, A),
                "mul_lazy": "%s(out, %s, %s);" % (r.symbol, A, B),
                "sqr_lazy": "%s(out, %s);" % (r.symbol, A),
                "fp2_mul": "%s(out, %s, %s);" % (r.symbol, A, B),
                "fp2_sqr": "%s(out, %s);" % (r.symbol, A),
                "redc": "%s(out, %s);" % (r.symbol, T),
                "bn_mul": "%s(out, %s, %s, p_%d, n0_%d, %d);" % (r.symbol, A, B, i, i, n),
                "bn_sqr": "%s(out, %s, %s, p_%d, n0_%d, %d);" % (r.symbol, A, A, i, i, n),
            }[r.kind]
            body.append("    " + call + " sink ^= out[0];")
    return "\n".join([
        "/* generated by research/aarch64/model.py: calls each kernel once per input set */",
        "#include <stdint.h>",
        "/* OpenSSL's armv8-mont reads this only for num > 32 (its NEON path). */",
        "__attribute__((weak)) unsigned int OPENSSL_armv8_rsa_neonized = 0;",
        *sorted(set(protos.values())),
        *data,
        "static uint64_t out[64];",
        "volatile uint64_t sink;",
        "int main(void)",
        "{",
        *body,
        "    return 0;",
        "}",
        ""])


def symbols(binary):
    """{name: (address, size)} of the defined symbols of a linked binary."""
    p = run(["nm", "-S", "--defined-only", binary])
    out = {}
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) == 4:
            out[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
        elif len(parts) == 3 and parts[2] not in out:
            out[parts[2]] = (int(parts[0], 16), 0)
    return out


TRACE_RE = re.compile(r"^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/", re.M)


def trace_pcs(log_text):
    """The guest PCs of a qemu -singlestep -d exec,nochain log, in order."""
    return [int(x, 16) for x in TRACE_RE.findall(log_text)]


def cut_calls(pcs, entries, main_range):
    """Split a whole-program PC trace into one PC list per call.

    entries: the entry address of each call, in the harness's order. A call
    starts at its entry reached from main and ends at the first PC back in
    main (the return address)."""
    lo, hi = main_range
    out, i, cur, prev = [], 0, None, None
    for pc in pcs:
        if cur is None:
            if i < len(entries) and pc == entries[i] and prev is not None and lo <= prev < hi:
                cur = [pc]
        elif lo <= pc < hi:
            out.append(cur)
            cur, i = None, i + 1
        else:
            cur.append(pc)
        prev = pc
    if i != len(entries):
        raise ToolError("the trace holds %d of the harness's %d calls" % (i, len(entries)))
    return out


IN_RE = re.compile(r"^IN:")
INSN_RE = re.compile(r"^0x([0-9a-f]+):\s")


def block_counts(log_text, entries, main_range):
    """Instructions per call from a log of qemu -d in_asm,exec,nochain
    without -singlestep: each executed block adds the length it had when
    qemu last translated it (its IN: listing). A second count, independent
    of -singlestep, that the tool checks the first against."""
    size, flow, cur = {}, [], None
    for line in log_text.splitlines():
        if IN_RE.match(line):
            cur = []
            continue
        if cur is not None:
            m = INSN_RE.match(line)
            if m:
                cur.append(int(m.group(1), 16))
                continue
            if cur:
                size[cur[0]] = len(cur)
            cur = None
        m = TRACE_RE.match(line)
        if m:
            pc = int(m.group(1), 16)
            if pc not in size:
                raise ToolError("qemu executed a block at 0x%x it never listed" % pc)
            flow.append((pc, size[pc]))
    lo, hi = main_range
    out, i, cur_n, prev = [], 0, None, None
    for pc, n in flow:
        if cur_n is None:
            if i < len(entries) and pc == entries[i] and prev is not None and lo <= prev < hi:
                cur_n = n
        elif lo <= pc < hi:
            out.append(cur_n)
            cur_n, i = None, i + 1
        else:
            cur_n += n
        prev = pc
    if i != len(entries):
        raise ToolError("the block log holds %d of the harness's %d calls" % (i, len(entries)))
    return out


def disassemble_ranges(binary, pcs):
    """{address: (mnemonic, operands)} covering every PC in pcs."""
    pcs = sorted(set(pcs))
    ranges, start, last = [], pcs[0], pcs[0]
    for pc in pcs[1:]:
        if pc - last > 4096:
            ranges.append((start, last))
            start = pc
        last = pc
    ranges.append((start, last))
    out = {}
    for a, b in ranges:
        p = run([OBJDUMP, "-d", "--no-show-raw-insn", "--start-address=0x%x" % a,
                 "--stop-address=0x%x" % (b + 4), binary])
        out.update(parse_objdump(p.stdout))
    missing = [pc for pc in pcs if pc not in out]
    if missing:
        raise ToolError("no disassembly at 0x%x" % missing[0])
    return out


def run_unit(unit, fields, work):
    """Link, run under qemu, and give each row its dynamic trace.

    Returns the lines to log (units run in parallel)."""
    lines = []
    callable_rows = [r for r in unit.rows if r.kind != "static"]
    if not callable_rows:
        return lines
    src = os.path.join(work, unit.name + "_harness.c")
    exe = os.path.join(work, unit.name + "_harness")
    with open(src, "w") as f:
        f.write(harness_source(callable_rows, fields))
    run(["nice", "-n", "19", CROSS_CC, "-O1", "-static", "-no-pie", "-o", exe, src]
        + unit.objects)
    syms = symbols(exe)
    qlog = exe + ".trace"
    run(["nice", "-n", "19", QEMU, "-singlestep", "-d", "exec,nochain", "-D", qlog, exe])
    with open(qlog) as f:
        pcs = trace_pcs(f.read())
    os.unlink(qlog)
    main = syms["main"]
    entries = []
    for r in callable_rows:
        if r.symbol not in syms:
            raise ToolError("%s: symbol %s not in the linked harness" % (r.label, r.symbol))
        entries += [syms[r.symbol][0]] * 2
    calls = cut_calls(pcs, entries, (main[0], main[0] + main[1]))
    # the same calls counted a second way: whole blocks, no -singlestep
    run(["nice", "-n", "19", QEMU, "-d", "in_asm,exec,nochain", "-D", qlog, exe])
    with open(qlog) as f:
        by_block = block_counts(f.read(), entries, (main[0], main[0] + main[1]))
    os.unlink(qlog)
    if by_block != [len(c) for c in calls]:
        raise ToolError("%s: qemu's single-step count %s differs from its block count %s"
                        % (unit.name, [len(c) for c in calls], by_block))
    dis = disassemble_ranges(exe, [pc for c in calls for pc in c])
    for k, r in enumerate(callable_rows):
        first, second = calls[2 * k], calls[2 * k + 1]
        instrs = [dis[pc] for pc in first]
        entry = entries[2 * k]
        if shape_of(instrs, first)["word"] == "straight" and (
                first != [entry + 4 * j for j in range(len(first))] or instrs[-1][0] != "ret"):
            raise ToolError("%s: a straight-line trace that is not the function's listing "
                            "from its entry to its ret: the trace cut is wrong" % r.label)
        r.result = {
            "instructions": len(first),
            "instructions_other_input": len(second),
            "same_path": first == second,
            "shape": shape_of(instrs, first),
            "mca_input": mca_text(instrs),
            "method": "qemu trace",
        }
        lines.append("  %-7s %-44s %5d instructions (%s)" % (
            r.field, r.label, len(first), r.result["shape"]["word"]))
    return lines


def static_row(r, log):
    """A row that cannot be called: its static listing, if straight-line."""
    p = run([OBJDUMP, "-d", "--no-show-raw-insn", "--disassemble-symbols=" + r.symbol, r.path])
    dis = parse_objdump(p.stdout)
    if not dis:
        raise ToolError("%s: no code for %s in %s" % (r.label, r.symbol, r.path))
    instrs = []
    for addr in sorted(dis):
        instrs.append(dis[addr])
        if dis[addr][0] == "ret":
            break
    shape = shape_of(instrs)
    if shape["word"] != "straight" or instrs[-1][0] != "ret":
        raise ToolError("%s: %s is not straight-line, so its static listing is not "
                        "what one call runs; give it a callable kind" % (r.label, r.symbol))
    r.result = {"instructions": len(instrs), "instructions_other_input": len(instrs),
                "same_path": True, "shape": shape, "mca_input": mca_text(instrs),
                "method": "static listing"}
    log("  %-7s %-44s %5d instructions (static, straight)" % (r.field, r.label, len(instrs)))


# --------------------------------------------------------------------------
# The method's own check: functions whose dynamic count is known

SELFTEST_S = """\
// generated by research/aarch64/model.py: known instruction counts
        .text
        .globl  fg_selftest_loop
        .type   fg_selftest_loop, %function
fg_selftest_loop:               // 1 + 10 * 2 + 1 = 22 instructions
        mov     x9, #10
1:      subs    x9, x9, #1
        b.ne    1b
        ret
        .size   fg_selftest_loop, . - fg_selftest_loop
        .globl  fg_selftest_call
        .type   fg_selftest_call, %function
fg_selftest_call:               // 4 here + 2 in the callee + 22 = 28 instructions
        stp     x29, x30, [sp, #-16]!
        bl      2f
        ldp     x29, x30, [sp], #16
        ret
2:      add     x9, x9, #1
        b       fg_selftest_loop
        .size   fg_selftest_call, . - fg_selftest_call
        .section .note.GNU-stack,"",%progbits
"""
SELFTEST_COUNTS = {"fg_selftest_loop": 22, "fg_selftest_call": 28}


def selftest(fields, work, log):
    """Trace two hand-written functions of known dynamic length; raise if
    the qemu count differs (the counting method is then broken)."""
    src = os.path.join(work, "selftest.S")
    obj = os.path.join(work, "selftest.o")
    with open(src, "w") as f:
        f.write(SELFTEST_S)
    run(["nice", "-n", "19", CROSS_CC, "-c", src, "-o", obj])
    field = next(iter(fields))
    rows = [Row("selftest " + sym, obj, sym, "sqr", field) for sym in SELFTEST_COUNTS]
    run_unit(Unit("selftest", [obj], rows), fields, work)
    for r in rows:
        want, got = SELFTEST_COUNTS[r.symbol], r.result["instructions"]
        if got != want or not r.result["same_path"]:
            raise ToolError("selftest: %s ran %d instructions under qemu, expected %d"
                            % (r.symbol, got, want))
    log("  selftest: the loop and the call run 22 and 28 instructions, as written")


# --------------------------------------------------------------------------
# The default row set


def compiler_versions():
    c = run([CLANG, "--version"]).stdout.splitlines()[0]
    m = re.search(r"clang version (\d+)\.", c)
    g = run([CROSS_CC, "-dumpfullversion"]).stdout.strip()
    return "clang %s" % (m.group(1) if m else "?"), "gcc %s" % g.split(".")[0]


def c_unit(root, work, comp, cname, fld):
    """Our C for one field and compiler, plus our .S when the tree has one."""
    rt = os.path.join(root, "runtime")
    gdir = os.path.join(root, "generated", fld)
    inc = ["-I", rt, "-I", gdir]
    objs = []
    for src, tag in ((os.path.join(gdir, "fg_%s.c" % fld), fld),
                     (os.path.join(rt, "fg_cpu.c"), "cpu_" + fld)):
        obj = os.path.join(work, "%s_%s.o" % (comp, tag))
        cc = [CLANG, "--target=aarch64-linux-gnu"] if comp == "clang" else [CROSS_CC]
        run(["nice", "-n", "19"] + cc + ["-O3", "-c", src, "-o", obj] + inc)
        objs.append(obj)
    defined = set(run(["nm", "--defined-only", objs[0]]).stdout.split())
    rows = [Row("fieldgen %s C (%s -O3)" % (op, cname), objs[0],
                "fg_%s_%s_c" % (fld, op), op, fld, op, comp) for op in OPS
            if "fg_%s_%s_c" % (fld, op) in defined]  # mul_lazy, sqr_lazy: some fields
    asm = os.path.join(gdir, "fg_%s_aarch64.S" % fld)
    if os.path.exists(asm):
        aobj = os.path.join(work, "%s_%s_aarch64.o" % (comp, fld))
        run(["nice", "-n", "19", CROSS_CC, "-c", asm, "-o", aobj] + inc)
        objs.append(aobj)
        if comp == "clang":  # the kernels are the same text in both units: model them once
            rows += asm_rows(fld, asm, aobj)
    return Unit("%s_%s" % (comp, fld), objs, rows)


def default_units(root, fields, work, which_fields, jobs, log):
    """The issue's rows: our C (clang, gcc), our asm if present, OpenSSL's."""
    clang_v, gcc_v = compiler_versions()
    combos = [(comp, cname, fld) for comp, cname in (("clang", clang_v), ("gcc", gcc_v))
              for fld in which_fields]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        units = list(ex.map(lambda c: c_unit(root, work, *c), combos))
    statics = []
    if os.path.exists(LIBCRYPTO):
        odir = os.path.join(work, "openssl")
        os.makedirs(odir, exist_ok=True)
        members = ["libcrypto-lib-armv8-mont.o", "libcrypto-lib-ecp_nistz256-armv8.o",
                   "libcrypto-lib-curve25519.o"]
        run(["ar", "x", "--output=" + odir, LIBCRYPTO] + members)
        mont, nistz, c25519 = [os.path.join(odir, m) for m in members]
        rows = []
        if "p256" in which_fields:
            rows += [Row("OpenSSL ecp_nistz256_mul_mont (armv8 asm)", nistz,
                         "ecp_nistz256_mul_mont", "mul", "p256", "mul", "openssl"),
                     Row("OpenSSL ecp_nistz256_sqr_mont (armv8 asm)", nistz,
                         "ecp_nistz256_sqr_mont", "sqr", "p256", "sqr", "openssl")]
        for fld in which_fields:
            n = fields[fld]["n"]
            rows += [Row("OpenSSL bn_mul_mont, num=%d (armv8 asm)" % n, mont,
                         "bn_mul_mont", "bn_mul", fld, "mul", "openssl-bn"),
                     Row("OpenSSL bn_mul_mont, a=b, num=%d (armv8 asm)" % n, mont,
                         "bn_mul_mont", "bn_sqr", fld, "sqr", "openssl-bn")]
        units.append(Unit("openssl", [mont, nistz], rows))
        if "p25519" in which_fields:
            statics += [Row("OpenSSL fe51_mul (C in curve25519.c, 5x51)", c25519, "fe51_mul",
                            "static", "p25519", "mul", "openssl-c"),
                        Row("OpenSSL fe51_sq (C in curve25519.c, 5x51)", c25519, "fe51_sq",
                            "static", "p25519", "sqr", "openssl-c")]
    else:
        log("note: %s not found: no OpenSSL rows" % LIBCRYPTO)
    return units, statics


def asm_rows(fld, asm, aobj):
    """Rows for every fieldgen kernel in an assembled fg_<f>_aarch64.S."""
    p = run(["nm", "--defined-only", aobj])
    rows = []
    prefix = "fg_%s_" % fld
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) != 3 or parts[1] not in "Tt" or not parts[2].startswith(prefix):
            continue
        rest = parts[2][len(prefix):]
        for op in ALL_OPS:
            if rest.startswith(op + "_"):
                level = rest[len(op) + 1:]
                if op in OPS and level != "c":
                    rows.append(Row("fieldgen %s asm (%s, %s)" % (op, level, os.path.basename(asm)),
                                    aobj, parts[2], op, fld, op, "asm"))
                break
    return sorted(rows, key=lambda r: (OPS.index(r.op), r.symbol))


# --------------------------------------------------------------------------
# llvm-mca over every row


def find_mcas(explicit):
    if explicit:
        return explicit
    found = []
    base = shutil.which("llvm-mca-14") or shutil.which("llvm-mca")
    if base:
        found.append(base)
    newer = []
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if os.path.isdir(d):
            for name in os.listdir(d):
                m = re.match(r"^llvm-mca-(\d+)$", name)
                if m and int(m.group(1)) > 14:
                    newer.append((int(m.group(1)), os.path.join(d, name)))
    if newer:
        found.append(max(newer)[1])
    if not found:
        raise ToolError("no llvm-mca on PATH")
    return found


def mca_version(mca):
    out = run([mca, "--version"]).stdout
    m = re.search(r"LLVM version (\d+\.\d+\.\d+)", out)
    return m.group(1) if m else "?"


# A block touching the multiplier, the ALUs and a load: enough for llvm-mca
# to list its model's resources.
PROBE = ("\tmul\tx1, x2, x3\n\tumulh\tx4, x2, x3\n\tadds\tx5, x1, x4\n"
         "\tadcs\tx6, x6, xzr\n\tldr\tx7, [x0]\n")


def probe_models(mcas):
    """({(mca, cpu): model name}, {(mca, cpu): the cpu whose runs it shares}).

    The model is read from llvm-mca's resource list. Two -mcpu values of one
    llvm-mca that list the same resources get the same scheduling model, so
    their cycles are the same and only the first is run."""
    names, same = {}, {}
    for mca in mcas:
        seen = {}
        for cpu in CPUS:
            res, _ = run_mca(mca, cpu, PROBE, 1, views=True)
            names[(mca, cpu)] = model_of(res["resources"])
            same[(mca, cpu)] = seen.setdefault(tuple(res["resources"]), cpu)
    return names, same


def model_rows(rows, mcas, same, jobs, log):
    """Every row under every (llvm-mca, -mcpu): 100 iterations and one.

    Identical inputs (one instruction sequence in two rows) and -mcpu values
    sharing a model are run once."""
    jobs_by_key, wanted = {}, []
    for r in rows:
        r.result["mca"] = {}
        for mca in mcas:
            for cpu in CPUS:
                key = (mca, same[(mca, cpu)], r.result["mca_input"])
                jobs_by_key.setdefault(key, r.result["instructions"])
                wanted.append((r, mca, cpu, key))

    def one(key):
        mca, cpu, text = key
        many, notes = run_mca(mca, cpu, text, ITERATIONS)
        single, _ = run_mca(mca, cpu, text, 1)
        if many["instructions"] != ITERATIONS * jobs_by_key[key]:
            raise ToolError("llvm-mca read %d instructions per iteration, the trace has %d"
                            % (many["instructions"] // ITERATIONS, jobs_by_key[key]))
        return key, {"rthroughput": many["block_rthroughput"],
                     "cycles": many["cycles_per_iteration"],
                     "single": single["total_cycles"], "notes": notes}

    # the longest first, so that the pool does not end on one long run
    keys = sorted(jobs_by_key, key=lambda k: -jobs_by_key[k])
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        done = dict(ex.map(one, keys))
    for r, mca, cpu, key in wanted:
        r.result["mca"][(mca, cpu)] = done[key]
    log("  llvm-mca: %d runs for %d rows x %d models" % (2 * len(keys), len(rows),
                                                        len(mcas) * len(CPUS)))


# --------------------------------------------------------------------------
# Tables

IMPL_ORDER = {"clang": 0, "gcc": 1, "asm": 2, "openssl": 3, "openssl-bn": 4, "openssl-c": 5}


def host_cpu():
    """The x86 CPU's name with its family and model (the research record's way)."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if ":" in line:
                    k, v = line.split(":", 1)
                    info.setdefault(k.strip(), v.strip())
    except OSError:
        pass
    name = info.get("model name") or platform.processor() or "unknown CPU"
    if "cpu family" in info and "model" in info:
        name += " (family %xh model %02xh)" % (int(info["cpu family"]), int(info["model"]))
    return name


def fmt(x):
    return "%.1f" % x if x < 100 else "%.0f" % x


def tables(rows, mcas, versions, models):
    """Markdown: one main table per llvm-mca, then the details."""
    ordered = sorted(rows, key=lambda r: (
        SHIPPED.index(r.field) if r.field in SHIPPED else 99, r.field or "",
        OPS.index(r.op) if r.op in OPS else 99, IMPL_ORDER.get(r.impl, 9), r.label))
    base = {(r.field, r.op): r for r in rows if r.impl == "clang"}
    out = []
    for mca in mcas:
        ver = versions[mca]
        heads = ["%s (%s)" % (CPU_SHORT[c], models[(mca, c)].split(" (")[0]) for c in CPUS]
        out.append("### llvm-mca %s: cycles per call, 100 calls back to back\n" % ver)
        out.append("| field | op | kernel | instructions | multiplies | shape | %s "
                   "| x clang C (%s) |" % (" | ".join(heads), "/".join(CPU_SHORT[c] for c in CPUS)))
        out.append("|---|---|---|---:|---:|---|%s---|" % ("---:|" * len(CPUS)))
        for r in ordered:
            res = r.result
            cyc = [res["mca"][(mca, c)]["cycles"] for c in CPUS]
            b = base.get((r.field, r.op))
            ratio = "-" if b is None or b is r else "/".join(
                "%.2f" % (x / b.result["mca"][(mca, c)]["cycles"]) for x, c in zip(cyc, CPUS))
            if b is r:
                ratio = "1"
            insn = str(res["instructions"])
            if not res["same_path"]:
                insn += " (other input: %d)" % res["instructions_other_input"]
            out.append("| %s | %s | %s | %s | %d | %s | %s | %s |" % (
                r.field, r.op, r.label, insn, res["shape"]["mults"], res["shape"]["word"],
                " | ".join(fmt(x) for x in cyc), ratio))
        out.append("")
    out.append("### Details: block reciprocal throughput / cycles of one call alone\n")
    cols = ["%s %s" % (CPU_SHORT[c], versions[m]) for m in mcas for c in CPUS]
    out.append("| field | op | kernel | calls | cond. branches | %s |" % " | ".join(cols))
    out.append("|---|---|---|---:|---:|%s" % ("---:|" * len(cols)))
    for r in ordered:
        res = r.result
        cells = ["%s / %s" % (fmt(res["mca"][(m, c)]["rthroughput"]),
                              res["mca"][(m, c)]["single"]) for m in mcas for c in CPUS]
        out.append("| %s | %s | %s | %d | %d | %s |" % (
            r.field, r.op, r.label, res["shape"]["calls"], res["shape"]["cond_branches"],
            " | ".join(cells)))
    out.append("")
    return "\n".join(out)


def targets(rows, mcas, versions):
    """The issue's targets, checked on every fieldgen asm row."""
    base = {(r.field, r.op): r for r in rows if r.impl == "clang"}
    ossl = {(r.field, r.op): r for r in rows if r.impl == "openssl"}
    asm = [r for r in rows if r.impl == "asm"]
    if not asm:
        return ("No fieldgen AArch64 assembly on this tree (no generated/<f>/fg_<f>_aarch64.S): "
                "the targets (every asm kernel at most 0.75x our clang C, p256 mul and sqr at "
                "most 1.0x OpenSSL's armv8) have nothing to check yet. Rerun on a tree that has "
                "the files and their rows appear above and here.\n")
    out = ["| kernel | target | %s |" % " | ".join(
        "%s %s" % (CPU_SHORT[c], versions[m]) for m in mcas for c in CPUS),
        "|---|---|%s" % ("---|" * (len(mcas) * len(CPUS)))]
    for r in asm:
        checks = [("<= 0.75x clang C", base.get((r.field, r.op)), 0.75)]
        if r.field == "p256" and r.op in ("mul", "sqr"):
            checks.append(("<= 1.0x OpenSSL", ossl.get((r.field, r.op)), 1.0))
        for name, ref, limit in checks:
            if ref is None:
                continue
            cells = []
            for m in mcas:
                for c in CPUS:
                    x = r.result["mca"][(m, c)]["cycles"] / ref.result["mca"][(m, c)]["cycles"]
                    cells.append("%.2f %s" % (x, "met" if x <= limit else "MISSED"))
            out.append("| %s %s %s | %s | %s |" % (r.field, r.op, r.symbol, name,
                                                   " | ".join(cells)))
    return "\n".join(out) + "\n"


BEGIN = "<!-- MODEL-TABLE: written by model.py --write; edits between the markers are lost -->"
END = "<!-- /MODEL-TABLE -->"


def write_readme(path, text):
    with open(path) as f:
        old = f.read()
    if BEGIN not in old or END not in old:
        raise ToolError("%s lacks the MODEL-TABLE markers" % path)
    head, rest = old.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + BEGIN + "\n" + text + END + tail
    if new != old:
        with open(path, "w") as f:
            f.write(new)


def qemu_version():
    return run([QEMU, "--version"]).stdout.splitlines()[0]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=ROOT_DEFAULT, help="the fieldgen tree (default: this one)")
    ap.add_argument("--fields", default=",".join(SHIPPED),
                    help="comma-separated fields for the default rows (default: %(default)s)")
    ap.add_argument("--row", nargs=5, action="append", default=[],
                    metavar=("LABEL", "FILE", "SYMBOL", "KIND", "FIELD"),
                    help="an extra row: FILE is a .o (an archive member: extract it with "
                         "ar x), .S or .c; KIND one of "
                         + ", ".join(KINDS) + "; FIELD sets the limb count and inputs")
    ap.add_argument("--only-rows", action="store_true", help="no default rows, only --row ones")
    ap.add_argument("--mca", action="append", default=[],
                    help="an llvm-mca to run (repeatable; default: llvm-mca-14 and the newest "
                         "llvm-mca-NN on PATH)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                    help="parallel compiler and llvm-mca processes (default: %(default)s)")
    ap.add_argument("--write", action="store_true", help="update README.md beside this file")
    ap.add_argument("--keep", metavar="DIR", help="keep the harnesses and traces in DIR")
    args = ap.parse_args(argv)

    def log(msg):
        print(msg, file=sys.stderr)

    root = os.path.abspath(args.root)
    fields = load_fields(root)
    which = [f for f in args.fields.split(",") if f]
    for f in which:
        if f not in fields:
            raise ToolError("field %r is not in %s/fields.toml" % (f, root))
    work = args.keep or tempfile.mkdtemp(prefix="fg-aarch64-model-")
    os.makedirs(work, exist_ok=True)
    try:
        units, statics = ([], []) if args.only_rows else default_units(
            root, fields, work, which, args.jobs, log)
        extra = []
        for label, path, symbol, kind, fld in args.row:
            if fld not in fields:
                raise ToolError("--row %s: field %r is not in fields.toml" % (label, fld))
            obj = path
            if path.endswith((".S", ".s", ".c")):
                obj = os.path.join(work, "row%d.o" % len(extra))
                run(["nice", "-n", "19", CROSS_CC, "-O3", "-c", path, "-o", obj,
                     "-I", os.path.join(root, "runtime"),
                     "-I", os.path.join(root, "generated", fld)])
            r = Row(label, obj, symbol, kind, fld, kind if kind in OPS + FP2_KINDS else None,
                    "extra")
            (statics if kind == "static" else extra).append(r)
        if extra:
            units.append(Unit("extra", sorted({r.path for r in extra}), extra))
        log("tracing under %s -singlestep:" % QEMU)
        selftest(fields, work, log)
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
            logs = list(ex.map(lambda u: run_unit(u, fields, work), units))
        for lines in logs:
            for line in lines:
                log(line)
        for r in statics:
            static_row(r, log)
        rows = [r for u in units for r in u.rows] + statics
        mcas = find_mcas(args.mca)
        versions = {m: mca_version(m) for m in mcas}
        models, same = probe_models(mcas)
        model_rows(rows, mcas, same, args.jobs, log)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    notes = sorted({n for r in rows for v in r.result["mca"].values() for n in v["notes"]})
    lines = ["Generated %s UTC by `research/aarch64/model.py` on an x86-64 %s (no AArch64 "
             "hardware): **a model, not a measurement.** Instruction counts are exact (qemu "
             "traces, %s); cycles are llvm-mca's, for the scheduling model each -mcpu gets:"
             % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
                host_cpu(), qemu_version()), ""]
    lines.append("| llvm-mca | %s |" % " | ".join("-mcpu=%s" % c for c in CPUS))
    lines.append("|---|%s" % ("---|" * len(CPUS)))
    for m in mcas:
        cells = []
        for c in CPUS:
            got = models[(m, c)]
            cell = (got + " model" if got.startswith(OWN_MODEL[c]) else
                    "**%s** model (no %s model)" % (got, OWN_MODEL[c]))
            if same[(m, c)] != c:
                cell += ", the same as %s's: one run serves both" % same[(m, c)]
            cells.append(cell)
        lines.append("| %s | %s |" % (versions[m], " | ".join(cells)))
    lines += ["", "llvm-mca's notes on these inputs: " + "; ".join(
        "`%s`" % n for n in notes) + "." if notes else "", ""]
    body = "\n".join(lines) + "\n" + tables(rows, mcas, versions, models) + \
        "\n### The issue's targets\n\n" + targets(rows, mcas, versions)
    print(body)
    if args.write:
        write_readme(os.path.join(HERE, "README.md"), body)
        log("wrote %s" % os.path.join(HERE, "README.md"))
    bad = [r.label for r in rows if not r.result["same_path"]]
    if bad:
        log("note: instruction count depends on the input for: " + ", ".join(bad))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ToolError as e:
        print("model.py: " + str(e), file=sys.stderr)
        sys.exit(1)
