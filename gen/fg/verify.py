# SPDX-License-Identifier: MIT OR Apache-2.0
"""The checked build (FIELDGEN_VERIFY, the C macro FG_VERIFY): every public
entry point asserts its input contract and aborts, naming the function, on an
input outside it. docs/verify.md.

One table, derived from the rendered header's prototypes, drives both the
header's "In:" line of each function and the C wrappers (templates/c_verify.j2):
the contract a user reads is the one the checked build enforces.

Rules, by parameter:
- `const fg_NAME *x` (and `const fg_NAME_fp2 *x`, both coordinates): x's
  internal value below p, or below 2p for the ops that accept lazy operands
  (mul, sqr, mul_wide, sqr_wide, mul_lazy, sqr_lazy, canon) in a field whose
  lazy bound holds (4p <= 2^(64n)); in a pseudo-Mersenne field with lazy
  ops (lazy_pm) no bound at all for those ops, add_lazy, sub_lazy,
  mul_small_lazy, cmov and cswap (any value below 2^(64n) is valid); for
  `in`/`table` followed by `size_t n`, the n elements;
- the non-const operands that are also inputs: cmov's r, cswap's a and b;
- `int cond`: 0 or 1;
- redc's `t` (Montgomery form): t < p * 2^(64n), i.e. its high half below p.
The per-level kernels (fg_NAME_OP_LEVEL) are not wrapped: they are the raw
limb interfaces for tests and benchmarks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import targets

# suffixes of the per-level kernels, never wrapped: the C level's and each
# target's (gen/fg/targets: KERNEL_SUFFIXES)
KERNEL_SUFFIXES = ("_c",) + tuple(s for t in targets.TARGETS for s in t.KERNEL_SUFFIXES)
# ops whose element operands may be below 2p where the field's lazy bound holds
LAZY_INPUT_OPS = frozenset({"mul", "sqr", "mul_wide", "sqr_wide", "mul_lazy", "sqr_lazy", "canon"})
# ops whose element operands may be any value below 2^(64n) in a pseudo-Mersenne
# field with lazy ops (FieldAnalysis.lazy_pm): its lazy range
LAZY_PM_INPUT_OPS = LAZY_INPUT_OPS | {"add_lazy", "sub_lazy", "mul_small_lazy", "cmov", "cswap"}
# the non-const pointer operands that are read as well as written
INOUT = {"cmov": ("r",), "cswap": ("a", "b"), "fp2_cmov": ("r",), "fp2_cswap": ("a", "b")}


@dataclass(frozen=True)
class Check:
    kind: str       # "elem" | "fp2" | "elems" | "fp2s" | "cond" | "redc"
    arg: str        # the parameter checked
    bound: str      # "p" | "2p" | "any" (elements: "any" checks nothing), "" otherwise
    count: str = "" # "n" for arrays


@dataclass(frozen=True)
class Entry:
    name: str       # fg_NAME_OP
    op: str         # OP
    ret: str        # "void" | "int"
    params: str     # the parameter list as declared
    args: str       # the argument names, comma-separated
    checks: tuple   # Check, in parameter order


_PROTO = re.compile(r"^(void|int) (fg_\w+)\((.*)\);$", re.M)
_PARAM = re.compile(r"^(?P<type>.*?)(?P<name>\w+)(?P<array>\s*\[[^\]]*\])?$")


def _split(params):
    out = []
    for p in params.split(","):
        m = _PARAM.match(p.strip())
        out.append((m.group("type").strip(), m.group("name")))
    return out


def entries(fa, header):
    """The public functions of field fa, from its rendered header, with the
    checks of their input contracts."""
    base, fp2 = f"fg_{fa.name}", f"fg_{fa.name}_fp2"
    out = []
    for ret, fname, params in _PROTO.findall(header):
        if not fname.startswith(base + "_"):
            continue
        op = fname[len(base) + 1:]
        if op.endswith(KERNEL_SUFFIXES):
            continue
        ps = _split(params)
        checks = []
        for i, (typ, arg) in enumerate(ps):
            array = arg in ("in", "table") and i + 1 < len(ps) and ps[i + 1] == ("size_t", "n")
            inout = arg in INOUT.get(op, ())
            if typ in (f"const {base} *", f"{base} *") and (typ.startswith("const") or inout):
                lazy = fa.lazy and op in LAZY_INPUT_OPS
                bound = "any" if fa.lazy_pm and op in LAZY_PM_INPUT_OPS and not array else "2p" if lazy else "p"
                checks.append(Check("elems" if array else "elem", arg, bound, "n" if array else ""))
            elif typ in (f"const {fp2} *", f"{fp2} *") and (typ.startswith("const") or inout):
                checks.append(Check("fp2s" if array else "fp2", arg, "p", "n" if array else ""))
            elif typ == "int" and arg == "cond":
                checks.append(Check("cond", arg, ""))
            elif op == "redc" and arg == "t" and fa.form == "montgomery":
                checks.append(Check("redc", arg, ""))
        out.append(Entry(fname, op, ret, params, ", ".join(a for _t, a in ps), tuple(checks)))
    return out


def contract_text(fa, e):
    """The header's "In:" phrase for entry e, or None when it takes no input
    with a contract."""
    parts = []
    elems = [c for c in e.checks if c.kind in ("elem", "fp2")]
    for bound in ("p", "2p", "any"):
        names = [c.arg for c in elems if c.bound == bound]
        if names:
            what = ("canonical (below p)" if bound == "p" else "below 2p" if bound == "2p"
                    else f"any value{'s' if len(names) > 1 else ''} below 2^{64 * fa.n}")
            parts.append(f"{', '.join(names)} {what}")
    for c in e.checks:
        if c.kind in ("elems", "fp2s"):
            parts.append(f"{c.arg}[0..n-1] canonical")
        elif c.kind == "cond":
            parts.append("cond 0 or 1")
        elif c.kind == "redc":
            parts.append(f"t < p * 2^{64 * fa.n}")
    if not parts:
        return None
    if all(c.bound == "any" for c in e.checks):
        return "In: " + "; ".join(parts) + " (every limb pattern is valid)."
    return "In: " + "; ".join(parts) + ". Outside that: undefined, and not the same at every level (FIELDGEN_VERIFY aborts)."


def annotate_header(fa, header):
    """The header with each contract's "In:" line added to the comment that
    documents its function (the comment ending on the line before the
    prototype)."""
    lines = header.split("\n")
    by_name = {e.name: e for e in entries(fa, header)}
    out = []
    for line in lines:
        m = _PROTO.match(line)
        e = by_name.get(m.group(2)) if m else None
        text = contract_text(fa, e) if e else None
        if text and out and out[-1].rstrip().endswith("*/"):
            prev = out[-1].rstrip()[:-2].rstrip()
            indent = " * "
            out[-1] = prev
            out.extend(_wrap(indent, text))
            out[-1] += " */"
        out.append(line)
    return "\n".join(out)


def _wrap(indent, text, width=80):
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(indent) + len(cur) + 1 + len(w) > width:
            lines.append(indent + cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    lines.append(indent + cur)
    return lines
