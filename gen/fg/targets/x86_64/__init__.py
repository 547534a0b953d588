# SPDX-License-Identifier: MIT OR Apache-2.0
"""The x86-64 target: one .S per field, fg_NAME_x86_64.S, holding the
x86_64, bmi2 and adx levels' kernels (PeachPy) and the ifma level's AVX-512
IFMA ones, for ELF and Mach-O, chosen by the preprocessor.

The reduction family decided by the analysis picks the backend module
(mont.py, pm.py; ifma.py, hybrid.py and kara.py beside them, gas.py turns
PeachPy's functions into GAS text, cost.py counts what each kernel
executes); the backends only see the analysis object, never a field's name.
The target interface (gen/fg/targets/__init__.py): plan(fa), emit(fa,
kernels, comment), and costs_report(fa) for `gen/fieldgen --costs`.
"""

from __future__ import annotations

import importlib

from . import cost as kernel_cost

NAME = "x86_64"
# the runtime selector's levels above c, in fg_isa order (runtime/fg_cpu_x86_64.h:
# FG_ISA_X86_64 = 1 ... FG_ISA_IFMA = 4), and its tunings (fg_tune); the first
# three have a kernel of their own for every op (the PeachPy levels), ifma runs
# adx's but where the ifma backend chose an AVX-512 IFMA kernel
LEVELS = ("x86_64", "bmi2", "adx", "ifma")
ASM_LEVELS = LEVELS[:3]
TUNES = ("generic", "zen", "zen4")
# zen4 (AMD family 19h with AVX-512: Zen 4) runs zen's kernels but for the
# hybrid Fp2 kernels at ifma (hybrid.py): its 512-bit units are half-width
ZEN_TUNES = ("zen", "zen4")
# the kernels: one per level (fg_NAME_OP_LEVEL), and the Zen form of the adx
# kernel (fg_NAME_OP_adx_zen: mont.ZEN_DUAL_ROWS), where it differs; the
# headers' _USES macros name them by these ids (runtime/fg_cpu.h)
KERNEL_IDS = {"c": "FG_ISA_C", "x86_64": "FG_ISA_X86_64", "bmi2": "FG_ISA_BMI2", "adx": "FG_ISA_ADX",
              "adx_zen": "FG_KERNEL_ADX_ZEN", "ifma": "FG_ISA_IFMA"}
# the CMake build (its row in fields.cmake's target table): the processors
# it builds for (a regular expression on CMAKE_SYSTEM_PROCESSOR), the cache
# option that turns it on, and that option's help text
CMAKE_PROCESSOR = "^(x86_64|AMD64|amd64)$"
CMAKE_OPTION = "FIELDGEN_ASM"
CMAKE_DOC = "Build the x86-64 assembly kernels (OFF: portable C level only)"
# its parts of the C header and dispatchers (macros have, declarations, dispatch)
TEMPLATE = "target.j2"
# the name endings of its kernels (fg_NAME_OP_<suffix>)
KERNEL_SUFFIXES = ("_x86_64", "_bmi2", "_adx", "_adx_zen", "_ifma", "_ifma_zen")

_BACKENDS = {
    "montgomery": ("mont", "emit_montgomery"),
    "pseudo_mersenne": ("pm", "emit_pseudo_mersenne"),
}


def kernel_level(kernel):
    """The level whose instructions a kernel uses (adx_zen: adx's)."""
    return kernel[:-len("_zen")] if kernel.endswith("_zen") else kernel


