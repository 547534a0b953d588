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

from ... import analysis
from . import cost as kernel_cost

NAME = "x86_64"
# the fields.cmake list of the fields this target has kernels for
CMAKE_FIELDS = "FIELDGEN_ASM_FIELDS"
# its parts of the C header and dispatchers (macros have, declarations, dispatch)
TEMPLATE = "target.j2"
# the name endings of its kernels (fg_NAME_OP_<suffix>)
KERNEL_SUFFIXES = ("_x86_64", "_bmi2", "_adx", "_adx_zen", "_ifma", "_ifma_zen")

_BACKENDS = {
    "montgomery": ("mont", "emit_montgomery"),
    "pseudo_mersenne": ("pm", "emit_pseudo_mersenne"),
}


def backend(fa):
    """(emit function, kernel_choice function, kernel_choice_zen function) for
    the field's form, or None when no backend handles that form. Backends are
    imported on first use (PeachPy is only loaded when assembly is generated)."""
    entry = _BACKENDS.get(fa.form)
    if entry is None:
        return None
    module = importlib.import_module(f".{entry[0]}", __package__)
    return getattr(module, entry[1]), getattr(module, "kernel_choice"), getattr(module, "kernel_choice_zen")


def kernels(fa, emit_fn):
    """The GAS text of the field's kernels: the backend's (emit_fn), then the
    AVX-512 IFMA Fp2 kernels and Fp mul the ifma level runs. x86_64_ifma
    decides which, from the shape of p and the extension (whether one can be
    generated) and from the generated code (whether it beats the scalar path);
    the choice is recorded in fa.fp2_ifma, fa.fp2_ifma_sqr, fa.mul_ifma and
    fa.sqr_ifma for the C templates; x86_64_hybrid whether the zen tuning's
    ifma level runs the hybrid Fp2 mul and sqr (fa.fp2_mul_ifma_zen,
    fa.fp2_sqr_ifma_zen)."""
    body = emit_fn(fa)
    fa.fp2_ifma = fa.fp2_ifma_sqr = fa.mul_ifma = fa.sqr_ifma = False
    ifma = importlib.import_module(".ifma", __package__)
    texts = []
    if fa.fp2 is not None:
        fa.fp2_ifma, fa.fp2_ifma_sqr, text = ifma.choose(fa, body)
        texts.append(text)
    fa.mul_ifma, fa.sqr_ifma, text = ifma.choose_mul(fa, body)
    texts.append(text)
    hybrid = importlib.import_module(".hybrid", __package__)
    fa.fp2_mul_ifma_zen = hybrid.chosen(fa, "mul", body)
    fa.fp2_sqr_ifma_zen = hybrid.chosen(fa, "sqr", body)
    for op in ("mul", "sqr"):
        if getattr(fa, "fp2_%s_ifma_zen" % op):
            texts.append(hybrid.emit(fa, op))
    for text in filter(None, texts):
        body = body.rstrip("\n") + "\n\n" + text.strip("\n") + "\n"
    return body


def plan(fa):
    """The field's x86-64 kernels as GAS text, or None without a backend for
    its form. Plans the dispatch and records on fa what the templates need
    (fp2_ifma, fp2_ifma_sqr, fp2_{mul,sqr}_{adx,bmi2}, kernel_cost)."""
    asm = backend(fa)
    if asm is None:
        return None
    analysis.plan_dispatch(fa, asm[1](fa))
    body = kernels(fa, asm[0])
    fa.kernel_cost = kernel_cost.costs(fa, body)
    analysis.plan_tuning(fa, *asm[2](fa))
    return body


def describe(fa):
    """What the .S holds, for its generated-file header."""
    return "x86-64 kernels (x86_64, bmi2, adx levels%s%s), PeachPy" % (
        "; ifma Fp2 mul" + (", sqr" if fa.fp2_ifma_sqr else "") if fa.fp2_ifma else "",
        "; hybrid Fp2 " + " and ".join(op for op in ("mul", "sqr") if getattr(fa, "fp2_%s_ifma_zen" % op))
        if fa.fp2_mul_ifma_zen or fa.fp2_sqr_ifma_zen else "")


def emit(fa, body, comment):
    """{relative path: text}: body (plan's result) in its .S; comment(what)
    is the generated-file header as a C comment."""
    header = comment(describe(fa))
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
    return {f"{fa.name}/fg_{fa.name}_x86_64.S": text}


def costs_report(fa):
    """What each x86-64 kernel of a field executes and its port floor
    (cost.py), and which kernel the dispatcher runs per level: generated in
    memory, nothing written."""
    if plan(fa) is None:
        return f"{fa.name}: no x86-64 backend for the form {fa.form} (the C kernels only)"
    costs = fa.kernel_cost
    lines = [f"{fa.name}: p = {fa.modulus_text}, {fa.n} limbs",
             f"  {'op':<9} {'level':<7} {'mults':>5} {'p06':>4} {'floor':>6} {'alu':>5}  dispatched at"]
    for op, level in kernel_cost.KERNELS:
        if (op, level) not in costs:
            continue
        mults, p06, alu = costs[(op, level)]
        users, seen = [], None
        for tune in analysis.TUNES:
            if op in kernel_cost.FP2_OPS:   # the C Fp2 op branches to it at its level, adx's also at ifma without an IFMA kernel
                ifma = not (fa.fp2_ifma if op == "fp2_mul" else fa.fp2_ifma_sqr)
                at = ["bmi2"] if level == "bmi2" else []
                at += ["adx"] + (["ifma"] if ifma else []) if fa.fp2_at_adx.get((op[4:], tune)) == level else []
            else:                           # the ifma level runs adx's scalar kernels (fa.at_ifma)
                dispatch = fa.dispatch if tune == "generic" else fa.dispatch_zen
                at = [lv for lv, k in dispatch.get(op) or [] if k == level]
                at += ["ifma"] if fa.at_ifma.get((op, tune)) == level else []
            if tune == "generic":
                users += [", ".join(at)] if at else []
            elif at != seen:                # the Zen tuning's users where they differ
                users.append(tune + ": " + (", ".join(at) or "-"))
            seen = at
        lines.append(f"  {op:<9} {level:<7} {mults:>5} {p06:>4} {max(mults, p06 / 2):>6.1f} {alu:>5}  "
                     f"{'; '.join(users) if users else '-'}")
    return "\n".join(lines)
