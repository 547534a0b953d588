# SPDX-License-Identifier: MIT OR Apache-2.0
"""What the PeachPy (0.2.0) emitters share: functions of physical registers,
their GAS text (with the ENDBR64 and call-frame information every function
gets: finish_function), and constant tables addressed RIP-relative.

Constant tables.

PeachPy 0.2.0 cannot print a label in a RIP-relative operand in GAS syntax.
The emitters therefore address byte `off` of table `name` as the plain RIP
offset `base + stride * index(name) + off` (a placeholder no real kernel
offset reaches), and `resolve` rewrites every placeholder in the printed text
into `MACRO+off(%rip)`. `rodata` defines one cpp macro per table, naming an
assembler-local label of the object format (`.L...` in .rodata on ELF,
`L...` in __TEXT,__const on Mach-O), and emits the tables; the .S file is run
through cpp, so one text serves both formats.
"""

from __future__ import annotations

import copy
import re

import peachpy.x86_64.abi
from peachpy.x86_64 import Function


class PhysicalFunction(Function):
    """A Function whose registers are all physical (the emitters allocate them).

    PeachPy's live-register check counts rsp among the 15 allocatable registers,
    which rejects valid code that uses all 15 with rsp-relative stack slots; its
    liveness analysis only feeds that check and the (unused) allocator.
    """

    def _check_live_registers(self):
        pass

    def _analize(self):
        pass


# PeachPy closes each function's label block (Mach-O label, then ELF label)
# with this line; the function's first instruction follows it.
_LABEL_END = "#endif /* !__APPLE */\n"

# Control-flow enforcement (Intel CET): built with -fcf-protection, the
# compiler defines __CET__, and every function that may be reached by an
# indirect branch must start with ENDBR64 (a NOP to CPUs without IBT). The
# kernels are exported and their addresses taken (fieldgen-bench calls
# them through pointers), so each gets one. The .S also declares the
# IBT/SHSTK property then (targets/x86_64/__init__.py emit); without both, linking these
# objects turns CET off for the whole program.
_ENDBR = "#ifdef __CET__\n\tendbr64\n#endif\n"


def gas_text(fn):
    """The GAS text of fn, finalized without PeachPy's deep copy of every
    instruction (generation speed; fn is discarded afterwards, so sharing its
    instruction objects is safe), finished by finish_function."""
    deep = copy.deepcopy
    copy.deepcopy = lambda x, memo=None: list(x) if isinstance(x, list) else x
    try:
        final = fn.finalize(peachpy.x86_64.abi.system_v_x86_64_abi)
    finally:
        copy.deepcopy = deep
    return finish_function(final.format(assembly_format="gas"))


# Symbol binding on ELF: a kernel is exported (tests, benchmarks and users
# call a level directly) with the visibility FG_VISIBILITY, "protected"
# unless the build defines it (-DFG_VISIBILITY=hidden), so a shared library
# that links the .S binds its own references to it: the dispatchers' tail
# jumps stay direct jumps instead of going through the PLT, whose stub is an
# indirect jump (the dispatcher rule; tests/shared_test.sh checks a linked
# library). The generated C declares its functions the same way
# (FG_BIND_BEGIN, runtime/fg_cpu.h). The C preprocessor turns
# ".FG_VISIBILITY" into ".protected" or ".hidden"; each function carries the
# default itself, so its text assembles alone too (tests, research/).
# Mach-O binds references within an image directly already.
_ELF_TYPE = re.compile(r"^\.type (\w+), @function$", re.M)
_ELF_BIND = "#ifndef FG_VISIBILITY\n#define FG_VISIBILITY protected\n#endif\n.FG_VISIBILITY %s"


def finish_function(text):
    """One function's PeachPy GAS text as the .S files carry it: its ELF
    visibility after its symbol type (_ELF_BIND), the CET landing pad
    (_ENDBR) as its first instruction, and call-frame information
    (with_cfi)."""
    assert text.count(_LABEL_END) == 1, "PeachPy's function header changed"
    assert len(_ELF_TYPE.findall(text)) == 1, "PeachPy's ELF symbol header changed"
    text = _ELF_TYPE.sub(lambda m: m.group(0) + "\n" + _ELF_BIND % m.group(1), text)
    return with_cfi(text.replace(_LABEL_END, _LABEL_END + _ENDBR))


_PUSH_POP = re.compile(r"^\s*(push|pop)q\s+(%\w+)\s*$")
_RSP_IMM = re.compile(r"^\s*(sub|add)q\s+\$(\d+),\s*%rsp\s*$")
_RSP_COPY = re.compile(r"^\s*movq\s+%rsp,\s*(%\w+)\s*$")
_RSP_BACK = re.compile(r"^\s*movq\s+(%\w+),\s*%rsp\s*$")
_RSP_ALIGN = re.compile(r"^\s*andq\s+\$-\d+,\s*%rsp\s*$")
_RSP_WRITE = re.compile(r"^\s*(?!(test|cmp|bt)q?\s)[a-z]\w*\s+.*,\s*%rsp\s*$|^\s*(ret|leave|call)")


