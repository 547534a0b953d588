# SPDX-License-Identifier: MIT OR Apache-2.0
"""Emitter: x86-64 assembly per field (PeachPy), wrapped in a generated .S.

The reduction family decided by the analysis picks the backend module; the
backends only see the analysis object, never a field's name.
"""

from __future__ import annotations

import importlib

_BACKENDS = {
    "montgomery": ("x86_64_mont", "emit_montgomery"),
    "pseudo_mersenne": ("x86_64_pm", "emit_pseudo_mersenne"),
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
    ifma = importlib.import_module(".x86_64_ifma", __package__)
    texts = []
    if fa.fp2 is not None:
        fa.fp2_ifma, fa.fp2_ifma_sqr, text = ifma.choose(fa, body)
        texts.append(text)
    fa.mul_ifma, fa.sqr_ifma, text = ifma.choose_mul(fa, body)
    texts.append(text)
    hybrid = importlib.import_module(".x86_64_hybrid", __package__)
    fa.fp2_mul_ifma_zen = hybrid.chosen(fa, "mul", body)
    fa.fp2_sqr_ifma_zen = hybrid.chosen(fa, "sqr", body)
    for op in ("mul", "sqr"):
        if getattr(fa, "fp2_%s_ifma_zen" % op):
            texts.append(hybrid.emit(fa, op))
    for text in filter(None, texts):
        body = body.rstrip("\n") + "\n\n" + text.strip("\n") + "\n"
    return body


def emit(fa, body, header):
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