class Kernels:
    """The x86-64 kernel set of one field: what plan(fa) built. The backends
    receive it where they take the field and record on it what they chose;
    every other attribute reads through to the frozen field model (fa), which
    nothing here writes. False when no backend handles the field's form.

    text         the GAS text of every kernel (emit puts it in the .S)
    dispatch     op -> [(level, kernel)], highest level first: which kernel
                 each PeachPy level runs under the generic tuning
    dispatch_zen the same under the zen tunings
    at_ifma      (op, tune) -> the kernel the ifma level runs for a scalar op
    fp2_at_adx   ("mul"/"sqr", tune) -> the scalar Fp2 kernel the adx level
                 runs, or None (the C path)
    runs         op (and "fp2_mul", "fp2_sqr" where there are Fp2 kernels) ->
                 {(level, tune): kernel or "c"} over every selector: the
                 input of the dispatch plan (gen/fg/dispatch.py)
    fp2_ifma, fp2_ifma_sqr, mul_ifma, sqr_ifma
                 the ifma level's AVX-512 IFMA Fp2 mul (and sqr) and Fp mul
                 (and sqr) exist (ifma.choose, choose_mul)
    fp2_{mul,sqr}_{adx,bmi2,adx_zen,ifma_zen}
                 the one-function Fp2 kernels that exist (mont.py, hybrid.py)
    zen_forms    the ops with a Zen form at adx, in generation order
    kernel_cost  (op, kernel) -> (64x64 multiplications, port-0/6
                 instructions, ALU instructions), counted on text (cost.py)
    ifma_fmul_vec the IFMA Fp mul's vector instructions (ifma.py)
    """

    LEVELS, ASM_LEVELS, TUNES, KERNEL_IDS = LEVELS, ASM_LEVELS, TUNES, KERNEL_IDS

    def __init__(self, fa):
        self.__dict__["model"] = fa
        self.have_asm = False
        self.text = ""
        self.dispatch, self.dispatch_zen, self.at_ifma, self.fp2_at_adx, self.runs = {}, {}, {}, {}, {}
        self.fp2_ifma = self.fp2_ifma_sqr = self.mul_ifma = self.sqr_ifma = False
        for op in ("mul", "sqr"):
            for kernel in ("adx", "bmi2", "adx_zen", "ifma_zen"):
                setattr(self, f"fp2_{op}_{kernel}", False)
        self.zen_forms = []
        self.kernel_cost = {}
        self.ifma_fmul_vec = None

    def __getattr__(self, name):        # what the set does not hold: the model's
        return getattr(self.__dict__["model"], name)

    def __bool__(self):
        return self.have_asm


def backend(fa):
    """(emit function, kernel_choice function, kernel_choice_zen function) for
    the field's form, or None when no backend handles that form. Backends are
    imported on first use (PeachPy is only loaded when assembly is generated)."""
    entry = _BACKENDS.get(fa.form)
    if entry is None:
        return None
    module = importlib.import_module(f".{entry[0]}", __package__)
    return getattr(module, entry[1]), getattr(module, "kernel_choice"), getattr(module, "kernel_choice_zen")


def kernels(ks, emit_fn):
    """The GAS text of the field's kernels: the backend's (emit_fn), then the
    AVX-512 IFMA Fp2 kernels and Fp mul the ifma level runs. ifma.py decides
    which, from the shape of p and the extension (whether one can be
    generated) and from the generated code (whether it beats the scalar
    path), hybrid.py whether the zen4 tuning's ifma level runs the hybrid Fp2
    mul and sqr; both record it on ks."""
    body = emit_fn(ks)
    ifma = importlib.import_module(".ifma", __package__)
    texts = []
    if ks.fp2 is not None:
        ks.fp2_ifma, ks.fp2_ifma_sqr, text = ifma.choose(ks, body)
        texts.append(text)
    ks.mul_ifma, ks.sqr_ifma, text = ifma.choose_mul(ks, body)
    texts.append(text)
    hybrid = importlib.import_module(".hybrid", __package__)
    ks.fp2_mul_ifma_zen = hybrid.chosen(ks, "mul", body)
    ks.fp2_sqr_ifma_zen = hybrid.chosen(ks, "sqr", body)
    for op in ("mul", "sqr"):
        if getattr(ks, "fp2_%s_ifma_zen" % op):
            texts.append(hybrid.emit(ks, op))
    for text in filter(None, texts):
        body = body.rstrip("\n") + "\n\n" + text.strip("\n") + "\n"
    return body


def choose_levels(ks, kernel_choice):
    """ks.dispatch from the backend's generic kernel_choice ({(op, level):
    kernel level}: a level may run a lower level's kernel where that
    measured faster); before the kernels are built (ifma.py reads it)."""
    ks.dispatch = {op: [(level, kernel_choice.get((op, level), level)) for level in reversed(ASM_LEVELS)]
                   for op in ks.kernel_ops}


