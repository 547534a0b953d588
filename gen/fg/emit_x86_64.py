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
    """(emit function, kernel_choice function) for the field's form, or None
    when no backend handles that form. Backends are imported on first use
    (PeachPy is only loaded when assembly is generated)."""
    entry = _BACKENDS.get(fa.form)
    if entry is None:
        return None
    module = importlib.import_module(f".{entry[0]}", __package__)
    return getattr(module, entry[1]), getattr(module, "kernel_choice")


def fp2_ifma_supported(fa):
    """Whether the field gets the AVX-512 IFMA Fp2 mul (x86_64_ifma decides
    from the analysis: the extension, the shape of p + 1, the limb count)."""
    if fa.fp2 is None:
        return False
    return importlib.import_module(".x86_64_ifma", __package__).supported(fa)


def fp2_ifma_sqr_supported(fa):
    """Whether the field gets the AVX-512 IFMA Fp2 sqr (x86_64_ifma.supported_sqr)."""
    if fa.fp2 is None:
        return False
    return importlib.import_module(".x86_64_ifma", __package__).supported_sqr(fa)


def emit(fa, emit_fn, header):
    body = emit_fn(fa)
    if fa.fp2_ifma:
        ifma = importlib.import_module(".x86_64_ifma", __package__)
        body = body.rstrip("\n") + "\n\n" + ifma.emit_fp2_mul(fa)
        if fa.fp2_ifma_sqr:
            body = body.rstrip("\n") + "\n\n" + ifma.emit_fp2_sqr(fa)
    text = (header +
            "\n#if defined(__x86_64__) && (defined(__ELF__) || defined(__APPLE__)) && !defined(FG_NO_ASM)\n\n" +
            body.rstrip("\n") + "\n\n" +
            "#ifdef __ELF__\n"
            ".section .note.GNU-stack,\"\",%progbits\n"
            "#endif\n"
            "#endif\n")
    return {f"{fa.name}/fg_{fa.name}_x86_64.S": text}