def with_cfi(text):
    """One function's GAS text with DWARF call-frame information, so that
    debuggers, profilers and crash reporters unwind through a kernel
    (.eh_frame on ELF, compact unwind or __eh_frame on Mach-O): the
    canonical frame address followed through every instruction that moves
    rsp, which in these kernels are only PUSH and POP of the callee-saved
    registers, SUB and ADD of an immediate, and the aligned frame of the IFMA
    kernels (rsp copied to a register that holds the CFA while rsp is ANDed
    down, then copied back); tests/ct_static.py proves no other write to rsp
    exists. Anything else that writes rsp stops generation."""
    out, cfa_reg, started = [], "%rsp", False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped == _LABEL_END.strip():
            out += [line, ".cfi_startproc"]
            started = True
            continue
        out.append(line)
        if not started or stripped.startswith(("#", ".")) or not stripped:
            continue
        m = _PUSH_POP.match(line)
        if m:
            assert cfa_reg == "%rsp", "a push or pop while a register holds the CFA: " + line
            if m.group(1) == "push":
                out += [".cfi_adjust_cfa_offset 8", ".cfi_rel_offset %s, 0" % m.group(2)]
            else:
                out += [".cfi_adjust_cfa_offset -8", ".cfi_restore %s" % m.group(2)]
        elif _RSP_IMM.match(line):
            op, n = _RSP_IMM.match(line).groups()
            if cfa_reg == "%rsp":
                out.append(".cfi_adjust_cfa_offset %s%s" % ("" if op == "sub" else "-", n))
        elif _RSP_COPY.match(line):
            assert cfa_reg == "%rsp", "rsp copied while a register holds the CFA: " + line
            cfa_reg = _RSP_COPY.match(line).group(1)
            out.append(".cfi_def_cfa_register %s" % cfa_reg)
        elif _RSP_BACK.match(line):
            assert _RSP_BACK.match(line).group(1) == cfa_reg != "%rsp", \
                "rsp set from a register that does not hold the CFA: " + line
            cfa_reg = "%rsp"
            out.append(".cfi_def_cfa_register %rsp")
        elif _RSP_ALIGN.match(line):
            assert cfa_reg != "%rsp", "rsp aligned while it holds the CFA: " + line
        elif stripped == "ret":
            assert cfa_reg == "%rsp", "ret while a register holds the CFA: " + line
            out.append(".cfi_endproc")
            started = False
        else:
            assert not _RSP_WRITE.match(line), "an rsp write the CFI pass does not model: " + line
            # while a register holds the CFA, nothing else may touch it (any
            # width: a write to its low half would change it too)
            assert cfa_reg == "%rsp" or not re.search(r"%s[dwb]?\b" % re.escape(cfa_reg), line), \
                "the register holding the CFA is used: " + line
    assert not started, "no ret"
    return "\n".join(out)


class Tables:
    def __init__(self, field, family, names, base, stride):
        """field: the field's name; family: the kernels' label tag ("mont",
        "ifma", ...); names: every table the family may use, in a fixed order."""
        self.field, self.family, self.names = field, family, tuple(names)
        self.base, self.stride = base, stride

    def macro(self, name):
        return "FG_%s_%s_%s" % (self.field.upper(), self.family.upper(), name.upper())

    def offset(self, name, byte=0):
        """The RIP placeholder of byte `byte` of table `name`."""
        assert 0 <= byte < self.stride
        return self.base + self.stride * self.names.index(name) + byte

    def rodata(self, contents, align_each=False, reuse=None):
        """The macros and the tables: contents maps a table name to its qwords
        (emitted in `names` order); 64-byte aligned as a whole, or each table
        on its own when align_each (tables read as whole zmm vectors).
        reuse: (family, contents) of tables emitted in the same file by
        another family (same field, same alignment); a table with equal
        qwords there is not emitted again, its macro names that copy."""
        used = [t for t in self.names if t in contents]
        label = "fg_%s_%s_%%s" % (self.field, self.family)
        own = {t: label % t for t in used}
        if reuse is not None:
            for t in used:
                if reuse[1].get(t) == contents[t]:
                    own[t] = "fg_%s_%s_%s" % (self.field, reuse[0], t)
        lines = ["#ifdef __APPLE__"]
        lines += ["#define %s L%s" % (self.macro(t), own[t]) for t in used]
        lines += [".section __TEXT,__const", "#else"]
        lines += ["#define %s .L%s" % (self.macro(t), own[t]) for t in used]
        lines += [".section .rodata", "#endif"]
        if not align_each:
            lines.append(".p2align 6")
        for t in used:
            if own[t] != label % t:
                continue
            if align_each:
                lines.append(".p2align 6")
            lines.append("%s:" % self.macro(t))
            lines += ["\t.quad 0x%016x" % x for x in contents[t]]
        return "\n".join(lines) + "\n"

    def resolve(self, text):
        """Every placeholder `N(%rip)` of these tables in text, as `MACRO+off(%rip)`."""
        end = self.base + self.stride * len(self.names)

        def sub(mo):
            v = int(mo.group(1))
            if not self.base <= v < end:
                return mo.group(0)
            v -= self.base
            return "%s+%d(%%rip)" % (self.macro(self.names[v // self.stride]), v % self.stride)
        return re.sub(r"(\d+)\(%rip\)", sub, text)