def choose_tunings(ks, zen_choice, fp2_zen=None):
    """Which of its kernels each selector (level, tuning) runs, once the
    kernels exist: ks.dispatch_zen from zen_choice ({(op, level): kernel}
    where Zen cores run another), ks.at_ifma, ks.fp2_at_adx (fp2_zen:
    {"mul"/"sqr": kernel, or None for the C path} where Zen runs another
    scalar Fp2 kernel at adx) and ks.runs. The ifma level runs the adx
    level's Fp kernels, under either tuning, but for the IFMA Fp mul (sqr)
    under the zen tunings where ks.mul_ifma (sqr_ifma)."""
    fp2_zen = fp2_zen or {}
    for op in ks.kernel_ops:
        ks.dispatch_zen[op] = [(level, zen_choice.get((op, level), kernel)) for level, kernel in ks.dispatch[op]]
        kernel_at = {}
        for tune in TUNES:
            plan = dict(ks.dispatch[op] if tune == "generic" else ks.dispatch_zen[op])
            for level in ("c",) + LEVELS:
                kernel_at[(level, tune)] = plan.get("adx" if level == "ifma" else level, "c")
        if (op == "mul" and ks.mul_ifma) or (op == "sqr" and ks.sqr_ifma):
            for tune in ZEN_TUNES:
                kernel_at[("ifma", tune)] = "ifma"     # AMD's AVX-512 cores: the IFMA Fp mul
        for tune in TUNES:
            ks.at_ifma[(op, tune)] = kernel_at[("ifma", tune)]
        ks.runs[op] = kernel_at
    if ks.fp2 is None:
        return
    for op in ("mul", "sqr"):
        have = {"ifma": ks.fp2_ifma if op == "mul" else ks.fp2_ifma_sqr,
                "adx": getattr(ks, f"fp2_{op}_adx"), "bmi2": getattr(ks, f"fp2_{op}_bmi2")}
        if not any(have.values()):
            continue
        kernel_at = {}
        for tune in TUNES:
            at_adx = "adx" if have["adx"] else "bmi2" if have["bmi2"] else None
            if tune in ZEN_TUNES and op in fp2_zen:
                at_adx = fp2_zen[op]
            kernel_at.update({("ifma", tune): "ifma" if have["ifma"] else at_adx, ("adx", tune): at_adx,
                              ("bmi2", tune): "bmi2" if have["bmi2"] else None})
            if tune == "zen4" and getattr(ks, f"fp2_{op}_ifma_zen"):
                kernel_at[("ifma", tune)] = "ifma_zen"      # the hybrid
            ks.fp2_at_adx[(op, tune)] = at_adx
        ks.runs["fp2_" + op] = {key: k or "c" for key, k in kernel_at.items()}


def plan(fa):
    """The field's x86-64 kernel set (Kernels): the GAS text, which kernels
    exist, which each selector runs, and what each executes; empty (false)
    without a backend for its form."""
    ks = Kernels(fa)
    asm = backend(fa)
    if asm is None:
        return ks
    ks.have_asm = True
    choose_levels(ks, asm[1](ks))
    ks.text = kernels(ks, asm[0])
    ks.kernel_cost = kernel_cost.costs(ks, ks.text)
    choose_tunings(ks, *asm[2](ks))
    return ks


def describe(ks):
    """What the .S holds, for its generated-file header."""
    return "x86-64 kernels (x86_64, bmi2, adx levels%s%s), PeachPy" % (
        "; ifma Fp2 mul" + (", sqr" if ks.fp2_ifma_sqr else "") if ks.fp2_ifma else "",
        "; hybrid Fp2 " + " and ".join(op for op in ("mul", "sqr") if getattr(ks, "fp2_%s_ifma_zen" % op))
        if ks.fp2_mul_ifma_zen or ks.fp2_sqr_ifma_zen else "")


def emit(fa, ks, comment):
    """{relative path: text}: the kernel set's text (plan's result) in its
    .S; comment(what) is the generated-file header as a C comment."""
    header = comment(describe(ks))
    body = ks.text
    # The stack note stands outside the x86-64 guard: built for another ELF
    # target (the README's vendoring command compiles the .S everywhere),
    # the empty object still says its stack is not executable, or the
    # linker would make the whole program's stack executable.
    text = (header +
            "\n#if defined(__x86_64__) && (defined(__ELF__) || defined(__APPLE__)) && !defined(FG_NO_ASM)\n\n" +
            body.rstrip("\n") + "\n\n" +
            # with -fcf-protection: the x86 feature property (IBT and/or
            # SHSTK, as __CET__'s bits 0 and 1 say) that the linker ANDs over
            # every object; each function starts with ENDBR64 (gas_text),
            # none touches the return address or switches stacks
            "#if defined(__CET__) && defined(__ELF__)\n"
            ".section .note.gnu.property,\"a\"\n"
            ".p2align 3\n"
            ".long 4, 16, 5          /* name size, descriptor size, NT_GNU_PROPERTY_TYPE_0 */\n"
            ".asciz \"GNU\"\n"
            ".long 0xc0000002, 4, (__CET__ & 3)   /* GNU_PROPERTY_X86_FEATURE_1_AND, 4 bytes, IBT|SHSTK */\n"
            ".p2align 3\n"
            "#endif\n"
            "#endif\n\n"
            "#ifdef __ELF__\n"
            ".section .note.GNU-stack,\"\",%progbits\n"
            "#endif\n")
    return {f"{fa.name}/fg_{fa.name}_x86_64.S": text,
            f"{fa.name}/fg_{fa.name}_x86_64_costs.h": costs_header(fa, ks, comment)}


COSTS_COMMENT = """\
/* What each kernel fg_NAME_OP_LEVEL executes (straight-line code, counted on
 * the generated text by gen/fg/targets/x86_64/cost.py), as
 * FG_NAME_OP_LEVEL_MULTS, _P06 and _ALU:
 * _MULTS 64x64 multiplications (MULX, MUL, IMUL: one per cycle, ports 1 and 5),
 * _P06 carry, borrow, select and shift instructions (ADC, SBB, ADCX, ADOX,
 * CMOVcc, SETcc, shifts: ports 0 and 6 only, two per cycle). On the Intel cores
 * measured a kernel cannot run faster than max(_MULTS, _P06 / 2) cycles: its
 * port floor, which fieldgen-bench reports beside each kernel's figures.
 * _ALU every instruction an integer ALU executes (all but the multiplications,
 * loads, stores, register moves, pushes, pops and zeroing XORs): on cores where
 * MULX shares issue with them (Zen 3; fieldgen-bench's start-up probe says
 * whether this one does) the kernel's bound is _MULTS + _ALU at the rate of a
 * product row (research/ports/rows.py).
 * Not part of the API (docs/api.md): fieldgen-bench and tests/kernel_cost.py
 * read this file; nothing installs it. */
"""


def costs_header(fa, ks, comment):
    """fg_NAME_x86_64_costs.h: the counts of every kernel (ks.kernel_cost)."""
    guard = f"FG_{fa.upper}_X86_64_COSTS_H"
    rows = []
    for op in fa.kernel_ops + ("fp2_mul", "fp2_sqr"):
        for level in ASM_LEVELS + ("adx_zen",):
            if (op, level) in ks.kernel_cost:
                for what, v in zip(("MULTS", "P06", "ALU"), ks.kernel_cost[(op, level)]):
                    rows.append(f"#define FG_{fa.upper}_{op.upper()}_{level.upper()}_{what} {v}")
    return (comment("x86-64 kernel counts (not part of the API)") + f"#ifndef {guard}\n#define {guard}\n\n" +
            COSTS_COMMENT + "\n".join(rows) + f"\n\n#endif /* {guard} */\n")


def costs_report(fa):
    """What each x86-64 kernel of a field executes and its port floor
    (cost.py), and which kernel the dispatcher runs per level: generated in
    memory, nothing written."""
    ks = plan(fa)
    if not ks:
        return f"{fa.name}: no x86-64 backend for the form {fa.form} (the C kernels only)"
    costs = ks.kernel_cost
    lines = [f"{fa.name}: p = {fa.modulus_text}, {fa.n} limbs",
             f"  {'op':<9} {'level':<7} {'mults':>5} {'p06':>4} {'floor':>6} {'alu':>5}  dispatched at"]
    for op, level in kernel_cost.KERNELS:
        if (op, level) not in costs:
            continue
        mults, p06, alu = costs[(op, level)]
        users, seen = [], None
        for tune in TUNES:
            if op in kernel_cost.FP2_OPS:   # the C Fp2 op branches to it at its level, adx's also at ifma without an IFMA kernel
                ifma = not (ks.fp2_ifma if op == "fp2_mul" else ks.fp2_ifma_sqr)
                at = ["bmi2"] if level == "bmi2" else []
                at += ["adx"] + (["ifma"] if ifma else []) if ks.fp2_at_adx.get((op[4:], tune)) == level else []
            else:                           # the ifma level runs adx's scalar kernels (ks.at_ifma)
                dispatch = ks.dispatch if tune == "generic" else ks.dispatch_zen
                at = [lv for lv, k in dispatch.get(op) or [] if k == level]
                at += ["ifma"] if ks.at_ifma.get((op, tune)) == level else []
            if tune == "generic":
                users += [", ".join(at)] if at else []
            elif at != seen:                # the Zen tuning's users where they differ
                users.append(tune + ": " + (", ".join(at) or "-"))
            seen = at
        lines.append(f"  {op:<9} {level:<7} {mults:>5} {p06:>4} {max(mults, p06 / 2):>6.1f} {alu:>5}  "
                     f"{'; '.join(users) if users else '-'}")
    return "\n".join(lines)
